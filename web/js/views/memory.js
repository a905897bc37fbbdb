// Memory over time per stage: the simulator's step function of activation memory (memory_timeline) on top of
// the stage's static and reserved memory, one line per physical stage, with the memory limit. Steps narrower than
// a pixel are reduced to their lowest and highest level, so a line costs at most a few points per pixel.

/** @import {EstimateResult} from '../types.js' */
/** @import {Palette} from '../theme.js' */
import { s, text, textWidth, linear, niceMax, ticks, axisBottom, axisLeft, legend, chartRoot } from '../svg.js';
import { mib, num } from '../format.js';

const MARGIN_LEFT = 70;
const MARGIN_RIGHT = 18;
const TOP = 26;
const PLOT_HEIGHT = 220;

/**
 * The plot area; with `height` (embedded charts) the plot fills it above the axis and legend.
 * @param {number} width
 * @param {number} [height]
 * @param {number} [legendRows]
 * @returns {{x0: number, x1: number, top: number, bottom: number}}
 */
export function memoryLayout(width, height, legendRows = 1) {
  const plot = height ? Math.max(80, height - TOP - 58 - legendRows * 18) : PLOT_HEIGHT;
  return { x0: MARGIN_LEFT, x1: width - MARGIN_RIGHT, top: TOP, bottom: TOP + plot };
}

/**
 * Legend rows for a number of stages at a width.
 * @param {number} width
 * @param {number} stages
 */
export function memoryLegendRows(width, stages) {
  return Math.min(6, Math.ceil((stages + 1) / Math.max(1, Math.floor((width - MARGIN_LEFT - MARGIN_RIGHT) / 80))));
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
  /** @type {number[][]} */
  const out = [];
  for (const point of points) {
    if (out.length > 0 && out[out.length - 1][0] === point[0]) out[out.length - 1] = point;
    else out.push(point);
  }
  return out;
}

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
 * The path of one stage's step function within [t0, t1].
 * @param {number[][]} points
 * @param {number} base static + reserved memory added to every level
 * @param {(t: number) => number} x
 * @param {(v: number) => number} y
 * @param {number} t0
 * @param {number} t1
 * @param {number} end the step time: the line stops there
 * @returns {string}
 */
function stepPath(points, base, x, y, t0, t1, end) {
  const parts = [];
  const level = levelAt(points, t0);
  parts.push(`M${x(t0).toFixed(1)} ${y(base + level).toFixed(1)}`);
  let i = 0;
  while (i < points.length && points[i][0] <= t0) ++i;
  const stop = Math.min(t1, end);
  while (i < points.length && points[i][0] <= stop) {
    const nx = x(points[i][0]);
    // Every change within this pixel: draw the vertical range, then carry on from the last level.
    let low = points[i][1];
    let high = points[i][1];
    let last = points[i][1];
    let j = i + 1;
    while (j < points.length && points[j][0] <= stop && x(points[j][0]) - nx < 0.5) {
      low = Math.min(low, points[j][1]);
      high = Math.max(high, points[j][1]);
      last = points[j][1];
      ++j;
    }
    parts.push(`H${nx.toFixed(1)}`);
    if (j > i + 1) parts.push(`V${y(base + high).toFixed(1)}V${y(base + low).toFixed(1)}`);
    parts.push(`V${y(base + last).toFixed(1)}`);
    i = j;
  }
  parts.push(`H${x(stop).toFixed(1)}`);
  return parts.join('');
}

/**
 * @typedef {{width: number, height?: number, palette: Palette, window: [number, number], until?: number}} MemoryOptions
 * until: where the memory steps end when the engine cut the timeline (its steps stop at the last operation returned)
 */

/**
 * @param {EstimateResult} result
 * @param {MemoryOptions} options
 * @returns {SVGSVGElement}
 */
