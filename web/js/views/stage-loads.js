// Stage loads: a strip of the layers per virtual stage (its boundaries can be dragged), then per physical stage
// the compute time of one micro batch (forward, backward, recompute, send, stacked) and the memory at the peak
// (weights, gradients, optimizer state, other static, activations, reserved, stacked) against the memory limit.
// Stages over the limit are outlined and say by how much. A pure function of the result.

/** @import {EstimateResult, StageResult} from '../types.js' */
/** @import {Palette} from '../theme.js' */
/** @import {ModelInfo} from '../model.js' */
import { s, text, textWidth, linear, niceMax, axisLeft, legend, legendHeight, chartRoot } from '../svg.js';
import { ms, mib, mibLong, num, count } from '../format.js';
import { t } from '../i18n.js';

export const STRIP_TOP = 34;
export const STRIP_HEIGHT = 30;
const MARGIN_LEFT = 62;
const MARGIN_RIGHT = 16;

/**
 * The geometry of the partition strip, shared by the renderer and the drag handling.
 * @param {number} width
 * @returns {{x0: number, x1: number}}
 */
export function stripBounds(width) {
  return { x0: MARGIN_LEFT, x1: width - MARGIN_RIGHT };
}

/**
 * @typedef {{width: number, height?: number, palette: Palette, info: ModelInfo, stageLayers?: number[] | null,
 *            dragging?: number | null, activeBoundary?: number}} StageLoadsOptions
 * activeBoundary: the boundary that is the strip's one tab stop (the last one focused)
 */

/**
 * The time stack of one stage, bottom to top.
 * @param {StageResult} stage
 * @param {Palette} palette
 */
function timeParts(stage, palette) {
  return [
    { key: 'forward', label: t('forward'), value: stage.time.forward_ms, color: palette.forward },
    { key: 'backward', label: t('backward'), value: stage.time.backward_ms, color: palette.backward },
    { key: 'recompute', label: t('recompute'), value: stage.time.recompute_ms, color: palette.recompute },
    { key: 'send', label: t('send'), value: stage.time.send_ms, color: palette.send },
  ];
}

/**
 * The memory stack of one stage, bottom to top. `static_mib` is all static memory; the part not stated as
 * weights, gradients or optimizer state (a profiled `static_mib`) shows as "other static".
 * @param {StageResult} stage
 * @param {Palette} palette
 */
function memoryParts(stage, palette) {
  const m = stage.memory;
  const other = Math.max(0, m.static_mib - m.weights_mib - m.grads_mib - m.optimizer_mib);
  return [
    { key: 'weights', label: t('weights'), value: m.weights_mib, color: palette.weights },
    { key: 'grads', label: t('gradients'), value: m.grads_mib, color: palette.grads },
    { key: 'optimizer', label: t('optimizer'), value: m.optimizer_mib, color: palette.optimizer },
    { key: 'static', label: t('other static'), value: other, color: palette.otherStatic },
    { key: 'activation', label: t('activations'), value: m.activation_mib, color: palette.activation },
    { key: 'reserved', label: t('reserved'), value: m.reserved_mib, color: palette.reserved },
  ];
}

/**
 * Layers of a physical stage, counted over its virtual stages.
 * @param {StageResult} stage
 */
const layerCount = (stage) => stage.layers.reduce((sum, [begin, end]) => sum + end - begin, 0);

/**
 * @param {EstimateResult} result
 * @param {StageLoadsOptions} options
 * @returns {SVGSVGElement}
 */
