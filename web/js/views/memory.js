// Memory over time per stage: the simulator's step function of activation memory (memory_timeline) on top of
// the stage's static and reserved memory, one line per physical stage, with the memory limit. Steps narrower than
// a pixel are reduced to their lowest and highest level, so a line costs at most a few points per pixel.

/** @import {EstimateResult} from '../types.js' */
/** @import {Palette} from '../theme.js' */
import { s, text, textWidth, linear, niceMax, ticks, axisBottom, axisLeft, legend, legendHeight, chartRoot, LEGEND_LINE } from '../svg.js';
import { mib, num, tickLabel } from '../format.js';
import { t } from '../i18n.js';
import { kept } from './swap-chart.js';

const MARGIN_LEFT = 70;
const MARGIN_RIGHT = 18;
const TOP = 26;
const PLOT_HEIGHT = 220;

/**
 * The plot area; with `height` (embedded charts) the plot fills it above the axis and legend.
 * @param {number} width
 * @param {number} [height]
 * @param {number} [legendSpace] the legend's height (memoryLegendHeight)
 * @returns {{x0: number, x1: number, top: number, bottom: number}}
 */
export function memoryLayout(width, height, legendSpace = LEGEND_LINE) {
  const plot = height ? Math.max(80, height - TOP - 40 - legendSpace - 8) : PLOT_HEIGHT;
  return { x0: MARGIN_LEFT, x1: width - MARGIN_RIGHT, top: TOP, bottom: TOP + plot };
}

/** Stages the legend names one by one; more are summed up in one entry. */
const LEGEND_STAGES = 16;

/**
 * The legend: the stages shown (up to LEGEND_STAGES, then a count), the peak and the limit.
 * @param {EstimateResult} result
 * @param {Palette} palette
 * @param {Set<number> | null} shown null: every stage
 * @returns {import('../svg.js').LegendItem[]}
 */
function legendItems(result, palette, shown) {
  const stages = result.stages.map((_, i) => i).filter((i) => !shown || shown.has(i));
  /** @type {import('../svg.js').LegendItem[]} */
  const items = stages.slice(0, stages.length > LEGEND_STAGES ? LEGEND_STAGES - 1 : LEGEND_STAGES).map((i) => {
    const { color, dash } = stageStroke(i, palette);
    return { label: t('stage {i}', { i }), color, kind: dash ? /** @type {const} */ ('dash') : /** @type {const} */ ('line') };
  });
  if (stages.length > LEGEND_STAGES) items.push({ label: t('and {n} more stages', { n: stages.length - LEGEND_STAGES + 1 }), color: palette.muted, kind: 'line' });
  if (shown && shown.size < result.stages.length) items.push({ label: t('other stages ({n})', { n: result.stages.length - shown.size }), color: palette.axis, kind: 'line' });
  const peak = peakOf(result);
  if (peak) items.push({ label: t('peak: stage {s}', { s: peak.stage }), color: palette.over, kind: 'ring' });
  items.push({ label: t('limit'), color: palette.limit, kind: 'dash' });
  return items;
}

/**
 * The height of the legend at a width.
 * @param {number} width
 * @param {EstimateResult} result
 * @param {Palette} palette
 * @param {Set<number> | null} shown
 */
export const memoryLegendHeight = (width, result, palette, shown) => legendHeight(legendItems(result, palette, shown), width - MARGIN_LEFT - MARGIN_RIGHT);

/**
 * The stage with the highest peak, the peak, and when it is first reached (the level after each instant, as drawn).
 * @param {EstimateResult} result
 * @returns {{stage: number, mib: number, at: number} | null}
 */
export function peakOf(result) {
  if (result.stages.length === 0) return null;
  let stage = 0;
  result.stages.forEach((st, i) => {
    if (st.memory.peak_mib > result.stages[stage].memory.peak_mib) stage = i;
  });
  const points = collapseInstants(result.memory_timeline?.[stage] ?? []);
  let at = 0;
  let high = -Infinity;
  for (const [t, level] of points) {
    if (level > high) {
      high = level;
      at = t;
    }
  }
  return { stage, mib: result.stages[stage].memory.peak_mib, at };
}

