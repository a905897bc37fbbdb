// The ranked table of a search: sortable by any column, each row opens its plan in the views; below it the
// reasons of the infeasible candidates, grouped.

/** @import {SearchResult, SearchCandidate} from '../types.js' */
import { t } from '../i18n.js';
import { engineSentence } from '../engine-text.js';
import { activates, el } from '../dom.js';
import { num, percent, count, signed } from '../format.js';
import { finite } from './summary.js';

/**
 * @typedef {{key: string, label: string, value: (c: SearchCandidate, index: number) => number | string | null,
 *            show?: (c: SearchCandidate, index: number) => string, more?: boolean}} Column
 *   more: shown only when the person asks for every column (the table fits 1280 px without them)
 */

/** @param {number | null | undefined} v @param {(v: number) => string} [format] */
const orDash = (v, format = num) => (typeof v === 'number' && Number.isFinite(v) ? format(v) : '–');

/**
 * The gain over the even split, only where the even split fits (else the comparison means nothing).
 * @param {SearchCandidate} c
 */
function gainText(c) {
  if (!c.plan) return '–';
  if (typeof c.gain_ms === 'number') return signed(c.gain_ms, (v) => `${num(v)} ms`);
  // The engine gives no gain where it would mean nothing, and says why (gain_note).
  if (c.even_split?.feasible === false) return t('even split does not fit');
  if (c.gain_note) return t('even split leaves a virtual stage empty');
  return '–';
}

/**
 * A candidate's throughput figures (the engine's `throughput`), each null where the engine gives none.
 * @param {SearchCandidate} c
 */
const samplesPerS = (c) => finite(c.throughput?.samples_per_s) ?? finite(c.throughput_samples_per_s);
/** @param {SearchCandidate} c */
const mfuOf = (c) => finite(c.throughput?.mfu);
/** @param {SearchCandidate} c */
const tokensOf = (c) => finite(c.throughput?.tokens_per_s_per_device);

/**
 * Whether a candidate fits: no, yes, or yes but within the device's memory margin (the engine's `tight`).
 * @param {SearchCandidate} c
 */
const fitsText = (c) => t(!c.feasible ? 'no' : c.tight === true ? 'yes, tight' : 'yes');

/** @type {Column[]} */
const COLUMNS = [
  { key: 'rank', label: '#', value: (_, i) => i + 1 },
  { key: 'pp_degree', label: 'pp', value: (c) => c.pp_degree },
  { key: 'vpp_degree', label: 'vpp', value: (c) => c.vpp_degree },
  { key: 'dp_degree', label: 'dp', value: (c) => c.dp_degree ?? null },
  { key: 'micro_batch_num', label: 'micro batches', value: (c) => c.micro_batch_num },
  { key: 'schedule', label: 'schedule', value: (c) => c.schedule },
  { key: 'throughput_samples_per_s', label: 'samples / s', value: samplesPerS, show: (c) => orDash(samplesPerS(c)) },
  { key: 'mfu', label: 'MFU', value: mfuOf, show: (c) => orDash(mfuOf(c), percent) },
  { key: 'tokens_per_s_per_device', label: 'tokens / s / device', value: tokensOf, show: (c) => orDash(tokensOf(c)), more: true },
  { key: 'time_per_sample_ms', label: 'ms / sample', value: (c) => c.time_per_sample_ms ?? null, show: (c) => orDash(c.time_per_sample_ms), more: true },
  { key: 'step_time_ms', label: 'step time ms', value: (c) => c.step_time_ms, show: (c) => orDash(c.step_time_ms) },
  { key: 'peak_mib', label: 'peak MiB', value: (c) => c.peak_mib, show: (c) => orDash(c.peak_mib) },
  { key: 'bubble_fraction', label: 'bubble', value: (c) => c.bubble_fraction, show: (c) => orDash(c.bubble_fraction, percent), more: true },
  { key: 'gain_ms', label: 'faster than even split', value: (c) => c.gain_ms ?? null, show: gainText, more: true },
  { key: 'feasible', label: 'fits', value: (c) => (c.feasible ? 1 : 0), show: fitsText },
];

/**
 * @typedef {{key: string, descending: boolean}} Sort
 */

/**
 * Candidate indices in the order of the sort (stable: ties keep the engine's ranking). Missing values sort last.
 * @param {SearchResult} result
 * @param {Sort} sort
 * @returns {number[]}
 */
export function sortedIndices(result, sort) {
  const column = COLUMNS.find((c) => c.key === sort.key) ?? COLUMNS[0];
  const indices = result.candidates.map((_, i) => i);
  return indices.sort((a, b) => {
    const va = column.value(result.candidates[a], a);
    const vb = column.value(result.candidates[b], b);
    if (va === vb) return a - b;
    if (va === null) return 1;
    if (vb === null) return -1;
    const order = va < vb ? -1 : 1;
    return sort.descending ? -order : order;
  });
}

