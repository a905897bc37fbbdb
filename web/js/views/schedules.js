// Schedules side by side (the engine's `compare` command, docs/contract.md "Compare result"): the plan shown under
// every schedule, as a table (step, span, both bubbles, largest peak against the limit, fits; a schedule that
// cannot run says why in the engine's words) and as small multiples (one bar per schedule for step time, span and
// largest peak, the limit drawn on the peaks). Rows and bars of schedules that run open that schedule.

/** @import {CompareResult, CompareRow} from '../types.js' */
/** @import {Palette} from '../theme.js' */
import { activates, el } from '../dom.js';
import { s, text, textWidth, chartRoot, legend, legendHeight } from '../svg.js';
import { num, percent, count } from '../format.js';
import { t } from '../i18n.js';
import { textOn } from '../theme.js';

/** @param {number | null | undefined} v @param {(v: number) => string} [format] */
const orDash = (v, format = num) => (typeof v === 'number' && Number.isFinite(v) ? format(v) : '–');

/**
 * The schedule's name as the engine writes it, with its chunk count when it runs more than one.
 * @param {CompareRow} row
 * @returns {HTMLElement}
 */
const nameCell = (row) => el('span', {}, [el('code', { text: row.schedule }), row.vpp_degree > 1 ? ` · vpp ${row.vpp_degree}` : '']);

/**
 * @typedef {{current: {schedule: string, vpp: number} | null, onOpen: (row: CompareRow) => void}} TableOptions
 *   current: the schedule and chunk count of the plan shown (its row is marked)
 */

/**
 * Whether a row is the plan shown.
 * @param {CompareRow} row
 * @param {{schedule: string, vpp: number} | null} current
 */
const isCurrent = (row, current) => current !== null && row.schedule === current.schedule && row.vpp_degree === current.vpp;

/**
 * The marks of a row: fastest by step time, fastest by span, the plan shown.
 * @param {CompareResult} result
 * @param {CompareRow} row
 */
function marks(result, row) {
  const list = [];
  if (result.fastest === row.schedule) list.push(t('fastest step'));
  if (result.fastest_by_span === row.schedule && result.fastest_by_span !== result.fastest) list.push(t('fastest span'));
  // Balanced, each row's plan is PPB's: proven the fastest that fits, or the best the work budget found.
  if (result.plans === 'balanced' && row.runs) list.push(row.proven_optimal ? t('proven') : t('not proven'));
  return list.join(t(', '));
}

/**
 * @param {CompareResult} result
 * @param {TableOptions} options
 * @returns {HTMLElement}
 */
export function renderScheduleTable(result, { current, onOpen }) {
  const columns = [
    { key: 'schedule', label: 'schedule' },
    { key: 'step_time_ms', label: 'step time ms' },
    { key: 'span_ms', label: 'span ms' },
    { key: 'bubble_fraction', label: 'bubble' },
    { key: 'bubble_span_fraction', label: 'span bubble' },
    { key: 'peak_mib', label: 'largest peak MiB' },
    { key: 'feasible', label: 'fits' },
    { key: 'marks', label: 'best' },
  ];
  const head = el('tr', {}, columns.map((c) => el('th', { text: t(c.label), attrs: { scope: 'col' } })));
  const rows = result.schedules.map((row) => {
    const shown = isCurrent(row, current);
    /** @param {string} field @param {number | null} value @param {(v: number) => string} [format] */
    const figure = (field, value, format) => el('td', { text: orDash(value, format), data: { field },
      attrs: { 'data-value': typeof value === 'number' ? String(value) : null } });
    const cells = row.runs
      ? [
        figure('step_time_ms', row.step_time_ms),
        figure('span_ms', row.span_ms),
        figure('bubble_fraction', row.bubble_fraction, percent),
        figure('bubble_span_fraction', row.bubble_span_fraction, percent),
        el('td', { data: { field: 'peak_mib' }, attrs: { 'data-value': row.peak_mib === null ? null : String(row.peak_mib) },
          text: row.peak_mib === null ? '–' : t('{peak} (stage {s})', { peak: num(row.peak_mib), s: row.peak_stage ?? '–' }) }),
        el('td', { data: { field: 'feasible' }, text: row.feasible ? t('yes') : t('no'), class: row.feasible ? 'good' : 'bad' }),
        el('td', { data: { field: 'marks' }, text: marks(result, row) }),
      ]
      : [el('td', { class: 'cannot-run', data: { field: 'problems' }, attrs: { colspan: columns.length - 1 } }, [
        el('span', { class: 'cannot-run-label', text: t('cannot run: ') }),
        // The engine's sentences: English, marked so.
        el('span', { text: row.problems.map((p) => p.message).join(' '), attrs: { lang: 'en' } }),
      ])];
    const open = () => onOpen(row);
    return el('tr', {
      class: [row.runs ? 'runs' : 'cannot', shown ? 'selected' : ''].join(' ').trim(),
      data: { schedule: row.schedule, vpp: row.vpp_degree },
      attrs: row.runs
        ? { tabindex: 0, title: shown ? t('The plan shown') : t('Show the plan with this schedule'), 'aria-current': shown ? 'true' : null }
        : { 'aria-disabled': 'true' },
      on: row.runs ? activates(open) : {},
    }, [el('th', { attrs: { scope: 'row' } }, [nameCell(row)]), ...cells]);
  });
  const balanced = result.plans === 'balanced';
  const partitionNote = !balanced && result.schedules.some((row) => row.runs && !row.partition_as_given)
    ? t(' · * the even split: the plan\'s partition has another number of virtual stages') : '';
  for (const [i, row] of result.schedules.entries()) {
    if (!balanced && row.runs && !row.partition_as_given) rows[i].querySelector('th')?.append(el('span', { class: 'muted', text: ' *' }));
  }
  const caption = balanced
    ? t('Each schedule at its best (PPB) · click a row to show its plan')
    : t('The plan shown under every schedule · click a row to show it{note}', { note: partitionNote });
  return el('table', { class: 'schedule-table', attrs: { id: 'schedule-table' } }, [
    el('caption', { text: caption }),
    el('thead', {}, [head]),
    el('tbody', {}, rows),
  ]);
}