/**
 * The level of a step function at time t (the last point at or before t; ties take the later point).
 * @param {number[][]} points [time_ms, value] in time order
 * @param {number} t
 * @returns {number}
 */
export function levelAt(points, t) {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid][0] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? points[lo - 1][1] : 0;
}

/**
 * The step function with every instant reduced to the level after it: what is freed and taken at the same time
 * never shows as a dip (the chrome-trace export reads the timeline the same way).
 * @param {number[][]} points [time_ms, value] in time order
 * @returns {number[][]}
 */
export function collapseInstants(points) {
  const known = collapsed.get(points);
  if (known) return known;
  /** @type {number[][]} */
  const out = [];
  for (const point of points) {
    if (out.length > 0 && out[out.length - 1][0] === point[0]) out[out.length - 1] = point;
    else out.push(point);
  }
  collapsed.set(points, out);
  return out;
}

/** collapseInstants remembered per timeline: a chart follows every zoom and pan step of the same result. */
const collapsed = /** @type {WeakMap<number[][], number[][]>} */ (new WeakMap());

/**
 * Colour and dash of a stage's line: colours repeat after the palette's series, with another dash pattern.
 * @param {number} stage
 * @param {Palette} palette
 */
export function stageStroke(stage, palette) {
  const n = palette.series.length;
  const dashes = [null, '6 3', '2 2', '8 3 2 3'];
  return { color: palette.series[stage % n], dash: dashes[Math.floor(stage / n) % dashes.length] };
}

/**
 * A step function's times and levels as flat arrays, remembered per (collapsed) timeline: the path below reads
 * them for every stage on every zoom and pan step.
 * @param {number[][]} points
 * @returns {{times: Float64Array, levels: Float64Array}}
 */
function flatSteps(points) {
  const known = flattened.get(points);
  if (known) return known;
  const times = new Float64Array(points.length);
  const levels = new Float64Array(points.length);
  points.forEach(([time, level], i) => {
    times[i] = time;
    levels[i] = level;
  });
  const flat = { times, levels };
  flattened.set(points, flat);
  return flat;
}

const flattened = /** @type {WeakMap<number[][], {times: Float64Array, levels: Float64Array}>} */ (new WeakMap());

/**
 * The path of one stage's step function within [t0, t1], in whole pixels: the lines are drawn with crisp edges,
 * which puts them on the pixel grid anyway. Every change within one pixel column becomes the column's vertical
 * range (so no high or low is lost however far out the view is), a level that rounds to the pixel already drawn
 * adds nothing, and the scales are applied inline: this runs for every step of every stage on each zoom and pan
 * frame, and a shorter path is also quicker for the browser to parse and paint.
 * @param {number[][]} points
 * @param {number} base static + reserved memory added to every level
 * @param {(t: number) => number} x a linear scale
 * @param {(v: number) => number} y a linear scale
 * @param {number} t0
 * @param {number} t1
 * @param {number} end the step time: the line stops there
 * @returns {string}
 */
function stepPath(points, base, x, y, t0, t1, end) {
  const { times, levels } = flatSteps(points);
  const n = times.length;
  const bx = x(0);
  const ax = x(1) - bx;
  const by = y(base);
  const ay = y(base + 1) - by;
  const stop = Math.min(t1, end);
  let i = 0;
  while (i < n && times[i] <= t0) ++i;
  // The pen, in whole pixels; every command after the first is relative to it (short numbers, half the text).
  let penX = Math.round(ax * t0 + bx);
  let penY = Math.round(ay * (i > 0 ? levels[i - 1] : 0) + by);
  let d = `M${penX} ${penY}`;
  let vertical = '';
  const to = (/** @type {number} */ level) => {
    const py = Math.round(ay * level + by);
    if (py !== penY) vertical += `v${py - penY}`;
    penY = py;
  };
  while (i < n && times[i] <= stop) {
    const column = Math.round(ax * times[i] + bx);
    let low = levels[i];
    let high = low;
    let last = low;
    let j = i + 1;
    for (; j < n && times[j] <= stop && Math.round(ax * times[j] + bx) === column; ++j) {
      last = levels[j];
      if (last < low) low = last;
      if (last > high) high = last;
    }
    vertical = '';
    if (j > i + 1) {
      to(high);
      to(low);
    }
    to(last);
    if (vertical) {
      d += `h${column - penX}${vertical}`;
      penX = column;
    }
    i = j;
  }
  return `${d}h${Math.round(ax * stop + bx) - penX}`;
}

