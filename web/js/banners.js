// Messages above the views (a dead worker, a broken link, stale results), one per id, each dismissable. Text only.

import { el } from './dom.js';
import { t } from './i18n.js';

export class Banners {
  /** @param {HTMLElement} container */
  constructor(container) {
    this.container = container;
  }

  /**
   * Shows a message, replacing an earlier one with the same id. Errors are alerts; the rest are status.
   * @param {string} id
   * @param {'error' | 'warn' | 'info'} tone
   * @param {string} message
   * @param {{action?: {label: string, run: () => void}, role?: 'alert' | 'status'}} [options]
   */
  show(id, tone, message, { action, role = tone === 'error' ? 'alert' : 'status' } = {}) {
    this.remove(id);
    this.container.append(el('div', { class: `banner ${tone}`, attrs: { role }, data: { banner: id } }, [
      el('span', { class: 'banner-text', text: message }),
      action ? el('button', { class: 'button small', text: action.label, attrs: { type: 'button' }, on: { click: action.run } }) : null,
      el('button', { class: 'banner-close', text: '×', attrs: { type: 'button', 'aria-label': t('Dismiss') }, on: { click: () => this.remove(id) } }),
    ]));
  }

  /** @param {string} id */
  remove(id) {
    this.container.querySelector(`[data-banner="${id}"]`)?.remove();
  }
}
