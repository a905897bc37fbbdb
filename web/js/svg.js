// Small SVG toolkit for the charts: element creation (attributes only, text as text nodes), linear scales with
// round ticks, axes, legends. Everything a chart draws gets its colour from a Palette argument, so a chart is a
// pure function of its data and an exported SVG looks the same outside the page.

/** @import {Palette} from './theme.js' */
import { CHART_FONT } from './theme.js';

export const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * @typedef {Record<string, string | number | boolean | null | undefined>} Attributes
 */

/**
 * @param {number} value
 * @returns {string}
 */
const coordinate = (value) => String(Math.round(value * 100) / 100);

/**
 * Creates an SVG element. Numbers are rounded to 0.01; null/undefined/false attributes are left out. There is
 * deliberately no way to set `style` (the page's CSP forbids style attributes) or inner markup.
 * @param {string} tag
 * @param {Attributes} [attributes]
 * @param {(SVGElement | string | null | undefined | false)[]} [children]
 * @returns {SVGElement}
 */
export function s(tag, attributes = {}, children = []) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    node.setAttribute(name, typeof value === 'number' ? coordinate(value) : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

/**
 * A text node at (x, y); the content is always text.
 * @param {number} x
 * @param {number} y
 * @param {string} content
 * @param {Attributes} [attributes]
 * @returns {SVGElement}
 */
export function text(x, y, content, attributes = {}) {
  return s('text', { x, y, ...attributes }, [content]);
}

/** @type {CanvasRenderingContext2D | null | undefined} a canvas only to measure text with (no page layout) */
let measurer;
/** @type {Map<string, number>} */
const measured = new Map();

/** The one font size text is measured at: a width at any other size is this one's scaled (a canvas measures text
 *  unhinted, so widths grow in proportion to the size), and each size measured would cost its own font lookup. */
const MEASURE_PX = 100;

/**
 * Width of a label in px, in the charts' font: measured on a canvas (no page layout involved) at MEASURE_PX and
 * scaled, remembered per label and weight; where no canvas exists, estimated at 0.56 em per character (0.6 bold),
 * system sans-serif's average.
 * @param {string} content
 * @param {number} fontSize
 * @param {number} [weight] font weight
 * @returns {number}
 */
export function textWidth(content, fontSize, weight = 400) {
  if (measurer === undefined) measurer = globalThis.document?.createElement('canvas').getContext('2d') ?? null;
  if (!measurer) return content.length * fontSize * (weight >= 600 ? 0.6 : 0.56);
  const key = `${weight}|${content}`;
  let width = measured.get(key);
  if (width === undefined) {
    const font = `${weight} ${MEASURE_PX}px ${CHART_FONT}`;
    if (measurer.font !== font) measurer.font = font;
    width = measurer.measureText(content).width;
    if (measured.size > 20000) measured.clear();
    measured.set(key, width);
  }
  return (width * fontSize) / MEASURE_PX;
}

/**
 * Measures a label in each weight the charts write, so that the browser has looked up their font before the first
 * plan comes (each lookup costs milliseconds, tens on a busy machine; done while the engine loads, the first drawing
 * does not wait for it).
 */
export function prepareTextWidths() {
  for (const weight of [400, 600]) textWidth('0123456789 ms', MEASURE_PX, weight);
}

/**
 * @typedef {((value: number) => number) & {domain: [number, number], range: [number, number],
 *            invert: (pixel: number) => number}} Scale
 */

/**
 * @param {[number, number]} domain
 * @param {[number, number]} range
 * @returns {Scale}
 */
export function linear(domain, range) {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  const span = d1 - d0 || 1;
  const scale = /** @type {Scale} */ ((/** @type {number} */ value) => r0 + ((value - d0) / span) * (r1 - r0));
  scale.domain = domain;
  scale.range = range;
  scale.invert = (pixel) => d0 + ((pixel - r0) / (r1 - r0 || 1)) * span;
  return scale;
}

/**
 * Round tick values (1, 2, 2.5, 5 x 10^k steps) covering [min, max], about `count` of them.
 * @param {number} min
 * @param {number} max
 * @param {number} count
 * @returns {number[]}
 */
export function ticks(min, max, count) {
  if (!(max > min) || count < 1) return [min];
  const raw = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((candidate) => candidate >= raw) ?? raw;
  const first = Math.ceil(min / step - 1e-9) * step;
  /** @type {number[]} */
  const out = [];
  for (let v = first; v <= max + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  return out;
}

/**
 * The top of a value axis: the data maximum rounded up to a tick.
 * @param {number} max
 * @param {number} count
 * @returns {number}
 */
export function niceMax(max, count = 5) {
  if (!(max > 0)) return 1;
  const t = ticks(0, max, count);
  const last = t[t.length - 1];
  return last >= max ? last : last + (t[1] - t[0]);
}

/**
 * A horizontal axis along y with ticks, grid lines up to gridTop and a title.
 * @param {Scale} scale
 * @param {{y: number, gridTop?: number, title: string, palette: Palette, count?: number,
 *          format: (value: number, step: number) => string}} options format gets the value and the ticks' step
 * @returns {SVGElement}
 */
export function axisBottom(scale, { y, gridTop, title, palette, count = 6, format }) {
  const [x0, x1] = scale.range;
  const values = ticks(scale.domain[0], scale.domain[1], count);
  const step = values.length > 1 ? values[1] - values[0] : 0;
  const group = s('g', { class: 'axis axis-x', 'font-size': 11, fill: palette.muted });
  for (const value of values) {
    const x = scale(value);
    if (x < x0 - 0.5 || x > x1 + 0.5) continue;
    if (gridTop !== undefined) group.append(s('line', { x1: x, x2: x, y1: gridTop, y2: y, stroke: palette.grid }));
    group.append(s('line', { x1: x, x2: x, y1: y, y2: y + 4, stroke: palette.axis }));
    group.append(text(x, y + 16, format(value, step), { 'text-anchor': 'middle' }));
  }
  group.append(s('line', { x1: x0, x2: x1, y1: y, y2: y, stroke: palette.axis }));
  group.append(text((x0 + x1) / 2, y + 32, title, { 'text-anchor': 'middle', fill: palette.text, 'font-size': 12 }));
  return group;
}

/**
 * A vertical axis along x with ticks, grid lines to gridRight and a rotated title.
 * @param {Scale} scale
 * @param {{x: number, gridRight?: number, title: string, palette: Palette, count?: number,
 *          format: (value: number) => string, titleOffset?: number}} options
 * @returns {SVGElement}
 */
export function axisLeft(scale, { x, gridRight, title, palette, count = 5, format, titleOffset = 44 }) {
  const [y0, y1] = scale.range;
  const values = ticks(scale.domain[0], scale.domain[1], count);
  const group = s('g', { class: 'axis axis-y', 'font-size': 11, fill: palette.muted });
  for (const value of values) {
    const y = scale(value);
    if (y > Math.max(y0, y1) + 0.5 || y < Math.min(y0, y1) - 0.5) continue;
    if (gridRight !== undefined) group.append(s('line', { x1: x, x2: gridRight, y1: y, y2: y, stroke: palette.grid }));
    group.append(s('line', { x1: x - 4, x2: x, y1: y, y2: y, stroke: palette.axis }));
    group.append(text(x - 7, y + 4, format(value), { 'text-anchor': 'end' }));
  }
  group.append(s('line', { x1: x, x2: x, y1: y0, y2: y1, stroke: palette.axis }));
  const middle = (y0 + y1) / 2;
  group.append(text(x - titleOffset, middle, title, {
    'text-anchor': 'middle', fill: palette.text, 'font-size': 12, transform: `rotate(-90 ${coordinate(x - titleOffset)} ${coordinate(middle)})`,
  }));
  return group;
}

/**
 * @typedef {{label: string, color: string, kind?: 'box' | 'line' | 'dash' | 'hatch' | 'ring' | 'cross' | 'dot', opacity?: number}} LegendItem
 */

/** Height of one legend line. */
export const LEGEND_LINE = 18;

/**
 * Where each legend item goes (offsets from the legend's start), wrapping to a new line past maxWidth.
 * @param {{label: string}[]} items
 * @param {number} maxWidth
 * @returns {{places: {dx: number, dy: number}[], height: number}}
 */
function legendPlaces(items, maxWidth) {
  let dx = 0;
  let dy = 0;
  const places = items.map((item) => {
    const width = 18 + textWidth(item.label, 11) + 14;
    if (dx > 0 && dx + width > maxWidth) {
      dx = 0;
      dy += LEGEND_LINE;
    }
    const place = { dx, dy };
    dx += width;
    return place;
  });
  return { places, height: dy + LEGEND_LINE };
}

/**
 * The height a legend of these items takes at this width (charts lay out around it before drawing it).
 * @param {{label: string}[]} items
 * @param {number} maxWidth
 * @returns {number}
 */
export const legendHeight = (items, maxWidth) => legendPlaces(items, maxWidth).height;

/**
 * A legend starting at (x, y); wraps to further lines past maxWidth. Returns the group and its height.
 * @param {LegendItem[]} items
 * @param {{x: number, y: number, maxWidth: number, palette: Palette}} options
 * @returns {{node: SVGElement, height: number}}
 */
export function legend(items, { x, y, maxWidth, palette }) {
  const group = s('g', { class: 'legend', 'font-size': 11, fill: palette.text });
  const { places, height } = legendPlaces(items, maxWidth);
  items.forEach((item, i) => {
    const cx = x + places[i].dx;
    const cy = y + places[i].dy;
    const kind = item.kind ?? 'box';
    if (kind === 'line' || kind === 'dash') {
      group.append(s('line', { x1: cx, x2: cx + 14, y1: cy + 6, y2: cy + 6, stroke: item.color, 'stroke-width': 2,
        'stroke-dasharray': kind === 'dash' ? '4 3' : null }));
    } else if (kind === 'hatch') {
      group.append(s('rect', { x: cx, y: cy, width: 14, height: 12, rx: 2, fill: item.color, stroke: palette.axis, 'stroke-width': 0.5 }));
    } else if (kind === 'cross') {
      group.append(s('path', { d: `M${cx + 3.5} ${cy + 2.5}l7 7m0 -7l-7 7`, stroke: item.color, 'stroke-width': 1.75 }));
    } else if (kind === 'dot') {
      group.append(s('circle', { cx: cx + 7, cy: cy + 6, r: 4.5, fill: item.color }));
    } else if (kind === 'ring') {
      group.append(s('circle', { cx: cx + 7, cy: cy + 6, r: 4.5, fill: 'none', stroke: item.color, 'stroke-width': 1.5 }));
    } else {
      group.append(s('rect', { x: cx, y: cy, width: 14, height: 12, rx: 2, fill: item.color, 'fill-opacity': item.opacity ?? null }));
    }
    group.append(text(cx + 19, cy + 10, item.label));
  });
  return { node: group, height };
}

/**
 * Words of a title or caption put on lines no wider than maxWidth (a word longer than that has a line of its own).
 * @param {string} content
 * @param {number} maxWidth
 * @param {number} fontSize
 * @param {number} [weight] font weight
 * @returns {string[]}
 */
export function wrapLines(content, maxWidth, fontSize, weight = 400) {
  /** @type {string[]} */
  const lines = [];
  let line = '';
  // Words, and each CJK character on its own (Chinese breaks between any two characters, no spaces needed).
  const pieces = content.match(/[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]|[^\s\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]+|\s+/g) ?? [];
  for (const piece of pieces) {
    const next = line + piece;
    if (line.trim() && !/^\s+$/.test(piece) && textWidth(next.trimEnd(), fontSize, weight) > maxWidth) {
      lines.push(line.trimEnd());
      line = piece;
    } else {
      line = next;
    }
  }
  line = line.trim();
  if (line || lines.length === 0) lines.push(line);
  return lines;
}

/**
 * Text on several lines (a tspan each) from (x, y), the first line's baseline at y.
 * @param {number} x
 * @param {number} y
 * @param {string[]} lines
 * @param {number} lineHeight
 * @param {Attributes} [attributes]
 * @returns {SVGElement}
 */
export function textLines(x, y, lines, lineHeight, attributes = {}) {
  return s('text', { x, y, ...attributes }, lines.map((line, i) => s('tspan', { x, dy: i === 0 ? 0 : lineHeight }, [line])));
}

/**
 * The root element of a chart, with its size, an accessible name and a background (so exports are opaque).
 * Charts with controls inside (boundaries, clickable points) are groups, so those stay reachable; others images.
 * @param {{id: string, width: number, height: number, label: string, palette: Palette, interactive?: boolean}} options
 * @returns {SVGSVGElement}
 */
export function chartRoot({ id, width, height, label, palette, interactive = false }) {
  const root = /** @type {SVGSVGElement} */ (s('svg', {
    id, xmlns: SVG_NS, width, height, viewBox: `0 0 ${coordinate(width)} ${coordinate(height)}`,
    role: interactive ? 'group' : 'img', 'aria-label': label, 'font-family': palette.font, 'data-theme': palette.name, class: 'chart',
  }));
  root.append(s('rect', { class: 'chart-background', x: 0, y: 0, width, height, fill: palette.background }));
  return root;
}

/**
 * Hatching for bubbles (idle time) and other "nothing here" areas; fill with `url(#ID)`.
 * @param {Palette} palette
 * @param {string} id unique in the page
 * @returns {SVGElement}
 */
export function hatchPattern(palette, id) {
  return s('defs', {}, [
    s('pattern', { id, width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' }, [
      s('rect', { width: 6, height: 6, fill: palette.bubble }),
      s('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: palette.bubbleStripe, 'stroke-width': 2.5 }),
    ]),
  ]);
}

/**
 * A message in the middle of an empty chart.
 * @param {SVGSVGElement} root
 * @param {number} width
 * @param {number} height
 * @param {string} message
 * @param {Palette} palette
 */
export function emptyMessage(root, width, height, message, palette) {
  root.append(text(width / 2, height / 2, message, { 'text-anchor': 'middle', fill: palette.muted, 'font-size': 13 }));
}
