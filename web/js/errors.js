// Errors next to the fields they are about. Elements declare the JSON Pointers they own in data-error-for
// (space-separated prefixes); an error goes to the element with the longest prefix of its path, or to a fallback.
// Each error is a role="alert" paragraph with the message as text and the path, and the field is aria-invalid.

/** @import {EngineError} from './types.js' */
import { el } from './dom.js';
import { pageLanguage } from './i18n.js';
import { ZH_ERRORS } from './lang/zh-errors.js';

/**
 * Whether `prefix` names `path` or a parent of it ('' names everything).
 * @param {string} prefix
 * @param {string} path
 */
const covers = (prefix, path) => prefix === path || prefix === '' || path.startsWith(prefix + '/');

/**
 * The element among candidates whose data-error-for has the longest prefix of path.
 * @param {Element[]} candidates
 * @param {string} path
 * @returns {Element | null}
 */
export function fieldFor(candidates, path) {
  let best = null;
  let bestLength = -1;
  for (const candidate of candidates) {
    for (const prefix of (candidate.getAttribute('data-error-for') ?? '').split(/\s+/)) {
      if (prefix === '' && candidate.getAttribute('data-error-for') !== '') continue;
      if (covers(prefix, path) && prefix.length > bestLength) {
        best = candidate;
        bestLength = prefix.length;
      }
    }
  }
  return best;
}

export class ErrorBoard {
  /**
   * @param {HTMLElement} fallback where errors without a better place go
   */
  constructor(fallback) {
    this.fallback = fallback;
  }

  /**
   * Shows a group's errors, replacing that group's previous ones.
   * @param {string} group e.g. 'plan', 'model', 'search'
   * @param {EngineError[]} errors
   * @param {{within?: HTMLElement, exclude?: HTMLElement | null, target?: HTMLElement, prefer?: HTMLElement}} [where]
   *   `target` takes every error; otherwise the fields with data-error-for inside `within` (minus `exclude`) are
   *   matched, those inside `prefer` first (the search panel's own /training fields before the plan's)
   */
  set(group, errors, where = {}) {
    this.clear(group);
    const candidates = where.within
      ? [...where.within.querySelectorAll('[data-error-for]')].filter((node) => !where.exclude?.contains(node))
      : [];
    const preferred = where.prefer ? candidates.filter((node) => where.prefer?.contains(node)) : [];
    for (const error of errors) {
      const field = where.target ?? fieldFor(preferred, error.path ?? '') ?? fieldFor(candidates, error.path ?? '') ?? this.fallback;
      let list = [...field.children].find((child) => child.classList.contains('field-errors'));
      if (!list) {
        list = el('div', { class: 'field-errors' });
        field.append(list);
      }
      // On the Chinese page: the code's sentence, then the engine's English text (it names the values), the code and
      // the path.
      const sentence = pageLanguage() === 'zh' ? ZH_ERRORS[error.code ?? ''] : undefined;
      const message = el('p', { class: 'field-error', attrs: { role: 'alert' }, data: { group, errorPath: error.path ?? '', code: error.code ?? '' } }, [
        sentence ? el('span', { class: 'error-sentence', text: sentence }) : null,
        el('span', { class: sentence ? 'error-text engine-text' : 'error-text', text: error.message, attrs: { lang: sentence ? 'en' : null } }),
        sentence && error.code ? el('code', { class: 'error-code', text: error.code }) : null,
        error.path ? el('code', { class: 'error-path', text: error.path }) : null,
      ]);
      list.append(message);
      const input = field.matches('input, select, textarea') ? field : field.querySelector('input:not([type=radio]):not([type=checkbox]), select, textarea');
      if (input) {
        input.setAttribute('aria-invalid', 'true');
        input.setAttribute('data-invalid-group', group);
      }
    }
  }

  /** @param {string} group */
  clear(group) {
    for (const node of document.querySelectorAll(`.field-error[data-group="${group}"]`)) {
      const list = node.parentElement;
      node.remove();
      if (list && list.children.length === 0) list.remove();
    }
    for (const input of document.querySelectorAll(`[data-invalid-group="${group}"]`)) {
      input.removeAttribute('aria-invalid');
      input.removeAttribute('data-invalid-group');
    }
  }

  /** @param {string} group */
  has(group) {
    return document.querySelector(`.field-error[data-group="${group}"]`) !== null;
  }
}
