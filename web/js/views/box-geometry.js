// Where a chart's box is and how big, without reading layout on every pointer or wheel event: the size comes from a
// ResizeObserver, the position is read once and kept until something can have moved it (a scroll, a resize of the
// window, the box or the page, the pointer entering the box). Reading layout right after a redraw forces the
// browser to lay the page out again, which at 16k operations cost more than the redraw itself.

export class BoxGeometry {
  /** @param {HTMLElement} box */
  constructor(box) {
    this.box = box;
    /** @type {{width: number, height: number} | null} null until observed */
    this.observed = null;
    /** @type {{left: number, top: number} | null} */
    this.origin = null;
    const forget = () => { this.origin = null; };
    new ResizeObserver(([entry]) => {
      this.observed = { width: entry.contentRect.width, height: entry.contentRect.height };
      forget();
    }).observe(box);
    new ResizeObserver(forget).observe(document.body);
    addEventListener('scroll', forget, { passive: true, capture: true });
    addEventListener('resize', forget);
    box.addEventListener('pointerenter', forget);
  }

  /** The box's content size (read from layout only before the first observation). */
  size() {
    return this.observed ?? { width: this.box.clientWidth, height: this.box.clientHeight };
  }

  /** The box's top left corner in client coordinates. */
  topLeft() {
    if (!this.origin) {
      const rect = this.box.getBoundingClientRect();
      this.origin = { left: rect.left, top: rect.top };
    }
    return this.origin;
  }

  /**
   * A pointer's position in the coordinates of a chart drawn `chartWidth` wide in this box (CSS shrinks a chart
   * wider than its box, keeping its proportions).
   * @param {{clientX: number, clientY: number}} event
   * @param {number} chartWidth
   * @returns {{x: number, y: number}}
   */
  chartPoint(event, chartWidth) {
    const { left, top } = this.topLeft();
    const shown = Math.min(chartWidth, this.size().width || chartWidth);
    const scale = chartWidth / (shown || 1);
    return { x: (event.clientX - left) * scale, y: (event.clientY - top) * scale };
  }
}
