// Comparison of two plans (the even split beside the PPB plan, or a pinned plan beside the current one):
// the gains in step time and peak memory, and per stage the compute per micro batch and the peak memory of
// both, side by side, against the memory limit.

/** @import {EstimateResult} from '../types.js' */
/** @import {Palette} from '../theme.js' */
import { s, text, textLines, wrapLines, linear, niceMax, axisLeft, legend, legendHeight, chartRoot } from '../svg.js';
import { el } from '../dom.js';
import { ms, mib, num, percent, signed } from '../format.js';
import { t } from '../i18n.js';

/**
 * @typedef {{label: string, result: EstimateResult}} NamedPlan
 * @typedef {{stepTime: number, stepFraction: number, peakA: number, peakB: number, peak: number,
 *            bubbleA: number, bubbleB: number}} Gains
 */

/** @param {EstimateResult} r */
export const largestPeak = (r) => Math.max(0, ...r.stages.map((st) => st.memory.peak_mib));

/**
 * B against A: negative step time and peak mean B is faster / needs less.
 * @param {EstimateResult} a
 * @param {EstimateResult} b
 * @returns {Gains}
 */
export function gains(a, b) {
  const peakA = largestPeak(a);
  const peakB = largestPeak(b);
  return {
    stepTime: b.step_time_ms - a.step_time_ms,
    stepFraction: a.step_time_ms > 0 ? (b.step_time_ms - a.step_time_ms) / a.step_time_ms : 0,
    peakA,
    peakB,
    peak: peakB - peakA,
    bubbleA: a.bubble.fraction,
    bubbleB: b.bubble.fraction,
  };
}

/** @param {import('../types.js').StageResult} st */
const compute = (st) => st.time.forward_ms + st.time.backward_ms + st.time.recompute_ms;

/**
 * @param {NamedPlan} a
 * @param {NamedPlan} b
 * @param {{width: number, height?: number, palette: Palette}} options
 * @returns {SVGSVGElement}
 */
export function renderCompare(a, b, { width, height: fit, palette }) {
  const narrow = width < 620;
  const left = 62;
  const right = 16;
  const gap = 70;
  const panelWidth = narrow ? width - left - right : (width - left - right - gap) / 2;
  const g = gains(a.result, b.result);
  const colorA = palette.otherStatic;
  const colorB = palette.forward;

  // The headline, the legend and the panel titles wrap to the width (phones, narrow embeds); the panels start below
  // whatever they take.
  const headline = wrapLines(t('Step time {a} → {b} ms ({change}) · largest peak {pa} → {pb} MiB ({peak})', { a: num(a.result.step_time_ms),
    b: num(b.result.step_time_ms), change: signed(g.stepFraction, (v) => percent(v)), pa: num(g.peakA), pb: num(g.peakB), peak: signed(g.peak, mib) }),
  width - left - right, 12.5, 600);
  /** @type {import('../svg.js').LegendItem[]} */
  const legendItems = [
    { label: t('A: {label}', { label: t(a.label) }), color: colorA },
    { label: t('B: {label}', { label: t(b.label) }), color: colorB },
    { label: t('limit'), color: palette.limit, kind: 'dash' },
  ];
  const legendTop = 20 + (headline.length - 1) * 16 + 10;
  const top = legendTop + legendHeight(legendItems, width - left - right) + 10;
  const titles = [t('Compute per micro batch (forward + backward + recompute)'), t('Peak memory')].map((title) => wrapLines(title, panelWidth, 12, 600));
  const titleLines = Math.max(...titles.map((lines) => lines.length));
  const plotOffset = 14 + (titleLines - 1) * 15;
  const panelHeight = fit ? Math.max(90, narrow ? (fit - top - 150) / 2 : fit - top - 70) : 190 + plotOffset - 14;
  const height = narrow ? top + 2 * (panelHeight + 60) + 30 : top + panelHeight + 70;
  const root = chartRoot({ id: 'compare', width, height, palette, label: t('Comparison of {a} and {b}', { a: t(a.label), b: t(b.label) }) });
  root.append(textLines(left, 20, headline, 16, { 'font-size': 12.5, 'font-weight': 600, fill: palette.text }));
  root.append(legend(legendItems, { x: left, y: legendTop, maxWidth: width - left - right, palette }).node);

  const pp = Math.max(a.result.stages.length, b.result.stages.length);
  const panels = [
    { title: titles[0], unit: t('time (ms)'), value: compute, fmt: ms, x: left, y: top },
    { title: titles[1], unit: t('memory (MiB)'), value: (/** @type {import('../types.js').StageResult} */ st) => st.memory.peak_mib, fmt: mib,
      x: narrow ? left : left + panelWidth + gap, y: narrow ? top + panelHeight + 60 : top },
  ];
  const limit = b.result.stages[0]?.memory.limit_mib ?? a.result.stages[0]?.memory.limit_mib;
  panels.forEach((panel, p) => {
    const values = [...a.result.stages, ...b.result.stages].map(panel.value);
    const max = niceMax(Math.max(...values, p === 1 && limit ? limit : 0) * 1.05);
    const y = linear([0, max], [panel.y + panelHeight, panel.y + plotOffset]);
    root.append(textLines(panel.x, panel.y + 6, panel.title, 15, { 'font-size': 12, 'font-weight': 600, fill: palette.text }));
    root.append(axisLeft(y, { x: panel.x, gridRight: panel.x + panelWidth, title: panel.unit, palette, format: num, count: 4, titleOffset: 50 }));
    const slot = panelWidth / Math.max(1, pp);
    const bar = Math.max(1.5, Math.min(24, slot * 0.36));
    const labelEvery = Math.ceil(22 / slot);
    for (let i = 0; i < pp; ++i) {
      const cx = panel.x + slot * i + slot / 2;
      [[a, colorA, -1], [b, colorB, 0]].forEach(([plan, color, shift]) => {
        const named = /** @type {NamedPlan} */ (plan);
        const st = named.result.stages[i];
        if (!st) return;
        const v = panel.value(st);
        const over = p === 1 && limit !== undefined && v > limit;
        root.append(s('rect', { x: cx + /** @type {number} */ (shift) * bar, y: y(v), width: bar, height: Math.max(0.5, y(0) - y(v)),
          fill: /** @type {string} */ (color), stroke: over ? palette.over : 'none', 'stroke-width': over ? 1.5 : 0,
          'data-tip': `${named.label}\nstage ${i}: ${panel.fmt(v)}${over ? ` (over the limit by ${mib(v - /** @type {number} */ (limit))})` : ''}`,
          class: 'compare-bar', 'data-plan': shift === -1 ? 'a' : 'b', 'data-stage': i }));
      });
      if (i % labelEvery === 0) root.append(text(cx, panel.y + panelHeight + 15, String(i), { 'text-anchor': 'middle', 'font-size': 11, fill: palette.muted }));
    }
    root.append(text(panel.x + panelWidth / 2, panel.y + panelHeight + 32, t('pipeline stage'), { 'text-anchor': 'middle', 'font-size': 12, fill: palette.text }));
    if (p === 1 && limit !== undefined && limit > 0) {
      const ly = y(limit);
      root.append(s('line', { x1: panel.x, x2: panel.x + panelWidth, y1: ly, y2: ly, stroke: palette.limit, 'stroke-width': 1.5, 'stroke-dasharray': '6 4' }));
      const label = t('limit {limit}', { limit: mib(limit) });
      root.append(text(panel.x + panelWidth - 4, ly - 5, label, { 'text-anchor': 'end', 'font-size': 10.5, fill: palette.limit, 'font-weight': 600 }));
    }
  });
  return root;
}