/**
 * @param {SearchResult} result
 * @param {{sort: Sort, selected: number | null, onSort: (sort: Sort) => void, onOpen: (index: number) => void,
 *          allColumns?: boolean}} options allColumns: the columns that can go (tokens per device, time per sample,
 *   bubble, the gain) shown too; else they are hidden (still in the table, for automation and screen readers' tables)
 * @returns {HTMLElement}
 */
export function renderSearchTable(result, { sort, selected, onSort, onOpen, allColumns = false }) {
  const front = new Set(result.pareto);
  const head = el('tr', {}, COLUMNS.map((column) => {
    const active = sort.key === column.key;
    return el('th', { class: column.more ? 'more-column' : undefined, attrs: { scope: 'col', 'aria-sort': active ? (sort.descending ? 'descending' : 'ascending') : 'none' } }, [
      el('button', { class: 'sort', text: t(column.label) + (active ? (sort.descending ? ' ▾' : ' ▴') : ''), attrs: { type: 'button' },
        on: { click: () => onSort({ key: column.key, descending: active ? !sort.descending : false }) } }),
    ]);
  }));
  const rows = sortedIndices(result, sort).map((index) => {
    const c = result.candidates[index];
    const open = () => onOpen(index);
    return el('tr', {
      class: [c.feasible ? '' : 'infeasible', c.feasible && c.tight === true ? 'tight' : '', front.has(index) ? 'front' : '',
        index === selected ? 'selected' : ''].join(' ').trim(),
      data: { index },
      attrs: { tabindex: 0, title: c.feasible ? t('Open this plan in the views') : (c.reasons ?? []).map((r) => engineSentence(r).text).join(' '),
        // The reasons are the engine's sentences (in Chinese where js/lang/zh-engine.js knows them).
        'data-title-from': c.feasible ? null : 'engine', 'aria-selected': index === selected },
      on: activates(open),
    }, COLUMNS.map((column) => {
      const text = column.show ? column.show(c, index) : String(column.value(c, index) ?? '–');
      const raw = column.value(c, index);
      // The engine's note on a missing gain (English, as the row's reasons are).
      const note = column.key === 'gain_ms' && typeof c.gain_note === 'string' ? engineSentence(c.gain_note).text : null;
      const tight = column.key === 'feasible' && c.feasible && c.tight === true;
      return el('td', { class: column.more ? 'more-column' : undefined, text: column.key === 'rank' && front.has(index) ? `${text} ◆` : text, data: { field: column.key },
        attrs: { 'data-value': typeof raw === 'number' ? String(raw) : null,
          title: note ?? (tight ? t('Fits, but its peak is within the device\'s memory margin: fragmentation may tip it over.') : null),
          'data-title-from': note ? 'engine' : null } });
    }));
  });
  return el('table', { class: allColumns ? 'search-table all-columns' : 'search-table', attrs: { id: 'search-table' } }, [
    el('caption', { text: t('{n} candidates · ◆ on the Pareto front · click a row to open its plan', { n: count(result.candidates.length) }) }),
    el('thead', {}, [head]),
    el('tbody', {}, rows),
  ]);
}

/**
 * The infeasible candidates' reasons, grouped (the engine's groups, or counted here from the reasons).
 * @param {SearchResult} result
 * @returns {HTMLElement}
 */
export function renderInfeasibleGroups(result) {
  const skipped = (result.skipped_groups ?? []).map((g) => ({ reason: g.reason, count: g.count, skipped: true }));
  let groups = result.infeasible_groups;
  if (!groups) {
    /** @type {Map<string, number>} */
    const counts = new Map();
    for (const c of result.candidates) for (const reason of c.reasons ?? []) counts.set(reason, (counts.get(reason) ?? 0) + 1);
    groups = [...counts].map(([reason, n]) => ({ reason, count: n })).sort((a, b) => b.count - a.count);
  }
  /** @type {{reason: string, count: number, skipped?: boolean}[]} */
  const all = [...groups, ...skipped];
  if (all.length === 0) return el('p', { class: 'muted', text: t('Every combination was evaluated and fits in memory.') });
  return el('ul', { class: 'reasons', attrs: { id: 'infeasible-groups' } }, all.map((g) => {
    // The reasons are the engine's sentences: in Chinese where known, else English, marked so.
    const reason = engineSentence(g.reason);
    return el('li', {}, [el('span', { class: 'reason-count', text: count(g.count) }),
      g.skipped ? el('span', { text: t('skipped: ') }) : null, el('span', { text: reason.text, attrs: { lang: reason.lang } })]);
  }));
}

/**
 * @param {SearchCandidate} c
 * @param {number} index
 */
const short = (c, index) => t('#{k} (pp {pp}{vpp}, {schedule}, {m} micro batches)', { k: index + 1, pp: c.pp_degree,
  vpp: c.vpp_degree > 1 ? `, vpp ${c.vpp_degree}` : '', schedule: c.schedule, m: count(c.micro_batch_num) });

