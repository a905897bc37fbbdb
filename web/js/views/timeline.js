// Pipeline timeline: a Gantt chart with one row per physical stage and one box per F, B, W or F&B operation (an
// F&B, DualPipeV's overlapped forward and backward of two micro batches, split: forward colour above, backward
// below), idle time (bubbles) hatched, the step time marked. Only the operations inside the visible time window are drawn,
// found by binary search per row; when more than MAX_BOXES would be visible, each stage draws per pixel column
// the share of time spent in F, B and W (one path per operation kind) instead of one element per box, so zoom
// and pan stay fast for any number of operations.

/** @import {TimelineOp} from '../types.js' */
/** @import {Palette} from '../theme.js' */
import { s, text, textWidth, linear, axisBottom, legend, legendHeight, chartRoot, hatchPattern, LEGEND_LINE } from '../svg.js';
import { ms, num, tickLabel } from '../format.js';
import { t } from '../i18n.js';
import { textOn } from '../theme.js';
import { kept } from './swap-chart.js';

export const MAX_BOXES = 2500;
/** The operation kinds, in the order of the per-kind paths (an F&B counts half to F, half to B). */
const OP_KINDS = /** @type {const} */ (['F', 'B', 'W']);
/** The split fill of F&B boxes: forward above, backward below. */
const SPLIT_ID = 'timeline-fb';
const MARGIN_LEFT = 70;
const MARGIN_RIGHT = 18;
const TOP = 30;

/**
 * @typedef {{rows: TimelineOp[][], stepTime: number, count: number, hasW: boolean, hasFB: boolean, lastStart: number}} TimelineIndex
 *   hasW: some operation is a W (the schedule runs B and W apart); hasFB: some is an F&B
 * @typedef {{x0: number, x1: number, top: number, rowHeight: number, rowGap: number, plotBottom: number,
 *            height: number}} TimelineLayout
 */

/**
 * Groups the operations by stage, each row sorted by start time (a stage runs one operation at a time).
 * @param {TimelineOp[]} ops
 * @param {number} pp
 * @param {number} stepTime
 * @returns {TimelineIndex}
 */
export function indexTimeline(ops, pp, stepTime) {
  /** @type {TimelineOp[][]} */
  const rows = Array.from({ length: pp }, () => []);
  for (const op of ops) rows[op.stage]?.push(op);
  for (const row of rows) row.sort((a, b) => a.start_ms - b.start_ms);
  let lastStart = 0;
  for (const op of ops) lastStart = Math.max(lastStart, op.start_ms);
  return { rows, stepTime, count: ops.length, hasW: ops.some((op) => op.op === 'W'), hasFB: ops.some((op) => op.op === 'F&B'), lastStart };
}

/**
 * The legend's entries: what each colour or mark means, by palette key.
 * @param {{hasW: boolean, hasFB: boolean}} kinds
 * @param {number} vpp
 * @returns {{label: string, key: 'forward' | 'backward' | 'weight' | 'highlight', kind?: 'hatch' | 'dash' | 'split', opacity?: number}[]}
 */
function legendEntries({ hasW, hasFB }, vpp) {
  return [
    { label: t('F forward'), key: 'forward' },
    { label: t(hasW ? 'B backward (input gradient where its W runs apart)' : 'B backward'), key: 'backward' },
    ...(hasW ? [{ label: t('W weight gradient (striped)'), key: /** @type {const} */ ('weight') }] : []),
    ...(hasFB ? [{ label: t('F&B forward and backward of two micro batches, overlapped'), key: /** @type {const} */ ('forward'), kind: /** @type {const} */ ('split') }] : []),
    { label: t('idle (bubble)'), key: 'forward', kind: 'hatch' },
    { label: t('step time'), key: 'highlight', kind: 'dash' },
    ...(vpp > 1 ? [{ label: t('faded: later model chunk'), key: /** @type {const} */ ('forward'), opacity: 0.7 }] : []),
  ];
}

/**
 * The height of the timeline's legend at a width (it wraps on narrow screens).
 * @param {number} width
 * @param {{hasW: boolean, hasFB: boolean}} kinds
 * @param {number} vpp
 */
export const timelineLegendHeight = (width, kinds, vpp) => legendHeight(legendEntries(kinds, vpp), width - MARGIN_LEFT - MARGIN_RIGHT);