export function renderStageLoads(result, { width, height: fit, palette, info, stageLayers = null, dragging = null, activeBoundary = 0 }) {
  const stages = result.stages;
  const pp = stages.length;
  const narrow = width < 620;
  const strip = stripText(result, width, stageLayers);
  const panelTop = strip.top + STRIP_HEIGHT + 56;

  // Two panels side by side (or stacked when narrow), each with its legend below, wrapped to the panel's width.
  const gap = 70;
  const panelWidth = narrow ? width - MARGIN_LEFT - MARGIN_RIGHT : (width - MARGIN_LEFT - MARGIN_RIGHT - gap) / 2;
  const timeItems = timeParts(stages[0] ?? /** @type {any} */ ({ time: {} }), palette).map((p) => ({ label: p.label, color: p.color }));
  const memoryItems = [...memoryParts(stages[0] ?? /** @type {any} */ ({ memory: {} }), palette)
    .map((p) => ({ label: p.label, color: p.color, kind: /** @type {const} */ ('box') })),
  { label: t('limit'), color: palette.limit, kind: /** @type {const} */ ('dash') }];
  const timeLegendHeight = legendHeight(timeItems, panelWidth);
  const memoryLegendHeight = legendHeight(memoryItems, panelWidth);
  // Below a panel: its axis title, then its legend.
  const belowTime = 42 + timeLegendHeight + 8;
  const belowMemory = 42 + memoryLegendHeight + 8;
  const memoryTitleSpace = 26;
  let panelHeight = 210;
  if (fit) {
    panelHeight = narrow ? Math.max(90, (fit - panelTop - belowTime - memoryTitleSpace - belowMemory) / 2)
      : Math.max(90, fit - panelTop - Math.max(belowTime, belowMemory));
  }
  const timeX = MARGIN_LEFT;
  const memoryX = narrow ? MARGIN_LEFT : MARGIN_LEFT + panelWidth + gap;
  const timeTop = panelTop;
  const memoryTop = narrow ? panelTop + panelHeight + belowTime + memoryTitleSpace : panelTop;
  const height = narrow ? memoryTop + panelHeight + belowMemory : panelTop + panelHeight + Math.max(belowTime, belowMemory);
  const root = chartRoot({ id: 'stage-loads', width, height, palette, interactive: true,
    label: t('Stage loads of {pp} pipeline stages: compute time per micro batch and memory at the peak', { pp }) });

  root.append(renderStrip(result, { width, palette, info, stageLayers, dragging, activeBoundary }, strip));

  const timeMax = niceMax(Math.max(...stages.map((st) => timeParts(st, palette).reduce((a, p) => a + p.value, 0)), 0));
  const limit = stages[0]?.memory.limit_mib;
  const memoryMax = niceMax(Math.max(...stages.map((st) => st.memory.peak_mib), limit ?? 0) * 1.06);
  const timeY = linear([0, timeMax], [timeTop + panelHeight, timeTop]);
  const memoryY = linear([0, memoryMax], [memoryTop + panelHeight, memoryTop]);

  root.append(text(timeX, timeTop - 10, t('Compute per micro batch'), { 'font-size': 12, 'font-weight': 600, fill: palette.text }));
  root.append(text(memoryX, memoryTop - 10, t('Memory at the peak'), { 'font-size': 12, 'font-weight': 600, fill: palette.text }));
  root.append(axisLeft(timeY, { x: timeX, gridRight: timeX + panelWidth, title: t('time (ms)'), palette, format: num }));
  root.append(axisLeft(memoryY, { x: memoryX, gridRight: memoryX + panelWidth, title: t('memory (MiB)'), palette, format: num, titleOffset: 50 }));

  const slot = panelWidth / Math.max(pp, 1);
  const barWidth = Math.max(2, Math.min(56, slot * 0.64));
  const labelEvery = Math.ceil(22 / slot);
  const violations = new Map(result.violations.map((v) => [v.stage, v]));
  const bars = s('g', { class: 'stage-bars' });
  for (const stage of stages) {
    const i = stage.stage;
    const over = violations.get(i);
    const group = s('g', { class: over ? 'stage over-limit' : 'stage', 'data-stage': i });
    const parts = [
      { parts: timeParts(stage, palette), x: timeX + slot * i + (slot - barWidth) / 2, y: timeY, kind: 'time', unit: ms },
      { parts: memoryParts(stage, palette), x: memoryX + slot * i + (slot - barWidth) / 2, y: memoryY, kind: 'memory', unit: mib },
    ];
    for (const stack of parts) {
      let base = 0;
      const total = stack.parts.reduce((a, p) => a + p.value, 0);
      const tip = [t('Stage {i} · {n} layers', { i, n: count(layerCount(stage)) }),
        ...stack.parts.filter((p) => p.value > 0).map((p) => `${p.label}: ${stack.unit(p.value)}`),
        stack.kind === 'time' ? t('total: {time} per micro batch', { time: ms(total) }) : t('peak: {memory}', { memory: mibLong(stage.memory.peak_mib) })];
      if (stack.kind === 'memory' && over) tip.push(t('over the limit by {memory}', { memory: mib(over.over_mib ?? stage.memory.peak_mib - (limit ?? 0)) }));
      const bar = s('g', { class: `bar bar-${stack.kind}`, 'data-tip': tip.join('\n') });
      for (const part of stack.parts) {
        if (part.value <= 0) continue;
        const top = stack.y(base + part.value);
        const bottom = stack.y(base);
        bar.append(s('rect', { x: stack.x, y: top, width: barWidth, height: Math.max(0.5, bottom - top), fill: part.color, 'data-part': part.key }));
        base += part.value;
      }
      // The whole bar, transparent, so the tooltip works on gaps between thin parts too.
      const top = stack.y(total);
      bar.append(s('rect', { x: stack.x, y: top, width: barWidth, height: stack.y(0) - top, fill: 'transparent',
        stroke: stack.kind === 'memory' && over ? palette.over : 'none', 'stroke-width': 2, class: 'bar-outline' }));
      group.append(bar);
      if (i % labelEvery === 0) {
        group.append(text(stack.x + barWidth / 2, stack.y(0) + 15, String(i), { 'text-anchor': 'middle', 'font-size': 11, fill: palette.muted }));
      }
      if (stack.kind === 'memory' && over) {
        const label = `+${num(over.over_mib ?? 0)}`;
        if (textWidth(label, 10) <= slot + 6 || pp <= 16) {
          group.append(text(stack.x + barWidth / 2, top - 5, label, { 'text-anchor': 'middle', 'font-size': 10, 'font-weight': 700, fill: palette.over }));
        }
      }
    }
    bars.append(group);
  }
  root.append(bars);
  root.append(text(timeX + panelWidth / 2, timeTop + panelHeight + 30, t('pipeline stage'), { 'text-anchor': 'middle', 'font-size': 12, fill: palette.text }));
  root.append(text(memoryX + panelWidth / 2, memoryTop + panelHeight + 30, t('pipeline stage'), { 'text-anchor': 'middle', 'font-size': 12, fill: palette.text }));

  if (limit !== undefined && limit > 0) {
    const y = memoryY(limit);
    root.append(s('line', { x1: memoryX, x2: memoryX + panelWidth, y1: y, y2: y, stroke: palette.limit, 'stroke-width': 1.5, 'stroke-dasharray': '6 4', class: 'limit-line' }));
    const label = t('limit {limit}', { limit: mib(limit) });
    root.append(s('rect', { x: memoryX + panelWidth - textWidth(label, 10.5) - 8, y: y - 15, width: textWidth(label, 10.5) + 8, height: 13, fill: palette.background, opacity: 0.85 }));
    root.append(text(memoryX + panelWidth - 4, y - 5, label, { 'text-anchor': 'end', 'font-size': 10.5, fill: palette.limit, 'font-weight': 600 }));
  }

  const timeLegend = legend(timeItems, { x: timeX, y: timeTop + panelHeight + 42, maxWidth: panelWidth, palette });
  const memoryLegend = legend(memoryItems, { x: memoryX, y: memoryTop + panelHeight + 42, maxWidth: panelWidth, palette });
  root.append(timeLegend.node, memoryLegend.node);
  return root;
}

