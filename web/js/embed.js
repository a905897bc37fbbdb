// Embed mode: `?embed=1&view=timeline,memory` shows only those views, without controls, sized to the frame.
// Also builds the <iframe> snippet for the current state.

import { byId } from './dom.js';

export const EMBED_VIEWS = ['summary', 'stage-loads', 'timeline', 'memory', 'compare', 'pareto'];

/**
 * @typedef {{embed: boolean, views: string[]}} EmbedOptions
 */

/**
 * Reads the embed parameters; unknown view names are ignored, none known means the timeline.
 * @param {string} search location.search
 * @returns {EmbedOptions}
 */
export function embedOptions(search) {
  const params = new URLSearchParams(search);
  const embed = params.get('embed') === '1' || params.get('embed') === 'true';
  const views = params.getAll('view').flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => EMBED_VIEWS.includes(v));
  return { embed, views: views.length > 0 ? [...new Set(views)] : ['timeline'] };
}

/**
 * Lays the page out for embed mode: only the chosen views, each filling its share of the frame, and the link that
 * opens the whole page.
 * @param {EmbedOptions} options
 */
export function showEmbedLayout(options) {
  document.body.classList.add('embed');
  for (const view of document.querySelectorAll('.view[data-view]')) {
    const name = view.getAttribute('data-view') ?? '';
    view.classList.toggle('embed-shown', options.views.includes(name) || (name === 'search' && options.views.includes('pareto')));
  }
  // This page's own file (index.html or ppb.html); './' where the address names none.
  const page = location.pathname.slice(location.pathname.lastIndexOf('/') + 1) || './';
  byId('embed-open', HTMLAnchorElement).href = `${page}${location.hash}`;
}

/**
 * The page address for an embed of these views with this state fragment.
 * @param {string} pageUrl the page's address without query and fragment
 * @param {string[]} views
 * @param {string} fragment '#ppb1....'
 * @returns {string}
 */
export function embedUrl(pageUrl, views, fragment) {
  return `${pageUrl}?embed=1&view=${views.map(encodeURIComponent).join(',')}${fragment}`;
}

/**
 * @param {string} value
 * @returns {string}
 */
const attribute = (value) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * An <iframe> snippet to paste into a docs page. The height suits the views chosen.
 * @param {string} url
 * @param {string[]} views
 * @param {string} title
 * @returns {string}
 */
export function iframeSnippet(url, views, title) {
  const heights = /** @type {Record<string, number>} */ ({ summary: 110, 'stage-loads': 420, timeline: 360, memory: 340, compare: 330, pareto: 340 });
  const height = Math.min(1600, views.reduce((sum, v) => sum + (heights[v] ?? 360), 30));
  return `<iframe src="${attribute(url)}" width="960" height="${height}" title="${attribute(title)}" loading="lazy" style="border:0;max-width:100%"></iframe>`;
}
