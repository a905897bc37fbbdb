// The page's languages: English (the source) and Simplified Chinese. Text is written in English at its call site,
// `t('Step time')` or `t('{n} layers', {n: '80'})`, and looked up in the Chinese table (js/lang/zh.js) when the
// page is Chinese; a string missing there stays English (tests/web/chinese.test.mjs finds those). The language
// lives where the page's theme does, on <html> (lang="zh-CN" or "en"), so charts, banners and errors read it
// without being handed it. The static markup of index.html is translated by walking its text and labels once.
// Engine errors keep the engine's English text; js/lang/zh-errors.js gives each code a Chinese sentence.

import { ZH } from './lang/zh.js';

/** @typedef {'en' | 'zh'} Language */

/**
 * The language the page shows.
 * @returns {Language}
 */
export const pageLanguage = () => (document.documentElement.lang === 'zh-CN' ? 'zh' : 'en');

/**
 * The first of the browser's languages the page has (zh-CN, zh-TW, zh-Hans... all read Simplified Chinese here).
 * @param {readonly string[]} languages navigator.languages
 * @returns {Language}
 */
export function browserLanguage(languages) {
  for (const tag of languages) {
    const lower = tag.toLowerCase();
    if (lower.startsWith('zh')) return 'zh';
    if (lower.startsWith('en')) return 'en';
  }
  return 'en';
}

/**
 * Text in the page's language. `{name}` in the English template is replaced by params.name in either language.
 * @param {string} english
 * @param {Record<string, string | number>} [params]
 * @returns {string}
 */
export function t(english, params) {
  const template = pageLanguage() === 'zh' ? ZH[english] ?? english : english;
  return params ? template.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole)) : template;
}

/** English text of the static markup, by node, so that the page can go back from Chinese. */
const originals = /** @type {WeakMap<Node, string>} */ (new WeakMap());
/** @type {WeakMap<Element, Record<string, string>>} */
const labelOriginals = new WeakMap();
const LABELS = ['aria-label', 'title', 'placeholder'];

/**
 * Puts the page in a language: <html lang>, and the static markup under root translated (or back to English).
 * Only text that is a whole entry of the table changes, so data (names from files, numbers) never does.
 * @param {Language} language
 * @param {ParentNode} [root]
 */
export function setLanguage(language, root = document.body) {
  document.documentElement.lang = language === 'zh' ? 'zh-CN' : 'en';
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT, {
    acceptNode: (node) => (node instanceof Element && node.matches('script, style, code, pre, textarea, [translate="no"]')
      ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node instanceof Element) {
      for (const name of LABELS) {
        const value = node.getAttribute(name);
        if (value === null) continue;
        const kept = labelOriginals.get(node) ?? {};
        const english = kept[name] ?? value;
        if (!(collapse(english) in ZH)) continue;
        labelOriginals.set(node, { ...kept, [name]: english });
        const next = language === 'zh' ? ZH[collapse(english)] : english;
        if (next !== value) node.setAttribute(name, next);
      }
      continue;
    }
    const text = node.nodeValue ?? '';
    const english = originals.get(node) ?? text;
    const key = collapse(english);
    if (!key || !(key in ZH)) continue;
    originals.set(node, english);
    const lead = /^\s*/.exec(english)?.[0] ?? '';
    const trail = /\s*$/.exec(english)?.[0] ?? '';
    node.nodeValue = language === 'zh' ? lead + ZH[key] + trail : english;
  }
}

/**
 * @param {string} text
 * @returns {string}
 */
const collapse = (text) => text.replace(/\s+/g, ' ').trim();