/**
 * Rows get a height by the number of stages, or fill `height` when given (embedded charts fit their frame).
 * @param {number} width
 * @param {number} pp
 * @param {number} [height]
 * @param {number} [legendSpace] the legend's height (timelineLegendHeight)
 * @returns {TimelineLayout}
 */
export function timelineLayout(width, pp, height, legendSpace = LEGEND_LINE) {
  const rowGap = pp <= 32 ? 4 : 1;
  const below = 46 + legendSpace;
  const rowHeight = height
    ? Math.max(3, Math.min(44, (height - TOP - below) / pp - rowGap))
    : pp <= 8 ? 28 : pp <= 16 ? 20 : pp <= 32 ? 12 : pp <= 64 ? 7 : 4;
  const plotBottom = TOP + pp * (rowHeight + rowGap);
  return { x0: MARGIN_LEFT, x1: width - MARGIN_RIGHT, top: TOP, rowHeight, rowGap, plotBottom, height: plotBottom + below };
}

/**
 * The first index in a row whose operation ends after t.
 * @param {TimelineOp[]} row
 * @param {number} t
 * @returns {number}
 */
function firstEndingAfter(row, t) {
  let lo = 0;
  let hi = row.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (row[mid].end_ms <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A whole number of tenths as text ("123.4"), by integer arithmetic: turning fractional numbers into text is the
 * slowest part of building paths of thousands of rectangles, and whole numbers convert quickly.
 * @param {number} n an integer
 * @returns {string}
 */
export function decimal(n) {
  const m = n < 0 ? -n : n;
  const digit = m % 10;
  const text = digit === 0 ? String(m / 10) : `${(m - digit) / 10}.${digit}`;
  return n < 0 ? `-${text}` : text;
}

/**
 * A number rounded to tenths, as text.
 * @param {number} value
 */
export const tenths = (value) => decimal(Math.round(value * 10));

/**
 * The operation of a stage running at time t, if any.
 * @param {TimelineIndex} index
 * @param {number} stage
 * @param {number} t
 * @returns {TimelineOp | null}
 */
export function opAt(index, stage, t) {
  const row = index.rows[stage];
  if (!row) return null;
  const i = firstEndingAfter(row, t);
  const op = row[i];
  return op && op.start_ms <= t ? op : null;
}

/**
 * The position in a stage's row of the operation nearest to time t (running at t, else the closest one).
 * @param {TimelineIndex} index
 * @param {number} stage
 * @param {number} t
 * @returns {number} -1 when the stage has no operation
 */
export function nearestOp(index, stage, t) {
  const row = index.rows[stage] ?? [];
  if (row.length === 0) return -1;
  const i = firstEndingAfter(row, t);
  if (i >= row.length) return row.length - 1;
  if (row[i].start_ms <= t || i === 0) return i;
  return t - row[i - 1].end_ms <= row[i].start_ms - t ? i - 1 : i;
}

/**
 * The idle interval of a stage around time t (between the operations before and after it).
 * @param {TimelineIndex} index
 * @param {number} stage
 * @param {number} t
 * @returns {[number, number]}
 */
export function idleAround(index, stage, t) {
  const row = index.rows[stage] ?? [];
  const i = firstEndingAfter(row, t);
  const before = i > 0 ? row[i - 1].end_ms : 0;
  const after = row[i] ? row[i].start_ms : index.stepTime;
  return [before, after];
}

/**
 * @param {Palette} palette
 * @returns {Record<string, string>}
 */
const opColors = (palette) => ({ F: palette.forward, B: palette.backward, W: palette.weight, 'F&B': `url(#${SPLIT_ID})` });

/**
 * The fills F&B and W boxes use: the split of forward over backward (in each box's own height), and stripes over
 * the weight colour, so W reads apart from B without colour too.
 * @param {Palette} palette
 */
const opPatterns = (palette) => s('defs', {}, [
  s('linearGradient', { id: SPLIT_ID, x1: 0, y1: 0, x2: 0, y2: 1 }, [
    s('stop', { offset: 0.5, 'stop-color': palette.forward }),
    s('stop', { offset: 0.5, 'stop-color': palette.backward }),
  ]),
  s('pattern', { id: 'timeline-w', width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' }, [
    s('rect', { width: 6, height: 6, fill: palette.weight }),
    s('rect', { width: 2, height: 6, fill: palette.background, 'fill-opacity': 0.45 }),
  ]),
]);

/**
 * @typedef {{width: number, height?: number, palette: Palette, window: [number, number], pp: number, vpp: number,
 *            truncated?: {operations: number, limit: number} | null, selected?: TimelineOp | null}} TimelineOptions
 * selected: the operation picked by click or keyboard, outlined
 */

/**
 * @param {TimelineIndex} index
 * @param {TimelineOptions} options
 * @returns {SVGSVGElement}
 */
export function renderTimeline(index, { width, height, palette, window, pp, vpp, truncated = null, selected = null }) {
  const layout = timelineLayout(width, pp, height, timelineLegendHeight(width, index, vpp));
  const { x0, x1, top, rowHeight, rowGap, plotBottom } = layout;
  const [t0, t1] = window;
  const x = linear([t0, t1], [x0, x1]);
  const root = chartRoot({ id: 'timeline', width, height: layout.height, palette,
    label: t('Pipeline timeline: {pp} stages, {n} operations, step time {time}', { pp, n: index.count, time: ms(index.stepTime) }) });
  root.setAttribute('data-window', `${t0},${t1}`);
  root.append(hatchPattern(palette, 'timeline-hatch'), opPatterns(palette));
  root.append(s('defs', {}, [s('clipPath', { id: 'timeline-clip' }, [s('rect', { x: x0, y: top - 2, width: x1 - x0, height: plotBottom - top + 4 })])]));

  // Rows: labels (the same at every zoom) and the hatched background that shows through as bubbles.
  const labelEvery = rowHeight >= 10 ? 1 : Math.ceil(12 / (rowHeight + rowGap));
  const labels = kept(JSON.stringify(['timeline-rows', pp, top, rowHeight, rowGap, x0, labelEvery, palette.muted, t('stage {i}', { i: 0 })]), () => {
    const group = s('g', { class: 'rows' });
    for (let stage = 0; stage < pp; stage += labelEvery) {
      const y = top + stage * (rowHeight + rowGap);
      group.append(text(x0 - 8, y + rowHeight / 2 + 4, t('stage {i}', { i: stage }), { 'text-anchor': 'end', 'font-size': rowHeight >= 14 ? 11 : 9, fill: palette.muted }));
    }
    return group;
  });
  // The step's span on every row, as one path: one element to update per zoom or pan step rather than one per stage.
  const a = Math.max(x0, x(0));
  const b = Math.min(x1, x(index.stepTime));
  let bubbles = '';
  for (let stage = 0; stage < pp && b > a; ++stage) {
    bubbles += `M${tenths(a)} ${tenths(top + stage * (rowHeight + rowGap))}h${tenths(b - a)}v${tenths(rowHeight)}h${tenths(a - b)}z`;
  }
  root.append(axisBottom(x, { y: plotBottom + 2, gridTop: top - 4, title: t('time (ms)'), palette, format: tickLabel, count: Math.max(3, Math.round((x1 - x0) / 110)) }));
  root.append(labels);
  if (bubbles) root.append(s('path', { d: bubbles, fill: 'url(#timeline-hatch)', class: 'bubble-row' }));

  // Which operations are visible.
  let visible = 0;
  /** @type {[number, number][]} */
  const ranges = index.rows.map((row) => {
    const first = firstEndingAfter(row, t0);
    let last = first;
    while (last < row.length && row[last].start_ms < t1) ++last;
    visible += last - first;
    return [first, last];
  });

  const colors = opColors(palette);
  // Boxes are axis-aligned: crisp edges look the same and spare the browser anti-aliasing thousands of them.
  const boxes = s('g', { class: 'ops', 'clip-path': 'url(#timeline-clip)', 'shape-rendering': visible > MAX_BOXES ? 'crispEdges' : null });
  const shade = (/** @type {TimelineOp} */ op) => (vpp > 1 ? 1 - 0.3 * ((Math.floor(op.virtual_stage / pp)) % 3) : 1);
  if (visible <= MAX_BOXES) {
    // Attributes shared by every box or label sit on the row's group; each box is a clone of one prototype, which
    // is much cheaper than setting every attribute again.
    const boxPrototype = s('rect', { height: rowHeight });
    const labelPrototype = s('text', {});
    for (let stage = 0; stage < pp; ++stage) {
      const row = index.rows[stage];
      const y = top + stage * (rowHeight + rowGap);
      const [first, last] = ranges[stage];
      if (first === last) continue;
      const rowBoxes = s('g', { stroke: palette.background, 'stroke-width': 0.75 });
      const rowLabels = s('g', { 'text-anchor': 'middle', 'font-size': 10, 'pointer-events': 'none', class: 'op-labels' });
      const yText = String(Math.round((y + rowHeight / 2 + 3.5) * 100) / 100);
      const yBox = String(Math.round(y * 100) / 100);
      for (let i = first; i < last; ++i) {
        const op = row[i];
        const xa = x(op.start_ms);
        const xb = x(op.end_ms);
        const w = Math.max(0.6, xb - xa);
        const fill = op.op === 'W' && w > 4 ? 'url(#timeline-w)' : colors[op.op] ?? palette.send;
        const box = /** @type {SVGElement} */ (boxPrototype.cloneNode(false));
        box.setAttribute('x', xa.toFixed(2));
        box.setAttribute('y', yBox);
        box.setAttribute('width', w.toFixed(2));
        box.setAttribute('fill', fill);
        if (vpp > 1 && shade(op) !== 1) box.setAttribute('fill-opacity', String(shade(op)));
        if (w <= 3) box.setAttribute('stroke-width', '0');
        box.setAttribute('data-op', op.op);
        box.setAttribute('data-stage', String(op.stage));
        box.setAttribute('data-micro-batch', String(op.micro_batch));
        box.setAttribute('data-virtual-stage', String(op.virtual_stage));
        if (op.op === 'F&B' && op.backward_micro_batch !== undefined) box.setAttribute('data-backward-micro-batch', String(op.backward_micro_batch));
        rowBoxes.append(box);
        const label = op.op === 'F&B' ? `${op.micro_batch}|${op.backward_micro_batch ?? '?'}` : String(op.micro_batch);
        if (rowHeight >= 14 && textWidth(label, 10) + 4 <= Math.min(xb, x1) - Math.max(xa, x0)) {
          const node = /** @type {SVGElement} */ (labelPrototype.cloneNode(false));
          node.setAttribute('x', ((Math.max(xa, x0) + Math.min(xb, x1)) / 2).toFixed(2));
          node.setAttribute('y', yText);
          node.setAttribute('fill', textOn(op.op === 'F&B' ? palette.forward : op.op === 'W' ? palette.weight : fill));
          node.textContent = label;
          rowLabels.append(node);
        }
      }
      boxes.append(rowBoxes, rowLabels);
    }
  } else if (visible <= pp * (x1 - x0)) {
    // Too many boxes for one element each, but a pixel or more each on average: per stage, the busy time as
    // rectangles in the backward colour (touching operations of any kind merged), and the forward and weight
    // operations on top (touching ones of a kind merged). The same picture as a box per operation, with half the
    // shapes for the browser to draw: in the steady state a stage alternates F and B without a gap.
    // Each run is drawn as a horizontal stroke as thick as the row (the same rectangle: butt ends, crisp edges),
    // which takes two path commands instead of five, and every stroke after a stage's first moves relative to the
    // end of the one before: the path is about half as long to build, parse and paint. Positions are whole tenths
    // of a pixel, so the relative moves add up exactly. At the whole step this is some 8,000 runs per frame.
    const perMs = ((x1 - x0) / (t1 - t0)) * 10;
    const left = x0 * 10;
    const right = x1 * 10;
    /** @type {['B', 'F', 'W']} */
    const kinds = ['B', 'F', 'W'];
    /** Per run kind (busy, F, W), every stage's runs: three elements for the browser to keep, whatever pp is. */
    const paths = ['', '', ''];
    for (let stage = 0; stage < pp; ++stage) {
      const row = index.rows[stage];
      const middle = tenths(top + stage * (rowHeight + rowGap) + rowHeight / 2);
      /** Per run kind: the open run in tenths (from < 0 when none), and the pen's x (< 0: not on this stage yet). */
      const from = [-1, -1, -1];
      const to = [0, 0, 0];
      const pen = [-1, -1, -1];
      const flush = (/** @type {number} */ k) => {
        const a = from[k];
        if (a < 0) return;
        const w = Math.max(6, to[k] - a);
        paths[k] += pen[k] < 0 ? `M${decimal(a)} ${middle}h${decimal(w)}` : `m${decimal(a - pen[k])} 0h${decimal(w)}`;
        pen[k] = a + w;
        from[k] = -1;
      };
      const extend = (/** @type {number} */ k, /** @type {number} */ xa, /** @type {number} */ xb) => {
        if (from[k] >= 0 && xa - to[k] < 5) {
          if (xb > to[k]) to[k] = xb;
          return;
        }
        flush(k);
        from[k] = xa;
        to[k] = xb;
      };
      const [first, last] = ranges[stage];
      for (let i = first; i < last; ++i) {
        const op = row[i];
        const xa = Math.round(Math.max(left, left + (op.start_ms - t0) * perMs));
        const xb = Math.round(Math.min(right, left + (op.end_ms - t0) * perMs));
        extend(0, xa, xb);
        if (op.op === 'F') extend(1, xa, xb);
        else if (op.op === 'W') extend(2, xa, xb);
        else {
          // A backward box breaks the forward and weight runs it lies between.
          flush(1);
          flush(2);
        }
      }
      for (let k = 0; k < 3; ++k) flush(k);
    }
    for (let k = 0; k < 3; ++k) {
      if (paths[k]) boxes.append(s('path', { d: paths[k], fill: 'none', stroke: colors[kinds[k]], 'stroke-width': rowHeight, class: 'op-path', 'data-op': kinds[k] }));
    }
  } else {
    // Operations narrower than a pixel on average: per stage and pixel column, the share of time spent in F, B
    // and W, stacked from the bottom of the row (idle time shows through above). One path per stage and kind.
    const columns = Math.max(1, Math.ceil(x1 - x0));
    const perColumn = (t1 - t0) / columns;
    for (let stage = 0; stage < pp; ++stage) {
      const row = index.rows[stage];
      const y = top + stage * (rowHeight + rowGap);
      const busy = OP_KINDS.map(() => new Float64Array(columns));
      const [first, last] = ranges[stage];
      for (let i = first; i < last; ++i) {
        const op = row[i];
        const k = op.op === 'F' ? 0 : op.op === 'B' ? 1 : 2;
        // An F&B runs a forward and a backward at once: half its time to each.
        const pair = op.op === 'F&B';
        const a = Math.max(op.start_ms, t0);
        const b = Math.min(op.end_ms, t1);
        let column = Math.min(columns - 1, Math.floor((a - t0) / perColumn));
        while (column < columns) {
          const from = t0 + column * perColumn;
          const overlap = Math.min(b, from + perColumn) - Math.max(a, from);
          if (overlap <= 0) break;
          if (pair) {
            busy[0][column] += overlap / 2;
            busy[1][column] += overlap / 2;
          } else busy[k][column] += overlap;
          ++column;
        }
      }
      /** @type {string[][]} */
      const paths = [[], [], []];
      // Runs of columns with the same heights (in half pixels) become one rectangle.
      const heights = new Float64Array(3);
      const runHeights = new Float64Array(3);
      let runStart = 0;
      const flush = (/** @type {number} */ end) => {
        let bottom = y + rowHeight;
        for (let k = 0; k < 3; ++k) {
          const h = runHeights[k];
          if (h > 0) paths[k].push(`M${x0 + runStart} ${Math.round((bottom - h) * 100) / 100}h${end - runStart}v${h}h${runStart - end}z`);
          bottom -= h;
        }
      };
      for (let column = 0; column < columns; ++column) {
        let same = column > 0;
        for (let k = 0; k < 3; ++k) {
          heights[k] = Math.round(Math.min(1, busy[k][column] / perColumn) * rowHeight * 2) / 2;
          if (heights[k] !== runHeights[k]) same = false;
        }
        if (!same) {
          if (column > 0) flush(column);
          runStart = column;
          runHeights.set(heights);
        }
      }
      flush(columns);
      OP_KINDS.forEach((name, k) => {
        if (paths[k].length > 0) boxes.append(s('path', { d: paths[k].join(''), fill: colors[name], class: 'op-path', 'data-op': name, 'data-stage': stage }));
      });
    }
  }
  root.append(boxes);
  if (selected && selected.end_ms > t0 && selected.start_ms < t1) {
    const y = top + selected.stage * (rowHeight + rowGap);
    const xa = Math.max(x0 - 2, x(selected.start_ms));
    const xb = Math.min(x1 + 2, x(selected.end_ms));
    root.append(s('rect', { x: xa - 1.5, y: y - 1.5, width: Math.max(1, xb - xa) + 3, height: rowHeight + 3, fill: 'none',
      stroke: palette.highlight, 'stroke-width': 2, class: 'selected-op', 'pointer-events': 'none' }));
  }

  // The step time.
  const stepX = x(index.stepTime);
  // The notes above the rows share their line with the step's label: they end before it (when it is not at the far
  // left), taking the longest wording that fits, so that nothing runs past the chart on a phone.
  let noteRoom = x1 - x0;
  if (stepX >= x0 - 0.5 && stepX <= x1 + 0.5) {
    root.append(s('line', { x1: stepX, x2: stepX, y1: top - 8, y2: plotBottom, stroke: palette.highlight, 'stroke-width': 1.5, 'stroke-dasharray': '5 3', class: 'step-marker' }));
    const label = t('step {time}', { time: ms(index.stepTime) });
    const labelWidth = textWidth(label, 11, 600);
    const anchor = stepX - textWidth(label, 11) < x0 ? 'start' : 'end';
    const labelLeft = anchor === 'end' ? stepX - 4 - labelWidth : stepX + 4;
    if (labelLeft > x0 + 40) noteRoom = labelLeft - x0 - 8;
    root.append(text(anchor === 'end' ? stepX - 4 : stepX + 4, top - 12, label, { 'text-anchor': anchor, 'font-size': 11, 'font-weight': 600, fill: palette.text, class: 'step-label' }));
  }
  /** @param {string[]} wordings longest first @returns {string} */
  const fitted = (wordings) => wordings.find((w) => textWidth(w, 11) <= noteRoom) ?? wordings[wordings.length - 1];
  if (truncated) {
    // The engine returns only the first operations by start time; after the last one returned nothing is known
    // per operation, which must not look like idle time.
    const cut = Math.max(x0, x(index.lastStart));
    if (cut < x1) {
      root.append(s('rect', { x: cut, y: top - 2, width: x1 - cut, height: plotBottom - top + 4, fill: palette.background, 'fill-opacity': 0.85, class: 'not-returned' }));
      root.append(text((cut + x1) / 2, (top + plotBottom) / 2, t('not returned'), { 'text-anchor': 'middle', 'font-size': 12, fill: palette.muted }));
    }
    const counts = { n: num(index.count), total: num(truncated.operations), limit: num(truncated.limit), time: ms(index.lastStart) };
    root.append(text(x0, top - 12, fitted([
      t('{n} of {total} operations returned (the engine\'s cap is {limit}): the step is estimated in full, the boxes stop at {time}', counts),
      t('{n} of {total} operations returned', counts)]), { 'font-size': 11, fill: palette.over }));
  } else if (visible > MAX_BOXES) {
    const how = visible <= pp * (x1 - x0) ? t('touching boxes of a kind drawn as one; zoom in to outline and number each')
      : t('each pixel column shows the share of time in F, B and W; zoom in for single boxes');
    root.append(text(x0, top - 12, fitted([t('{n} operations in view: {how}', { n: num(visible), how }),
      t('{n} operations in view; zoom in for each', { n: num(visible) }), t('{n} operations in view', { n: num(visible) })]),
    { 'font-size': 11, fill: palette.muted }));
  }

  const items = legendEntries(index, vpp).map(({ label, key, kind, opacity }) => ({ label, opacity,
    kind: kind === 'split' ? undefined : kind,
    color: kind === 'hatch' ? 'url(#timeline-hatch)' : kind === 'split' ? `url(#${SPLIT_ID})` : key === 'weight' ? 'url(#timeline-w)' : palette[key] }));
  root.append(kept(JSON.stringify(['timeline-legend', items, x0, plotBottom, x1, palette]), () => legend(items, { x: x0, y: plotBottom + 42, maxWidth: x1 - x0, palette }).node));
  return root;
}