/** Row height and gaps of the small multiples. */
const ROW = 20;
const PANEL_GAP = 18;
const LABEL_WIDTH = 96;
const TITLE_HEIGHT = 22;

/**
 * The small multiples: per measure (step time, span, largest peak) a panel with one bar per schedule on a shared
 * scale from 0; the memory limit as a line on the peaks; a schedule that cannot run is named, without bars.
 * @param {CompareResult} result
 * @param {{width: number, palette: Palette, limit?: number, current: {schedule: string, vpp: number} | null}} options
 * @returns {SVGSVGElement}
 */
export function renderScheduleBars(result, { width, palette, limit, current }) {
  const rows = result.schedules;
  const columns = width >= 640 ? 3 : 1;
  // Wide enough for the longest schedule name (interleaved_zero_bubble).
  const nameWidth = Math.max(LABEL_WIDTH, ...rows.map((row) => textWidth(row.schedule, 11, 700)));
  const panelWidth = (width - nameWidth - 12 - PANEL_GAP * (columns - 1)) / columns;
  const panelHeight = TITLE_HEIGHT + rows.length * ROW + 6;
  const legendItems = [
    { label: t('fits'), color: palette.forward },
    { label: t('over the limit'), color: palette.over },
    ...(limit ? [{ label: t('memory limit'), color: palette.limit, kind: /** @type {const} */ ('dash') }] : []),
  ];
  const legendSpace = legendHeight(legendItems, width - 24);
  const panels = /** @type {const} */ ([
    { key: 'step_time_ms', title: t('step time (ms)'), unit: 'ms' },
    { key: 'span_ms', title: t('span (ms)'), unit: 'ms' },
    { key: 'peak_mib', title: t('largest peak (MiB)'), unit: 'MiB' },
  ]);
  const panelRows = Math.ceil(panels.length / columns);
  const height = 8 + panelRows * (panelHeight + 10) + legendSpace + 8;
  const root = chartRoot({ id: 'schedules', width, height, palette,
    label: t('Schedules side by side: step time, span and largest peak per schedule') });
  panels.forEach((panel, p) => {
    const column = p % columns;
    const top = 8 + Math.floor(p / columns) * (panelHeight + 10);
    const x0 = nameWidth + 12 + column * (panelWidth + PANEL_GAP);
    const values = rows.map((row) => row[panel.key]);
    const extent = Math.max(...values.map((v) => (typeof v === 'number' ? v : 0)), panel.key === 'peak_mib' && limit ? limit : 0);
    const scale = (/** @type {number} */ v) => (extent > 0 ? (v / extent) * panelWidth : 0);
    const g = s('g', { class: 'panel', 'data-measure': panel.key });
    g.append(text(x0, top + 14, panel.title, { 'font-size': 12, 'font-weight': 600, fill: palette.text }));
    rows.forEach((row, i) => {
      const y = top + TITLE_HEIGHT + i * ROW;
      const shown = isCurrent(row, current);
      // Schedule names on the left of every panel in the first column.
      if (column === 0) {
        g.append(text(x0 - 8, y + ROW / 2 + 4, row.schedule, { 'text-anchor': 'end', 'font-size': 11, 'font-weight': shown ? 700 : 400,
          fill: row.runs ? palette.text : palette.muted, translate: 'no' }));
      }
      const value = row[panel.key];
      if (!row.runs || typeof value !== 'number') {
        g.append(text(x0 + 2, y + ROW / 2 + 4, t('cannot run'), { 'font-size': 10, fill: palette.muted, 'font-style': 'italic' }));
        return;
      }
      const w = Math.max(1, scale(value));
      const fill = row.feasible ? palette.forward : palette.over;
      g.append(s('rect', { x: x0, y: y + 3, width: w, height: ROW - 6, fill, class: 'bar', 'data-schedule': row.schedule,
        'data-value': String(value), stroke: shown ? palette.highlight : 'none', 'stroke-width': shown ? 2 : 0 }));
      const label = num(value);
      const labelWidth = textWidth(label, 10);
      if (w + 4 + labelWidth <= panelWidth) {
        g.append(text(x0 + w + 4, y + ROW / 2 + 4, label, { 'font-size': 10, fill: palette.text }));
      } else if (labelWidth + 6 <= w) {
        g.append(text(x0 + w - 4, y + ROW / 2 + 4, label, { 'font-size': 10, 'text-anchor': 'end', fill: textOn(fill) }));
      }
    });
    if (panel.key === 'peak_mib' && limit) {
      const lx = x0 + scale(limit);
      g.append(s('line', { x1: lx, x2: lx, y1: top + TITLE_HEIGHT - 2, y2: top + TITLE_HEIGHT + rows.length * ROW, stroke: palette.limit,
        'stroke-width': 1.5, 'stroke-dasharray': '4 3', class: 'limit-line' }));
    }
    root.append(g);
  });
  root.append(legend(legendItems, { x: 12, y: height - legendSpace - 2, maxWidth: width - 24, palette }).node);
  return root;
}