/**
 * @typedef {{width: number, height?: number, palette: Palette, window: [number, number], until?: number,
 *            shown?: Set<number> | null, highlight?: number | null}} MemoryOptions
 * until: where the memory steps end when the engine cut the timeline (its steps stop at the last operation returned);
 * shown: the stages drawn in their colours (null: all); the others are drawn thin and grey behind them, as context;
 * highlight: a stage drawn bold over the others, which fade
 */

/**
 * @param {EstimateResult} result
 * @param {MemoryOptions} options
 * @returns {SVGSVGElement}
 */
export function renderMemory(result, { width, height: fit, palette, window, until, shown = null, highlight = null }) {
  const stages = result.stages;
  const pp = stages.length;
  const items = legendItems(result, palette, shown);
  const legendSpace = legendHeight(items, width - MARGIN_LEFT - MARGIN_RIGHT);
  const layout = memoryLayout(width, fit, legendSpace);
  const { x0, x1, top, bottom } = layout;
  const height = bottom + 40 + legendSpace + 8;
  const peak = peakOf(result);
  const count = shown ? shown.size : pp;
  const root = chartRoot({ id: 'memory', width, height, palette,
    label: t('Memory over time per stage, {what}, against the memory limit', { what: count === pp ? t('{n} stages', { n: pp }) : t('{n} of {pp} stages', { n: count, pp }) }) +
      (peak ? t('; the peak is on stage {s}, {memory}', { s: peak.stage, memory: mib(peak.mib) }) : '') });
  const timelines = result.memory_timeline ?? [];
  if (timelines.length === 0) {
    root.append(text(width / 2, height / 2, t('no memory timeline in this result'), { 'text-anchor': 'middle', fill: palette.muted }));
    return root;
  }
  const [t0, t1] = window;
  const limit = stages[0]?.memory.limit_mib;
  const highest = Math.max(...stages.map((st) => st.memory.peak_mib), limit ?? 0);
  const top_ = niceMax(highest * 1.04);
  // Static memory is flat: when every stage holds much of it, the axis starts at a round value below the lowest
  // level, so the changes over time have room; the tick labels say where it starts.
  const lowest = Math.min(...stages.map((st) => st.memory.static_mib + st.memory.reserved_mib));
  const step = ticks(0, top_, 5)[1] ?? top_;
  const floor = lowest > top_ * 0.35 ? Math.floor((lowest * 0.9) / step) * step : 0;
  const x = linear([t0, t1], [x0, x1]);
  const y = linear([floor, top_], [bottom, top]);
  root.append(s('defs', {}, [s('clipPath', { id: 'memory-clip' }, [s('rect', { x: x0, y: top - 4, width: x1 - x0, height: bottom - top + 8 })])]));
  // The memory axis does not follow the time window: built once per scale, size, palette and language.
  root.append(kept(JSON.stringify(['memory-axis', floor, top_, bottom, top, x0, x1, palette, t('memory (MiB)'), num(1234.5)]),
    () => axisLeft(y, { x: x0, gridRight: x1, title: t('memory (MiB)'), palette, format: num, titleOffset: 52 })));
  root.append(axisBottom(x, { y: bottom, title: t('time (ms)'), palette, format: tickLabel, count: Math.max(3, Math.round((x1 - x0) / 110)) }));

  // Step lines are horizontal and vertical only: crisp edges cost less to draw and look the same.
  const lines = s('g', { class: 'memory-lines', 'clip-path': 'url(#memory-clip)', fill: 'none', 'shape-rendering': 'crispEdges' });
  // Stages not picked: one thin grey path behind the others (no dashes: cheap to draw however many).
  const context = stages.map((_, i) => i).filter((i) => shown && !shown.has(i));
  if (context.length > 0) {
    const end = Math.min(result.step_time_ms, until ?? Infinity);
    lines.append(s('path', { d: context.map((i) => stepPath(collapseInstants(timelines[i] ?? []), stages[i].memory.static_mib + stages[i].memory.reserved_mib,
      x, y, t0, t1, end)).join(''), stroke: palette.axis, 'stroke-width': 1, 'stroke-opacity': 0.45, class: 'memory-context' }));
  }
  const order = stages.map((_, i) => i).filter((i) => !shown || shown.has(i));
  // The highlighted stage last, so it lies on top.
  if (highlight !== null && order.includes(highlight)) order.push(...order.splice(order.indexOf(highlight), 1));
  for (const i of order) {
    const stage = stages[i];
    const points = collapseInstants(timelines[i] ?? []);
    const base = stage.memory.static_mib + stage.memory.reserved_mib;
    const { color, dash } = stageStroke(i, palette);
    lines.append(s('path', { d: stepPath(points, base, x, y, t0, t1, Math.min(result.step_time_ms, until ?? Infinity)), stroke: color,
      'stroke-width': highlight === i ? 3 : 1.75, 'stroke-opacity': highlight !== null && highlight !== i ? 0.3 : null,
      'stroke-dasharray': dash, 'stroke-linejoin': 'round', class: highlight === i ? 'memory-line highlighted' : 'memory-line', 'data-stage': i }));
  }
  root.append(lines);

  // The peak: a ring where the highest stage first reaches it, named.
  if (peak && peak.at >= t0 && peak.at <= t1) {
    const px = x(peak.at);
    const py = y(peak.mib);
    const label = t('peak: stage {s}, {memory}', { s: peak.stage, memory: mib(peak.mib) });
    const width = textWidth(label, 10.5, 600);
    const right = px + 10 + width < x1;
    const left = right ? px + 9 : px - 9 - width;
    // Above the ring, unless the limit's label is there: then below it.
    const limitLabel = limit !== undefined && limit > 0
      ? { x: x1 - textWidth(t('limit {limit}', { limit: mib(limit) }), 10.5, 600) - 8, y: y(limit) - 15 } : null;
    const above = !limitLabel || left + width < limitLabel.x || py - 7 < limitLabel.y - 2 || py - 18 > limitLabel.y + 13;
    root.append(s('g', { class: 'memory-peak', 'data-stage': peak.stage }, [
      s('circle', { cx: px, cy: py, r: 5, fill: 'none', stroke: palette.over, 'stroke-width': 2 }),
      text(right ? px + 9 : px - 9, above ? py - 7 : py + 17, label, { 'text-anchor': right ? 'start' : 'end', 'font-size': 10.5, 'font-weight': 600, fill: palette.over }),
    ]));
  }

  if (limit !== undefined && limit > 0) {
    const ly = y(limit);
    root.append(s('line', { x1: x0, x2: x1, y1: ly, y2: ly, stroke: palette.limit, 'stroke-width': 1.5, 'stroke-dasharray': '6 4', class: 'limit-line' }));
    const label = t('limit {limit}', { limit: mib(limit) });
    root.append(s('rect', { x: x1 - textWidth(label, 10.5) - 8, y: ly - 15, width: textWidth(label, 10.5) + 8, height: 13, fill: palette.background, opacity: 0.85 }));
    root.append(text(x1 - 4, ly - 5, label, { 'text-anchor': 'end', 'font-size': 10.5, fill: palette.limit, 'font-weight': 600 }));
  }
  root.append(s('line', { class: 'cursor', x1: x0, x2: x0, y1: top, y2: bottom, stroke: palette.muted, 'stroke-width': 1, visibility: 'hidden' }));

  root.append(kept(JSON.stringify(['memory-legend', items, x0, bottom, x1, palette]), () => legend(items, { x: x0, y: bottom + 42, maxWidth: x1 - x0, palette }).node));
  return root;
}
