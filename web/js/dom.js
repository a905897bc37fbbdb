// DOM helpers for the page: elements built from tag, attributes and children, text always as text nodes
// (never innerHTML), and file downloads through blob URLs.

import { t } from './i18n.js';

/**
 * @typedef {{class?: string, text?: string, attrs?: Record<string, string | number | boolean | null | undefined>,
 *            data?: Record<string, string | number>, on?: Record<string, EventListener>}} ElementOptions
 */

/**
 * Creates an HTML element. `attrs` may not hold `style` (the page's CSP blocks style attributes).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {ElementOptions} [options]
 * @param {(Node | string | null | undefined | false)[]} [children]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, options = {}, children = []) {
  const node = document.createElement(tag);
  if (options.class) node.className = options.class;
  if (options.text !== undefined) node.textContent = options.text;
  for (const [name, value] of Object.entries(options.attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const [name, value] of Object.entries(options.data ?? {})) node.dataset[name] = String(value);
  for (const [name, listener] of Object.entries(options.on ?? {})) node.addEventListener(name, listener);
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child);
  }
  return node;
}

/**
 * Listeners that make a row-like element act as a button: a click, Enter or Space runs `open`.
 * @param {() => void} open
 * @returns {Record<string, EventListener>}
 */
export function activates(open) {
  return {
    click: open,
    keydown: (event) => {
      const key = /** @type {KeyboardEvent} */ (event).key;
      if (key === 'Enter' || key === ' ') {
        event.preventDefault();
        open();
      }
    },
  };
}

/**
 * The element with this id, or an error naming it (the page's markup and its script belong together).
 * @template {HTMLElement} T
 * @param {string} id
 * @param {new (...args: any[]) => T} type
 * @returns {T}
 */
export function byId(id, type) {
  const node = document.getElementById(id);
  if (!(node instanceof type)) throw new Error(`the page has no #${id} of the expected kind`);
  return node;
}

/**
 * Offers a file for download.
 * @param {Blob} blob
 * @param {string} name
 */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = el('a', { attrs: { href: url, download: name } });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Copies text to the clipboard; falls back to selecting it in the given field.
 * @param {string} content
 * @param {HTMLInputElement | HTMLTextAreaElement} [field]
 * @returns {Promise<boolean>} whether the clipboard took it
 */
export async function copyText(content, field) {
  try {
    await navigator.clipboard.writeText(content);
    return true;
  } catch {
    if (field) {
      field.focus();
      field.select();
    }
    return false;
  }
}

/**
 * Copies text and says so on the button for a moment.
 * @param {HTMLButtonElement} button
 * @param {string} content
 * @param {HTMLInputElement | HTMLTextAreaElement} [field] selected instead when the clipboard is not available
 */
export async function copyWithFeedback(button, content, field) {
  const label = button.dataset.label ?? button.textContent ?? '';
  button.dataset.label = label;
  const ok = await copyText(content, field);
  button.textContent = t(ok ? 'Copied' : field ? 'Selected: press Ctrl+C' : 'Copy failed');
  setTimeout(() => { button.textContent = label; }, 1500);
}

/**
 * A file name from free text: letters, digits, dots, dashes; at most 60 characters, cut between words.
 * @param {string} name
 * @returns {string}
 */
export function fileName(name) {
  const plain = name.toLowerCase().replace(/[^a-z0-9.-]+/g, '-').replace(/^-+|-+$/g, '');
  if (plain.length <= 60) return plain || 'ppb';
  const cut = plain.lastIndexOf('-', 60);
  return (cut > 0 ? plain.slice(0, cut) : plain.slice(0, 60)).replace(/[-.]+$/, '') || 'ppb';
}