/**
 * A translated sentence with schedule names put in as code (names are not translated).
 * @param {string} template
 * @param {Record<string, string>} names placeholders filled with a schedule name
 * @param {Record<string, string | number>} [values] other placeholders
 * @returns {(string | HTMLElement)[]}
 */
function withNames(template, names, values = {}) {
  const marks = Object.fromEntries(Object.keys(names).map((key, i) => [key, `\u0000${i}\u0000`]));
  const sentence = t(template, { ...values, ...marks });
  const keys = Object.keys(names);
  return sentence.split('\u0000').map((part, i) => (i % 2 === 1 ? el('code', { text: names[keys[Number(part)]] }) : part)).filter((part) => part !== '');
}

/**
 * One sentence over the table: which schedule fits and is fastest, and how many cannot run.
 * @param {CompareResult} result
 * @returns {HTMLElement}
 */
export function renderScheduleVerdict(result) {
  const cannot = result.schedules.filter((row) => !row.runs).length;
  const rest = cannot > 0 ? t(' {n} cannot run with these settings.', { n: count(cannot) }) : '';
  /** @type {(string | HTMLElement)[]} */
  let parts;
  if (!result.fastest) {
    parts = [result.plans === 'balanced' ? t('No schedule has a plan that fits the memory limit.') : t('No schedule fits the memory limit with this plan.'), rest];
  } else {
    const fastest = result.schedules.find((row) => row.schedule === result.fastest);
    parts = withNames('Fastest that fits: {name}, {time} per step.', { name: result.fastest }, { time: `${orDash(fastest?.step_time_ms)} ms` });
    if (result.fastest_by_span && result.fastest_by_span !== result.fastest) {
      parts.push(...withNames(' By span (when steps overlap), {name} is.', { name: result.fastest_by_span }));
    }
    parts.push(rest);
  }
  return el('p', { class: 'schedule-verdict', attrs: { id: 'schedule-verdict' } }, parts);
}
