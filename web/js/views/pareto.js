// Search scatter: step time against the largest stage's peak memory for every candidate of a search, the
// Pareto front (no other candidate is both faster and smaller) drawn as a step line, infeasible candidates as
// crosses, the memory limit as a vertical line. Points carry data-index so the page can open their plan.

/** @import {SearchResult, SearchCandidate} from '../types.js' */
/** @import {Palette} from '../theme.js' */
import { t } from '../i18n.js';
import { engineSentence } from '../engine-text.js';
import { s, text, linear, niceMax, ticks, axisBottom, axisLeft, legend, chartRoot } from '../svg.js';
import { ms, mib, num, percent } from '../format.js';

/**
 * One line describing a candidate's shape: "pp 4 · vpp 2 · 32 micro batches · interleaved_1f1b".
 * @param {SearchCandidate} c
 * @returns {string}
 */
export function candidateLabel(c) {
  return t('pp {pp} · vpp {vpp} · {m} micro batches · {schedule}', { pp: c.pp_degree, vpp: c.vpp_degree, m: c.micro_batch_num, schedule: c.schedule });
}

/** The width of the band at the right edge where candidates off the memory scale are drawn. */
const OUTLIER_BAND = 34;

/**
 * The peak from which a candidate is drawn off the memory scale: beyond the feasible candidates and the limit by more
 * than their own spread (at least a quarter of the larger of the two). Infinity when nothing is that far out, or when
 * no candidate fits and there is no limit to measure from.
 * @param {SearchCandidate[]} candidates
 * @param {number | undefined} limit
 * @returns {number}
 */
export function outlierFrom(candidates, limit) {
  const feasible = candidates.filter((c) => c.feasible && Number.isFinite(c.peak_mib)).map((c) => /** @type {number} */ (c.peak_mib));
  if (feasible.length === 0 && !(limit && limit > 0)) return Infinity;
  const all = candidates.filter((c) => Number.isFinite(c.peak_mib)).map((c) => /** @type {number} */ (c.peak_mib));
  const high = Math.max(...feasible, limit ?? 0);
  const low = Math.min(...all, limit ?? Infinity);
  return high + Math.max(high - low, high / 4);
}

/**
 * @param {SearchResult} result
 * @param {{width: number, height?: number, palette: Palette, selected?: number | null, limit?: number}} options
 * @returns {SVGSVGElement}
 */
