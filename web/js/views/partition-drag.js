// Dragging a stage boundary in the stage-loads strip: pointer and keyboard input turn into a new partition
// (layers per virtual stage) that respects the pins and keeps every virtual stage non-empty. The chart itself is
// redrawn by the page; this module only reads positions and reports partitions.

/** @import {ModelInfo} from '../model.js' */
import { stripBounds } from './stage-loads.js';

/**
 * Moves boundary `index` (between virtual stages index and index + 1) to layer position `position`, clamped so
 * every virtual stage keeps a layer and the pinned layers stay on the first / last virtual stage.
 * @param {number[]} stageLayers
 * @param {number} index
 * @param {number} position the new number of layers before the boundary
 * @param {ModelInfo} info
 * @returns {number[]}
 */
export function moveBoundary(stageLayers, index, position, info) {
  /** @type {number[]} */
  const ends = [];
  let sum = 0;
  for (const n of stageLayers) ends.push((sum += n));
  const total = sum;
  const V = stageLayers.length;
  const low = index === 0 ? Math.max(1, info.pinnedFirst) : ends[index - 1] + 1;
  const high = index === V - 2 ? total - Math.max(1, info.pinnedLast) : ends[index + 1] - 1;
  if (low > high) return stageLayers.slice();
  ends[index] = Math.min(high, Math.max(low, Math.round(position)));
  return ends.map((end, v) => end - (v === 0 ? 0 : ends[v - 1]));
}

/**
 * @typedef {{getLayers: () => number[] | null, getInfo: () => ModelInfo,
 *            onChange: (stageLayers: number[], boundary: number, done: boolean) => void}} DragHooks
 */

/**
 * Wires drag and arrow-key handling on the container that holds svg#stage-loads. The svg may be replaced at
 * any time; handlers look it up on each event.
 * @param {HTMLElement} container
 * @param {DragHooks} hooks
 */
export function attachPartitionDrag(container, hooks) {
  /** @type {{index: number, pointer: number} | null} */
  let drag = null;

  /** @param {number} clientX */
  const layerAt = (clientX) => {
    const svg = container.querySelector('svg#stage-loads');
    const layers = hooks.getLayers();
    if (!svg || !layers) return 0;
    const rect = svg.getBoundingClientRect();
    const width = Number(svg.getAttribute('width')) || rect.width;
    const { x0, x1 } = stripBounds(width);
    const total = layers.reduce((a, b) => a + b, 0);
    const x = ((clientX - rect.left) / rect.width) * width;
    return ((x - x0) / (x1 - x0)) * total;
  };

  container.addEventListener('pointerdown', (event) => {
    const handle = /** @type {Element | null} */ (event.target instanceof Element ? event.target.closest('.boundary') : null);
    if (!handle || event.button !== 0) return;
    event.preventDefault();
    if (handle instanceof SVGElement) handle.focus();
    drag = { index: Number(handle.getAttribute('data-boundary')), pointer: event.pointerId };
    container.setPointerCapture(event.pointerId);
    container.classList.add('dragging');
  });
  container.addEventListener('pointermove', (event) => {
    if (!drag || event.pointerId !== drag.pointer) return;
    const layers = hooks.getLayers();
    if (!layers) return;
    const next = moveBoundary(layers, drag.index, layerAt(event.clientX), hooks.getInfo());
    if (next.some((n, v) => n !== layers[v])) hooks.onChange(next, drag.index, false);
  });
  const finish = (/** @type {PointerEvent} */ event) => {
    if (!drag || event.pointerId !== drag.pointer) return;
    const index = drag.index;
    drag = null;
    container.classList.remove('dragging');
    if (container.hasPointerCapture(event.pointerId)) container.releasePointerCapture(event.pointerId);
    const layers = hooks.getLayers();
    if (layers) hooks.onChange(layers, index, true);
  };
  container.addEventListener('pointerup', finish);
  container.addEventListener('pointercancel', finish);
  // The boundaries are one widget with one tab stop: the one focused last keeps tabindex 0.
  container.addEventListener('focusin', (event) => {
    const handle = event.target instanceof Element ? event.target.closest('.boundary') : null;
    if (handle) makeTabStop(container, handle);
  });
  container.addEventListener('keydown', (event) => {
    const handle = event.target instanceof Element ? event.target.closest('.boundary') : null;
    if (!handle) return;
    const layers = hooks.getLayers();
    if (!layers) return;
    const index = Number(handle.getAttribute('data-boundary'));
    if (event.key === 'ArrowUp' || event.key === 'ArrowDown') {
      // To the previous or next boundary.
      event.preventDefault();
      const other = container.querySelector(`.boundary[data-boundary="${index + (event.key === 'ArrowUp' ? -1 : 1)}"]`);
      if (other instanceof SVGElement) other.focus();
      return;
    }
    const end = layers.slice(0, index + 1).reduce((a, b) => a + b, 0);
    const moves = /** @type {Record<string, number>} */ ({ ArrowLeft: -1, ArrowRight: 1, PageDown: -10, PageUp: 10, Home: -Infinity, End: Infinity });
    if (!(event.key in moves)) return;
    event.preventDefault();
    const step = moves[event.key] * (event.shiftKey && Math.abs(moves[event.key]) === 1 ? 10 : 1);
    const target = Number.isFinite(step) ? end + step : step < 0 ? 0 : layers.reduce((a, b) => a + b, 0);
    const next = moveBoundary(layers, index, target, hooks.getInfo());
    if (next.some((n, v) => n !== layers[v])) hooks.onChange(next, index, true);
  });
}

/**
 * Makes one boundary the strip's tab stop.
 * @param {HTMLElement} container
 * @param {Element} handle
 */
function makeTabStop(container, handle) {
  for (const other of container.querySelectorAll('.boundary[tabindex="0"]')) if (other !== handle) other.setAttribute('tabindex', '-1');
  handle.setAttribute('tabindex', '0');
}