export function renderMemory(result, { width, height: fit, palette, window, until }) {
  const stages = result.stages;
  const pp = stages.length;
  const legendRows = memoryLegendRows(width, pp);
  const layout = memoryLayout(width, fit, legendRows);
  const { x0, x1, top, bottom } = layout;
  const height = bottom + 50 + legendRows * 18 + 8;
  const root = chartRoot({ id: 'memory', width, height, palette,
    label: `Memory over time per stage, ${pp} stages, against the memory limit` });
  const timelines = result.memory_timeline ?? [];
  if (timelines.length === 0) {
    root.append(text(width / 2, height / 2, 'no memory timeline in this result', { 'text-anchor': 'middle', fill: palette.muted }));
    return root;
  }
  const [t0, t1] = window;
  const limit = stages[0]?.memory.limit_mib;
  const peak = Math.max(...stages.map((st) => st.memory.peak_mib), limit ?? 0);
  const top_ = niceMax(peak * 1.04);
  // Static memory is flat: when every stage holds much of it, the axis starts at a round value below the lowest
  // level, so the changes over time have room; the tick labels say where it starts.
  const lowest = Math.min(...stages.map((st) => st.memory.static_mib + st.memory.reserved_mib));
  const step = ticks(0, top_, 5)[1] ?? top_;
  const floor = lowest > top_ * 0.35 ? Math.floor((lowest * 0.9) / step) * step : 0;
  const x = linear([t0, t1], [x0, x1]);
  const y = linear([floor, top_], [bottom, top]);
  root.append(s('defs', {}, [s('clipPath', { id: 'memory-clip' }, [s('rect', { x: x0, y: top - 4, width: x1 - x0, height: bottom - top + 8 })])]));
  root.append(axisLeft(y, { x: x0, gridRight: x1, title: 'memory (MiB)', palette, format: num, titleOffset: 52 }));
  root.append(axisBottom(x, { y: bottom, title: 'time (ms)', palette, format: num, count: Math.max(3, Math.round((x1 - x0) / 110)) }));

  const lines = s('g', { class: 'memory-lines', 'clip-path': 'url(#memory-clip)', fill: 'none' });
  stages.forEach((stage, i) => {
    const points = collapseInstants(timelines[i] ?? []);
    const base = stage.memory.static_mib + stage.memory.reserved_mib;
    const { color, dash } = stageStroke(i, palette);
    lines.append(s('path', { d: stepPath(points, base, x, y, t0, t1, Math.min(result.step_time_ms, until ?? Infinity)), stroke: color, 'stroke-width': 1.75,
      'stroke-dasharray': dash, 'stroke-linejoin': 'round', class: 'memory-line', 'data-stage': i }));
  });
  root.append(lines);

  if (limit !== undefined && limit > 0) {
    const ly = y(limit);
    root.append(s('line', { x1: x0, x2: x1, y1: ly, y2: ly, stroke: palette.limit, 'stroke-width': 1.5, 'stroke-dasharray': '6 4', class: 'limit-line' }));
    const label = `limit ${mib(limit)}`;
    root.append(s('rect', { x: x1 - textWidth(label, 10.5) - 8, y: ly - 15, width: textWidth(label, 10.5) + 8, height: 13, fill: palette.background, opacity: 0.85 }));
    root.append(text(x1 - 4, ly - 5, label, { 'text-anchor': 'end', 'font-size': 10.5, fill: palette.limit, 'font-weight': 600 }));
  }
  root.append(s('line', { class: 'cursor', x1: x0, x2: x0, y1: top, y2: bottom, stroke: palette.muted, 'stroke-width': 1, visibility: 'hidden' }));

  /** @type {import('../svg.js').LegendItem[]} */
  const items = stages.slice(0, 6 * 8).map((_, i) => {
    const { color, dash } = stageStroke(i, palette);
    return { label: `stage ${i}`, color, kind: dash ? /** @type {const} */ ('dash') : /** @type {const} */ ('line') };
  });
  items.push({ label: 'limit', color: palette.limit, kind: 'dash' });
  root.append(legend(items, { x: x0, y: bottom + 42, maxWidth: x1 - x0, palette }).node);
  return root;
}