/**
 * The strip's title and caption, and where the strip starts: the caption goes on a line of its own under the title
 * when both do not fit on one (phones).
 * @param {EstimateResult} result
 * @param {number} width
 * @param {number[] | null} stageLayers
 * @returns {{title: string, caption: string, wraps: boolean, top: number}}
 */
function stripText(result, width, stageLayers) {
  const total = (stageLayers ?? result.stage_layers).reduce((a, b) => a + b, 0);
  const { x0, x1 } = stripBounds(width);
  const title = t('Layers per virtual stage');
  const caption = t('{n} layers · drag a boundary to move layers', { n: count(total) });
  const wraps = textWidth(title, 12, 600) + textWidth(caption, 11) + 16 > x1 - x0;
  return { title, caption, wraps, top: STRIP_TOP + (wraps ? 14 : 0) };
}

/**
 * The strip of layers per virtual stage with draggable boundaries. When `stageLayers` is given (a drag in
 * progress), it shows those counts instead of the result's.
 * @param {EstimateResult} result
 * @param {StageLoadsOptions} options
 * @param {{title: string, caption: string, wraps: boolean, top: number}} text the strip's text and top (stripText)
 * @returns {SVGElement}
 */
function renderStrip(result, { width, palette, info, stageLayers, dragging, activeBoundary = 0 }, { title, caption, wraps, top }) {
  const layers = stageLayers ?? result.stage_layers;
  const total = layers.reduce((a, b) => a + b, 0) || 1;
  const pp = result.stages.length || 1;
  const { x0, x1 } = stripBounds(width);
  const x = linear([0, total], [x0, x1]);
  const group = s('g', { class: 'partition-strip' });
  group.append(text(x0, top - (wraps ? 26 : 12), title, { 'font-size': 12, 'font-weight': 600, fill: palette.text }));
  group.append(wraps ? text(x0, top - 10, caption, { 'font-size': 11, fill: palette.muted })
    : text(x1, top - 12, caption, { 'text-anchor': 'end', 'font-size': 11, fill: palette.muted }));
  let begin = 0;
  layers.forEach((n, v) => {
    const physical = v % pp;
    const color = palette.series[physical % palette.series.length];
    const xa = x(begin);
    const xb = x(begin + n);
    const names = info.layerNames.length >= begin + n && n > 0
      ? `${info.layerNames[begin]}${n > 1 ? ` … ${info.layerNames[begin + n - 1]}` : ''}` : '';
    const tip = [t('Virtual stage {v} on stage {s}', { v, s: physical }), t('layers {a}–{b} ({n})', { a: begin, b: begin + n - 1, n: count(n) })];
    if (names) tip.push(names);
    group.append(s('rect', { x: xa, y: top, width: Math.max(0, xb - xa), height: STRIP_HEIGHT, fill: color, 'fill-opacity': 0.28,
      stroke: color, 'stroke-width': 1, 'data-virtual-stage': v, 'data-tip': tip.join('\n') }));
    const label = pp < layers.length ? `${v}·s${physical}: ${n}` : `s${v}: ${n}`;
    if (textWidth(label, 11) + 6 < xb - xa) {
      group.append(text((xa + xb) / 2, top + STRIP_HEIGHT / 2 + 4, label, { 'text-anchor': 'middle', 'font-size': 11, fill: palette.text, 'pointer-events': 'none' }));
    } else if (textWidth(String(n), 10) + 2 < xb - xa) {
      group.append(text((xa + xb) / 2, top + STRIP_HEIGHT / 2 + 4, String(n), { 'text-anchor': 'middle', 'font-size': 10, fill: palette.text, 'pointer-events': 'none' }));
    }
    begin += n;
  });
  // Layer index ticks under the strip.
  const step = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000].find((k) => (x1 - x0) / (total / k) >= 40) ?? 100000;
  for (let i = 0; i <= total; i += step) {
    group.append(s('line', { x1: x(i), x2: x(i), y1: top + STRIP_HEIGHT, y2: top + STRIP_HEIGHT + 4, stroke: palette.axis }));
    group.append(text(x(i), top + STRIP_HEIGHT + 15, String(i), { 'text-anchor': 'middle', 'font-size': 10, fill: palette.muted }));
  }
  group.append(text(x0 - 8, top + STRIP_HEIGHT + 15, t('layer'), { 'text-anchor': 'end', 'font-size': 10, fill: palette.muted }));
  // Boundary handles, between virtual stage v and v + 1: one composite widget with one tab stop (roving tabindex);
  // js/views/partition-drag.js moves the focus between them and the layers across them.
  const boundaries = s('g', { class: 'boundaries', role: 'group', 'aria-label': t('Stage boundaries: {n}. Left and right arrows move a boundary by a layer, ' +
    'Page Up and Page Down by ten, Home and End to its limits; up and down arrows go to the previous or next boundary.', { n: layers.length - 1 }) });
  const tabStop = activeBoundary >= 0 && activeBoundary < layers.length - 1 ? activeBoundary : 0;
  let end = 0;
  for (let v = 0; v < layers.length - 1; ++v) {
    end += layers[v];
    const hx = x(end);
    const active = dragging === v;
    const [low, high] = boundaryRange(layers, v, info);
    boundaries.append(s('g', { class: 'boundary', 'data-boundary': v, tabindex: v === tabStop ? 0 : -1, role: 'slider', 'aria-orientation': 'horizontal',
      'aria-label': t('Boundary {k} of {n}, between virtual stages {a} and {b}', { k: v + 1, n: layers.length - 1, a: v, b: v + 1 }),
      'aria-valuenow': end, 'aria-valuemin': low, 'aria-valuemax': high,
      'aria-valuetext': t('{n} layers before it: virtual stage {a} has {x}, virtual stage {b} has {y}', { n: count(end), a: v, x: count(layers[v]), b: v + 1, y: count(layers[v + 1]) }),
      'data-tip': t('Boundary after layer {n}\ndrag, or focus and use ← → (Page Up/Down, Home/End); ↑ ↓ for the other boundaries', { n: end - 1 }) }, [
      s('rect', { x: hx - 7, y: top - 6, width: 14, height: STRIP_HEIGHT + 12, fill: 'transparent', class: 'boundary-hit' }),
      s('rect', { x: hx - 2.5, y: top - 5, width: 5, height: STRIP_HEIGHT + 10, rx: 2, fill: active ? palette.limit : palette.text, class: 'boundary-handle' }),
    ]));
  }
  group.append(boundaries);
  return group;
}

/**
 * The positions (layers before it) a boundary can take: every virtual stage keeps a layer, the pinned layers stay
 * on the first and last virtual stage. The same limits js/views/partition-drag.js moves within.
 * @param {number[]} layers layers per virtual stage
 * @param {number} index the boundary between virtual stages index and index + 1
 * @param {ModelInfo} info
 * @returns {[number, number]}
 */
export function boundaryRange(layers, index, info) {
  let before = 0;
  for (let v = 0; v < index; ++v) before += layers[v];
  const total = layers.reduce((a, b) => a + b, 0);
  const next = before + layers[index] + layers[index + 1];
  const low = index === 0 ? Math.max(1, info.pinnedFirst) : before + 1;
  const high = index === layers.length - 2 ? total - Math.max(1, info.pinnedLast) : next - 1;
  return [low, Math.max(low, high)];
}