/**
 * Why the top row wins and how far the next is, from the engine's figures of both: the ranked measure (throughput
 * on a cluster, time per sample without one), then step time, bubble and memory headroom side by side.
 * @param {SearchResult} result
 * @param {{limit?: number}} options the memory limit, for the headroom
 * @returns {HTMLElement}
 */
export function renderVerdict(result, { limit }) {
  const feasible = result.candidates.map((c, i) => ({ c, i })).filter(({ c }) => c.feasible && c.step_time_ms !== null);
  if (feasible.length === 0) {
    return el('p', { class: 'search-verdict bad', attrs: { id: 'search-verdict' }, text: t('No candidate fits in memory: the reasons are listed below the table.') });
  }
  const perSample = result.rank_by === 'time_per_sample';
  // The engine's winner and runner-up (result.best) where it says; else the first two that fit.
  const best = result.best;
  const top = best ? { c: result.candidates[best.candidate], i: best.candidate } : feasible[0];
  const next = best ? (best.runner_up !== null ? { c: result.candidates[best.runner_up], i: best.runner_up } : undefined) : feasible[1];
  const c = top.c;
  const rate = samplesPerS(c);
  const measure = perSample || rate === null
    ? t('{v} ms per sample', { v: orDash(c.time_per_sample_ms) })
    : t('{v} samples/s', { v: num(rate) });
  const headroom = (/** @type {SearchCandidate} */ x) => (limit && x.peak_mib !== null ? t(', {p} memory headroom', { p: percent((limit - x.peak_mib) / limit, 0) }) : '');
  const figures = (/** @type {SearchCandidate} */ x) => t('step {s} ms, bubble {b}, peak {p} MiB{h}', { s: num(x.step_time_ms ?? NaN),
    b: orDash(x.bubble_fraction, percent), p: orDash(x.peak_mib), h: headroom(x) });
  const tie = best?.tie === true;
  const what = t(perSample ? 'time per sample' : 'throughput');
  // In a tie (the engine's: candidates within its uncertainty of the fastest) the first is the simpler plan, which
  // may be a little slower than the next: the verdict says so rather than calling it faster.
  const lines = [tie
    ? t('{who} is listed first of {n} candidates tied by {what}: {measure}; {figures}.', { who: short(c, top.i), n: count(best?.tied ?? 2), what,
      measure, figures: figures(c) })
    : t('{who} ranks first by {what}: {measure}; {figures}.', { who: short(c, top.i), what, measure, figures: figures(c) })];
  if (next) {
    const n = next.c;
    const nextRate = samplesPerS(n);
    const ahead = typeof best?.lead_fraction === 'number' ? best.lead_fraction
      : perSample || rate === null || nextRate === null
        ? ((n.time_per_sample_ms ?? NaN) / (c.time_per_sample_ms ?? NaN) - 1)
        : (rate / nextRate - 1);
    if (tie) {
      lines.push(t('Next: {who}: {figures}.', { who: short(n, next.i), figures: figures(n) }));
      lines.push(t('A tie: #{k} and #{m} differ by {diff}, within the estimate\'s uncertainty, so either may be faster in practice; #{k} is listed first as the simpler plan.',
        { k: top.i + 1, m: next.i + 1, diff: percent(Math.abs(ahead)) }));
    } else {
      const why = [];
      if ((c.bubble_fraction ?? 0) < (n.bubble_fraction ?? 0)) why.push(t('a smaller bubble'));
      if ((c.step_time_ms ?? 0) < (n.step_time_ms ?? 0)) why.push(t('a shorter step'));
      if (c.peak_mib !== null && n.peak_mib !== null && c.peak_mib < n.peak_mib) why.push(t('less memory'));
      lines.push(t('Next: {who}, {ahead} behind ({figures}){why}.', { who: short(n, next.i), ahead: percent(ahead), figures: figures(n),
        why: why.length ? t('; #{k} has {list}', { k: top.i + 1, list: why.join(t(', ')) }) : '' }));
    }
  } else {
    lines.push(t('It is the only candidate that fits in memory.'));
  }
  if (best?.tight === true) {
    lines.push(t('#{k} fits tightly: it leaves less than the device\'s memory margin free, which fragmentation alone may take.', { k: top.i + 1 }));
  }
  // Why it wins, in the engine's words (result.best.reasons: the measure and the lead, step time, bubble, headroom).
  const reasons = best?.reasons ?? [];
  return el('div', { class: `search-verdict${tie ? ' tie' : ''}`, attrs: { id: 'search-verdict' } }, [
    ...lines.map((text) => el('p', { text })),
    reasons.length > 0 ? el('ul', { class: 'search-best-reasons', attrs: { id: 'search-best-reasons' } },
      reasons.map((reason) => engineSentence(reason)).map(({ text, lang }) => el('li', { text, attrs: { lang } }))) : null,
  ]);
}

/** How many columns the table hides until asked for all. */
export const MORE_COLUMNS = COLUMNS.filter((column) => column.more).length;