/**
 * The gains of B over A as headline cards (HTML): step time, largest peak memory, bubble, feasibility. Green is
 * better, red worse.
 * @param {NamedPlan} a
 * @param {NamedPlan} b
 * @returns {HTMLElement[]}
 */
export function renderGainCards(a, b) {
  const g = gains(a.result, b.result);
  /** @param {string} label @param {string} value @param {string} note @param {string} tone @param {string} field */
  const card = (label, value, note, tone, field) => el('div', { class: `metric ${tone}`.trim(), data: { field } }, [
    el('span', { class: 'metric-label', text: label }), el('output', { class: 'metric-value', text: value }), el('span', { class: 'metric-note', text: note }),
  ]);
  const toneOf = (/** @type {number} */ v) => (v < -1e-9 ? 'good' : v > 1e-9 ? 'bad' : '');
  return [
    card(t('Step time'), signed(g.stepTime, ms), `${num(a.result.step_time_ms)} → ${num(b.result.step_time_ms)} ms (${signed(g.stepFraction, (v) => percent(v))})`,
      toneOf(g.stepTime), 'gain-step'),
    card(t('Largest peak memory'), signed(g.peak, mib), `${num(g.peakA)} → ${num(g.peakB)} MiB`, toneOf(g.peak), 'gain-peak'),
    card(t('Bubble'), signed((g.bubbleB - g.bubbleA) * 100, (v) => t('{n} points', { n: v.toFixed(1) })), `${percent(g.bubbleA)} → ${percent(g.bubbleB)}`,
      toneOf(g.bubbleB - g.bubbleA), 'gain-bubble'),
    card(t('Fits in memory'), `${t(a.result.feasible ? 'yes' : 'no')} → ${t(b.result.feasible ? 'yes' : 'no')}`, t('A: {a} · B: {b}', { a: t(a.label), b: t(b.label) }),
      a.result.feasible === b.result.feasible ? '' : b.result.feasible ? 'good' : 'bad', 'gain-feasible'),
  ];
}
