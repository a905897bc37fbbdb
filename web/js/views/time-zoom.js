// Zoom and pan over a time axis, shared by the timeline and the memory chart: Ctrl/⌘ + wheel (or a trackpad
// pinch) zooms around the pointer, Shift + wheel or a sideways scroll pans, dragging pans, a double click shows
// the whole step. Plain wheel scrolls the page, so a chart never traps it. Redraws are batched per frame.
// The zoom is a constant factor per wheel notch, √2 (two notches are one press of the zoom buttons, 2×), and a pinch
// zooms at the same rate per unit of its wheel delta (a pinch reaches the page as Ctrl + wheel with small deltas).
// Dragging selects no text.

/**
 * @typedef {[number, number]} TimeWindow
 * @typedef {{plot: () => {x0: number, x1: number, width: number} | null, chartX: (clientX: number) => number,
 *            scale: () => number, getWindow: () => TimeWindow, extent: () => TimeWindow,
 *            setWindow: (window: TimeWindow) => void}} ZoomHooks
 * chartX: a pointer's x in chart coordinates; scale: chart units per CSS pixel (both without reading layout)
 */

/** How far one wheel notch zooms: the window's span divided (in) or multiplied (out) by √2. */
export const ZOOM_PER_NOTCH = Math.SQRT2;
/** A wheel notch in pixels of deltaY, as Chromium reports one (deltaMode 0); Firefox's is 3 lines. */
const NOTCH_PIXELS = 100;
const NOTCH_LINES = 3;

/**
 * How much a wheel event zooms: ZOOM_PER_NOTCH to the power of its notches (a fraction of one for a pinch's or a
 * trackpad's small deltas), at most 4 notches per event. Below 1 zooms in.
 * @param {{deltaY: number, deltaMode: number}} event
 * @returns {number}
 */
export function wheelZoomFactor({ deltaY, deltaMode }) {
  const notches = deltaMode === 1 ? deltaY / NOTCH_LINES : deltaMode === 2 ? deltaY : deltaY / NOTCH_PIXELS;
  return ZOOM_PER_NOTCH ** Math.max(-4, Math.min(4, notches));
}

/** The narrowest window (the zoom's limit): a microsecond, or a 20,000th of the step when that is longer. */
export const MIN_SPAN_MS = 0.001;

/**
 * Clamps a window to the extent, keeping a minimal span (the zoom's limit).
 * @param {TimeWindow} window
 * @param {TimeWindow} extent
 * @returns {TimeWindow}
 */
export function clampWindow([a, b], [lo, hi]) {
  const full = hi - lo;
  const minSpan = minimumSpan(full);
  const span = Math.min(full, Math.max(minSpan, b - a));
  const start = Math.min(Math.max(lo, a), hi - span);
  if (!Number.isFinite(start) || !Number.isFinite(span)) return [lo, hi];
  return [start, start + span];
}

/**
 * The narrowest window for a step of this length.
 * @param {number} full
 */
const minimumSpan = (full) => Math.min(full, Math.max(full / 20000, MIN_SPAN_MS));

/**
 * Zooms a window by a factor around time t (factor < 1 zooms in), the span kept within its limits: at a limit the
 * window stays where it is rather than sliding.
 * @param {TimeWindow} window
 * @param {number} t
 * @param {number} factor
 * @param {TimeWindow} extent
 * @returns {TimeWindow}
 */
export function zoomWindow([a, b], t, factor, extent) {
  const span = b - a;
  const next = Math.min(extent[1] - extent[0], Math.max(minimumSpan(extent[1] - extent[0]), span * factor));
  const f = span > 0 ? next / span : 1;
  if (f === 1) return [a, b];
  return clampWindow([t - (t - a) * f, t + (b - t) * f], extent);
}

/**
 * @param {HTMLElement} container holds the chart's svg (which may be replaced on every redraw)
 * @param {ZoomHooks} hooks
 */
export function attachTimeZoom(container, hooks) {
  /** @param {number} clientX */
  const timeAt = (clientX) => {
    const plot = hooks.plot();
    if (!plot) return null;
    const x = hooks.chartX(clientX);
    const [a, b] = hooks.getWindow();
    return { t: a + ((x - plot.x0) / (plot.x1 - plot.x0)) * (b - a), perPixel: ((b - a) / (plot.x1 - plot.x0)) * hooks.scale(), inside: x >= plot.x0 && x <= plot.x1 };
  };

  container.addEventListener('wheel', (event) => {
    const at = timeAt(event.clientX);
    if (!at) return;
    if (event.ctrlKey || event.metaKey) {
      event.preventDefault();
      hooks.setWindow(zoomWindow(hooks.getWindow(), at.t, wheelZoomFactor(event), hooks.extent()));
    } else if (event.shiftKey || Math.abs(event.deltaX) > Math.abs(event.deltaY)) {
      event.preventDefault();
      const delta = (event.shiftKey ? event.deltaY || event.deltaX : event.deltaX) * at.perPixel;
      const [a, b] = hooks.getWindow();
      hooks.setWindow(clampWindow([a + delta, b + delta], hooks.extent()));
    }
  }, { passive: false });

  /** @type {{pointer: number, clientX: number, window: TimeWindow, perPixel: number} | null} */
  let drag = null;
  container.addEventListener('pointerdown', (event) => {
    if (event.button !== 0) return;
    const at = timeAt(event.clientX);
    if (!at || !at.inside) return;
    drag = { pointer: event.pointerId, clientX: event.clientX, window: hooks.getWindow(), perPixel: at.perPixel };
    container.setPointerCapture(event.pointerId);
  });
  // A drag pans; it never selects the chart's text (or the page's around it).
  document.addEventListener('selectstart', (event) => { if (drag) event.preventDefault(); });
  container.addEventListener('pointermove', (event) => {
    if (!drag || event.pointerId !== drag.pointer) return;
    const delta = (drag.clientX - event.clientX) * drag.perPixel;
    if (Math.abs(drag.clientX - event.clientX) > 2) container.classList.add('panning');
    hooks.setWindow(clampWindow([drag.window[0] + delta, drag.window[1] + delta], hooks.extent()));
  });
  const end = (/** @type {PointerEvent} */ event) => {
    if (!drag || event.pointerId !== drag.pointer) return;
    drag = null;
    container.classList.remove('panning');
  };
  container.addEventListener('pointerup', end);
  container.addEventListener('pointercancel', end);
  container.addEventListener('dblclick', () => hooks.setWindow(hooks.extent()));
  container.addEventListener('keydown', (event) => {
    if (event.defaultPrevented) return; // taken by the chart (the timeline's selected operation)
    const [a, b] = hooks.getWindow();
    const middle = (a + b) / 2;
    const span = b - a;
    /** @type {TimeWindow | null} */
    let next = null;
    if (event.key === '+' || event.key === '=') next = zoomWindow([a, b], middle, 0.5, hooks.extent());
    else if (event.key === '-' || event.key === '_') next = zoomWindow([a, b], middle, 2, hooks.extent());
    else if (event.key === 'ArrowLeft') next = clampWindow([a - span * 0.2, b - span * 0.2], hooks.extent());
    else if (event.key === 'ArrowRight') next = clampWindow([a + span * 0.2, b + span * 0.2], hooks.extent());
    else if (event.key === '0' || event.key === 'Home') next = hooks.extent();
    if (next) {
      event.preventDefault();
      hooks.setWindow(next);
    }
  });
}
