// One tooltip for the whole page. Chart elements carry their text in data-tip (lines separated by newlines);
// charts with their own hit testing (the timeline, the memory chart) call show() directly. Text only.

import { el } from './dom.js';

export class Tooltip {
  constructor() {
    this.node = el('div', { class: 'tooltip', attrs: { role: 'tooltip', hidden: true } });
    document.body.append(this.node);
  }

  /**
   * Follows pointers over elements with data-tip inside root.
   * @param {HTMLElement} root
   */
  attach(root) {
    root.addEventListener('pointermove', (event) => {
      if (event.pointerType === 'touch' && event.buttons) return;
      const target = event.target instanceof Element ? event.target.closest('[data-tip]') : null;
      if (target && root.contains(target)) this.show(event.clientX, event.clientY, (target.getAttribute('data-tip') ?? '').split('\n'));
      else if (!(event.target instanceof Element && event.target.closest('[data-own-tooltip]'))) this.hide();
    });
    root.addEventListener('pointerleave', () => this.hide());
    root.addEventListener('focusin', (event) => {
      const target = event.target instanceof Element ? event.target.closest('[data-tip]') : null;
      if (!target) return;
      const box = target.getBoundingClientRect();
      this.show(box.right, box.top, (target.getAttribute('data-tip') ?? '').split('\n'));
    });
    root.addEventListener('focusout', () => this.hide());
  }

  /**
   * @param {number} clientX
   * @param {number} clientY
   * @param {string[]} lines the first is shown as a heading
   */
  show(clientX, clientY, lines) {
    this.node.replaceChildren(...lines.map((line, i) => el('div', { class: i === 0 ? 'tip-title' : 'tip-line', text: line })));
    this.node.hidden = false;
    const { width, height } = this.node.getBoundingClientRect();
    const x = clientX + 14 + width > window.innerWidth ? clientX - 14 - width : clientX + 14;
    const y = clientY + 16 + height > window.innerHeight ? clientY - 12 - height : clientY + 16;
    // CSSOM, not a style attribute: allowed under the page's CSP.
    this.node.style.transform = `translate(${Math.max(4, x)}px, ${Math.max(4, y)}px)`;
  }

  hide() {
    this.node.hidden = true;
  }
}