export function renderPareto(result, { width, height: fit, palette, selected = null, limit }) {
  const height = fit ? Math.max(200, fit) : 330;
  const x0 = 76;
  let x1 = width - 20;
  const top = 20;
  const bottom = height - 76;
  const root = chartRoot({ id: 'pareto', width, height, palette, interactive: true,
    label: t('Search: step time against peak memory for {n} candidates, Pareto front highlighted', { n: result.candidates.length }) });
  const points = result.candidates
    .map((c, index) => ({ c, index }))
    .filter(({ c }) => Number.isFinite(c.step_time_ms) && Number.isFinite(c.peak_mib));
  if (points.length === 0) {
    root.append(text(width / 2, height / 2, t('no candidate with a step time and a peak memory'), { 'text-anchor': 'middle', fill: palette.muted }));
    return root;
  }
  const peaks = points.map(({ c }) => /** @type {number} */ (c.peak_mib));
  const times = points.map(({ c }) => /** @type {number} */ (c.step_time_ms));
  // The memory axis spans the candidates (and the limit), not zero to the largest: the feasible points differ by a
  // few percent and would sit on top of each other. A candidate far beyond them (a pp that puts the whole model on a
  // few devices: 10x the limit) would squeeze them into a few pixels, so it is drawn off the scale, in a band at the
  // right edge past a break in the axis, with its value.
  const beyond = outlierFrom(points.map(({ c }) => c), limit);
  const onScale = peaks.filter((peak) => peak < beyond);
  const outliers = points.filter(({ c }) => /** @type {number} */ (c.peak_mib) >= beyond);
  if (outliers.length > 0) x1 -= OUTLIER_BAND;
  const lowest = Math.min(...onScale, limit ?? Infinity);
  const highest = Math.max(...onScale, limit ?? 0);
  const pad = (highest - lowest) * 0.06 || highest * 0.05 || 1;
  const xTicks = ticks(Math.max(0, lowest - pad), highest + pad, Math.max(3, Math.round((x1 - x0) / 100)));
  const xStep = xTicks.length > 1 ? xTicks[1] - xTicks[0] : pad;
  const xMin = Math.max(0, Math.floor((lowest - pad) / xStep) * xStep);
  const xMax = Math.ceil((highest + pad) / xStep) * xStep;
  const yMax = niceMax(Math.max(...times) * 1.04);
  const x = linear([xMin, xMax], [x0, x1]);
  const y = linear([0, yMax], [bottom, top]);
  /** @param {SearchCandidate} c */
  const xOf = (c) => (/** @type {number} */ (c.peak_mib) >= beyond ? x1 + OUTLIER_BAND / 2 : x(/** @type {number} */ (c.peak_mib)));
  root.append(axisLeft(y, { x: x0, gridRight: x1, title: t('step time (ms)'), palette, format: num, titleOffset: 56 }));
  root.append(axisBottom(x, { y: bottom, gridTop: top, title: t('largest stage peak memory (MiB)'), palette, format: num, count: Math.max(3, Math.round((x1 - x0) / 100)) }));

  if (limit !== undefined && limit > 0) {
    const lx = x(limit);
    root.append(s('line', { x1: lx, x2: lx, y1: top, y2: bottom, stroke: palette.limit, 'stroke-width': 1.5, 'stroke-dasharray': '6 4' }));
    root.append(text(lx - 4, top + 12, t('limit {limit}', { limit: mib(limit) }), { 'text-anchor': 'end', 'font-size': 10.5, 'font-weight': 600, fill: palette.limit }));
  }

  const front = new Set(result.pareto);
  const frontPoints = points.filter(({ index }) => front.has(index)).sort((p, q) => /** @type {number} */ (p.c.peak_mib) - /** @type {number} */ (q.c.peak_mib));
  if (frontPoints.length > 1) {
    let d = '';
    frontPoints.forEach(({ c }, i) => {
      const px = xOf(c);
      const py = y(/** @type {number} */ (c.step_time_ms));
      d += i === 0 ? `M${px.toFixed(1)} ${py.toFixed(1)}` : `H${px.toFixed(1)}V${py.toFixed(1)}`;
    });
    root.append(s('path', { d, fill: 'none', stroke: palette.front, 'stroke-width': 1.5, 'stroke-opacity': 0.7, class: 'pareto-front' }));
  }

  if (outliers.length > 0) {
    // The break in the axis, and the band's value: the largest peak off the scale.
    const band = x1 + OUTLIER_BAND / 2;
    root.append(s('path', { d: `M${x1 + 4} ${bottom + 5}l6 -10m2 10l6 -10`, stroke: palette.muted, 'stroke-width': 1.25, fill: 'none', class: 'axis-break' }));
    const largest = Math.max(...outliers.map(({ c }) => /** @type {number} */ (c.peak_mib)));
    root.append(text(band, bottom + 18, t('up to {memory}', { memory: mib(largest) }), { 'text-anchor': 'end', 'font-size': 10, fill: palette.muted, class: 'outlier-value' }));
  }
  const dots = s('g', { class: 'points' });
  // The Pareto front last, on top of the points it dominates.
  const ordered = [...points.filter(({ index }) => !front.has(index)), ...points.filter(({ index }) => front.has(index))];
  for (const { c, index } of ordered) {
    const px = xOf(c);
    const py = y(/** @type {number} */ (c.step_time_ms));
    const onFront = front.has(index);
    const tip = [candidateLabel(c), t('step time {time}', { time: ms(/** @type {number} */ (c.step_time_ms)) }),
      t('peak: {memory}', { memory: mib(/** @type {number} */ (c.peak_mib)) })];
    if (c.bubble_fraction !== null && c.bubble_fraction !== undefined) tip.push(t('bubble {share}', { share: percent(c.bubble_fraction) }));
    if (!c.feasible) tip.push(t('infeasible'), ...(c.reasons ?? []).slice(0, 3).map((reason) => engineSentence(reason).text));
    if (onFront) tip.push(t('on the Pareto front'));
    tip.push(t('click to open this plan'));
    const attributes = { class: `point${onFront ? ' front' : ''}${c.feasible ? '' : ' infeasible'}${c.peak_mib !== null && c.peak_mib >= beyond ? ' off-scale' : ''}`, 'data-index': index, 'data-tip': tip.join('\n'), tabindex: 0, role: 'button',
      'aria-label': `${candidateLabel(c)}, ${ms(/** @type {number} */ (c.step_time_ms))}, ${mib(/** @type {number} */ (c.peak_mib))}${c.feasible ? '' : t(', infeasible')}` };
    if (c.feasible) {
      dots.append(s('g', attributes, [
        s('circle', { cx: px, cy: py, r: 9, fill: 'transparent' }),
        s('circle', { cx: px, cy: py, r: onFront ? 5 : 4, fill: onFront ? palette.front : palette.otherStatic, stroke: palette.background, 'stroke-width': 1 }),
      ]));
    } else {
      dots.append(s('g', attributes, [
        s('circle', { cx: px, cy: py, r: 9, fill: 'transparent' }),
        s('path', { d: `M${px - 3.5} ${py - 3.5}l7 7m0 -7l-7 7`, stroke: palette.infeasible, 'stroke-width': 1.75 }),
      ]));
    }
    if (index === selected) dots.append(s('circle', { cx: px, cy: py, r: 9, fill: 'none', stroke: palette.highlight, 'stroke-width': 2, class: 'selected' }));
  }
  root.append(dots);
  root.append(legend([
    { label: t('Pareto front'), color: palette.front, kind: 'dot' },
    { label: t('feasible'), color: palette.otherStatic, kind: 'dot' },
    { label: t('does not fit in memory'), color: palette.infeasible, kind: 'cross' },
    { label: t('memory limit'), color: palette.limit, kind: 'dash' },
  ], { x: x0, y: height - 26, maxWidth: x1 - x0, palette }).node);
  return root;
}

/**
 * The index of the candidate whose point is nearest to a pointer, within 14 chart pixels, or null.
 * @param {SVGSVGElement} svg the drawn scatter
 * @param {number} clientX
 * @param {number} clientY
 * @returns {number | null}
 */
export function nearestPoint(svg, clientX, clientY) {
  const rect = svg.getBoundingClientRect();
  const scale = Number(svg.getAttribute('width')) / (rect.width || 1);
  const px = (clientX - rect.left) * scale;
  const py = (clientY - rect.top) * scale;
  let best = null;
  let bestDistance = 14;
  for (const point of svg.querySelectorAll('.point[data-index]')) {
    const centre = point.querySelector('circle');
    if (!centre) continue;
    const d = Math.hypot(Number(centre.getAttribute('cx')) - px, Number(centre.getAttribute('cy')) - py);
    if (d < bestDistance) {
      bestDistance = d;
      best = Number(point.getAttribute('data-index'));
    }
  }
  return best;
}
