// Embed mode: `?embed=1&view=timeline,memory` shows only those views, without controls, under a caption line (model,
// pp, schedule). `theme=light|dark` fixes the theme. Without `height=auto` the charts fill the frame; with it they
// keep their own height and the frame tells its parent how tall it is (a `ppb-embed-height` message), which the
// snippet's listener applies to the iframe. "Open in PPB" carries the embed's state, edits included. Also builds
// the snippet.

/** @import {PageState} from './types.js' */
import { byId } from './dom.js';
import { encodeState } from './share.js';

export const EMBED_VIEWS = ['summary', 'stage-loads', 'timeline', 'memory', 'compare', 'pareto'];
/** The type of the message an auto-height embed sends its parent. */
export const HEIGHT_MESSAGE = 'ppb-embed-height';

/**
 * @typedef {{embed: boolean, views: string[], theme: 'light' | 'dark' | null, autoHeight: boolean, lang: 'en' | 'zh' | null}} EmbedOptions
 */

/**
 * Reads the embed parameters (and the language, which any page takes); unknown view names are ignored, none known
 * means the timeline.
 * @param {string} search location.search
 * @returns {EmbedOptions}
 */
export function embedOptions(search) {
  const params = new URLSearchParams(search);
  const embed = params.get('embed') === '1' || params.get('embed') === 'true';
  const views = params.getAll('view').flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => EMBED_VIEWS.includes(v));
  const theme = params.get('theme');
  const lang = params.get('lang');
  return {
    lang: lang === 'en' || lang === 'zh' ? lang : null,
    embed,
    views: views.length > 0 ? [...new Set(views)] : ['timeline'],
    theme: theme === 'light' || theme === 'dark' ? theme : null,
    autoHeight: params.get('height') === 'auto',
  };
}

/** This page's own file (index.html or ppb.html); './' where the address names none. */
const pageFile = () => location.pathname.slice(location.pathname.lastIndexOf('/') + 1) || './';

/**
 * Lays the page out for embed mode: only the chosen views, each filling its share of the frame (or at its own
 * height, reported to the parent), and the link that opens the whole page.
 * @param {EmbedOptions} options
 */
export function showEmbedLayout(options) {
  document.body.classList.add('embed');
  document.body.classList.toggle('embed-auto', options.autoHeight);
  for (const view of document.querySelectorAll('.view[data-view]')) {
    const name = view.getAttribute('data-view') ?? '';
    view.classList.toggle('embed-shown', options.views.includes(name) || (name === 'search' && options.views.includes('pareto')));
  }
  byId('embed-open', HTMLAnchorElement).href = `${pageFile()}${location.hash}`;
  if (options.autoHeight && window.parent !== window) reportHeight();
}

/** Tells the parent page the document's height whenever it changes (the snippet's listener sizes the iframe). */
function reportHeight() {
  let last = 0;
  new ResizeObserver(() => {
    // The body's own height (the document's scroll height is never below the frame's, so it could only grow).
    const height = Math.ceil(document.body.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    // Only a number goes out, so any origin may hear it.
    window.parent.postMessage({ type: HEIGHT_MESSAGE, height }, '*');
  }).observe(document.body);
}

/**
 * Points "Open in PPB" at the embed's current state (after a drag in the frame, say), in the embed's theme.
 * @param {PageState} state
 * @param {'light' | 'dark' | null} theme
 */
export async function updateOpenLink(state, theme) {
  const fragment = await encodeState(theme ? { ...state, ui: { ...state.ui, theme } } : state);
  byId('embed-open', HTMLAnchorElement).href = `${pageFile()}${fragment}`;
}

/**
 * The page address for an embed of these views with this state fragment.
 * @param {string} pageUrl the page's address without query and fragment
 * @param {string[]} views
 * @param {string} fragment '#ppb1....'
 * @param {{theme?: 'light' | 'dark' | null, autoHeight?: boolean, lang?: 'en' | 'zh' | null}} [options]
 * @returns {string}
 */
export function embedUrl(pageUrl, views, fragment, { theme = null, autoHeight = false, lang = null } = {}) {
  return `${pageUrl}?embed=1&view=${views.map(encodeURIComponent).join(',')}${theme ? `&theme=${theme}` : ''}` +
    `${autoHeight ? '&height=auto' : ''}${lang ? `&lang=${lang}` : ''}${fragment}`;
}

/**
 * @param {string} value
 * @returns {string}
 */
const attribute = (value) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A short name for an embed, the same for the same address (a page with several embeds keeps them apart).
 * @param {string} url
 * @returns {string}
 */
function frameId(url) {
  // FNV-1a, 32 bits.
  let hash = 0x811c9dc5;
  for (let i = 0; i < url.length; ++i) hash = Math.imul(hash ^ url.charCodeAt(i), 0x01000193) >>> 0;
  return `ppb-embed-${hash.toString(16).padStart(8, '0')}`;
}

/**
 * An <iframe> snippet to paste into a docs page: as wide as the column, and as tall as the frame says it is (a
 * short script listens for its height messages; without the script the frame keeps a height that suits the views).
 * @param {string} url an embed address with height=auto
 * @param {string[]} views
 * @param {string} title
 * @returns {string}
 */
export function iframeSnippet(url, views, title) {
  const heights = /** @type {Record<string, number>} */ ({ summary: 110, 'stage-loads': 480, timeline: 380, memory: 340, compare: 380, pareto: 380 });
  const height = Math.min(2400, views.reduce((sum, v) => sum + (heights[v] ?? 360), 50));
  const id = frameId(url);
  return `<iframe id="${id}" src="${attribute(url)}" width="100%" height="${height}" title="${attribute(title)}" loading="lazy" style="border:0;width:100%"></iframe>\n` +
    `<script>addEventListener('message',function(e){var f=document.getElementById('${id}');` +
    `if(f&&e.source===f.contentWindow&&e.data&&e.data.type==='${HEIGHT_MESSAGE}'&&e.data.height>0)f.style.height=Math.min(e.data.height,20000)+'px';});<` +
    // Split so that the page's own inline copy (the single file) never holds a closing script tag.
    '/script>';
}
