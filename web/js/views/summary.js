// The headline numbers of a plan: step time, bubble, largest peak memory against the limit, imbalance, MFU and
// tokens per second per device where the engine knows them, and feasibility, plus how the plan was made; below
// them what the estimate leaves out. HTML, with each number's exact value in data-value for automation.

/** @import {EstimateResult} from '../types.js' */
import { el } from '../dom.js';
import { ms, mib, num, percent, count } from '../format.js';
import { t } from '../i18n.js';
import { engineSentence } from '../engine-text.js';

/**
 * @param {string} label
 * @param {string} value
 * @param {{field: string, raw?: number, note?: string | (Node | string)[], tone?: 'good' | 'bad' | ''}} options
 */
function metric(label, value, { field, raw, note, tone = '' }) {
  return el('div', { class: `metric ${tone}`.trim(), data: { field } }, [
    el('span', { class: 'metric-label', text: label }),
    el('output', { class: 'metric-value', text: value, attrs: { 'data-value': raw === undefined ? null : String(raw) } }),
    typeof note === 'string' ? el('span', { class: 'metric-note', text: note }) : note ? el('span', { class: 'metric-note' }, note) : null,
  ]);
}

/**
 * What the devices achieve: MFU as the figure, the tokens per second per device under it (one card, so that the
 * row of cards stays one row); either alone where the engine gives only that one; none when it gives neither.
 * @param {number | null} mfu
 * @param {number | null} tokens
 * @returns {HTMLElement[]}
 */
function deviceUse(mfu, tokens) {
  const tokensOut = tokens === null ? null
    : el('output', { text: num(tokens), data: { field: 'tokens_per_s_per_device' }, attrs: { 'data-value': String(tokens) } });
  if (mfu !== null) {
    return [metric(t('MFU'), percent(mfu), { field: 'mfu', raw: mfu, note: tokensOut
      ? [tokensOut, t(' tokens/s per device')]
      : t('model FLOPs (forward once, backward twice) over the devices\' peak') })];
  }
  if (tokensOut) return [metric(t('Tokens/s per device'), num(/** @type {number} */ (tokens)), { field: 'tokens_per_s_per_device', raw: /** @type {number} */ (tokens) })];
  return [];
}

/**
 * @param {EstimateResult} result
 * @param {{planLabel: string, samplesPerStep?: number, weightApart?: boolean}} context samplesPerStep: the global
 *   batch, when known; weightApart: the schedule runs B and W apart (the engine's schedule facts)
 * @returns {HTMLElement}
 */
export function renderSummary(result, { planLabel, samplesPerStep, weightApart = false }) {
  const peak = Math.max(0, ...result.stages.map((st) => st.memory.peak_mib));
  const limit = result.stages[0]?.memory.limit_mib;
  const over = result.violations.length;
  const pp = result.stages.length;
  const shape = t('pp {pp} · vpp {vpp} · {m} micro batches · {schedule}', { pp: result.pp_degree ?? pp, vpp: result.vpp_degree ?? 1,
    m: count(result.micro_batch_num ?? 0), schedule: result.schedule ?? '' });
  // Samples per second of the whole job, so only where the batch sizes (with dp) make the step: the engine's figure,
  // else the global batch over the step time. Without dp the engine's is one pipeline's, which would mislead here.
  const samples = !samplesPerStep ? null : finite(result.throughput?.samples_per_s)
    ?? (result.step_time_ms > 0 ? samplesPerStep / (result.step_time_ms / 1000) : null);
  const throughput = samples !== null ? t(' · {rate} samples/s', { rate: num(samples) }) : '';
  const mfu = finite(result.throughput?.mfu);
  const tokens = finite(result.throughput?.tokens_per_s_per_device);
  return el('div', { class: 'metrics' }, [
    metric(t('Step time'), ms(result.step_time_ms), { field: 'step_time_ms', raw: result.step_time_ms, note: shape + throughput }),
    metric(t('Bubble'), percent(result.bubble.fraction), { field: 'bubble_fraction', raw: result.bubble.fraction, note: t('idle share of all stages') }),
    // Where B and W run apart, a step's last Ws overlap the next step's first forwards: the span (the longest stage's
    // first to last operation) is the iteration time, and the zero-bubble paper's bubble rate is measured on it.
    ...(weightApart && typeof result.span_ms === 'number' ? [
      metric(t('Span'), ms(result.span_ms), { field: 'span_ms', raw: result.span_ms, note: t('the iteration time when steps overlap') }),
      metric(t('Span bubble'), percent(result.bubble.span_fraction ?? NaN), { field: 'bubble_span_fraction', raw: result.bubble.span_fraction,
        note: t('(span − the busiest stage\'s busy time) / span') }),
    ] : []),
    metric(t('Largest peak memory'), mib(peak), {
      field: 'peak_mib', raw: peak, tone: over ? 'bad' : '',
      note: limit !== undefined && limit > 0 ? t('limit {limit} ({share})', { limit: mib(limit), share: percent(peak / limit, 0) }) : t('no memory limit set'),
    }),
    metric(t('Imbalance'), `${num(result.imbalance.max_over_mean)}×`, { field: 'imbalance', raw: result.imbalance.max_over_mean,
      note: t('slowest stage over the mean; spread {spread}', { spread: ms(result.imbalance.max_minus_min_ms) }) }),
    ...deviceUse(mfu, tokens),
    metric(t('Fits in memory'), result.feasible ? t('yes') : t(over === 1 ? 'no, {n} stage over' : 'no, {n} stages over', { n: over }), {
      field: 'feasible', tone: result.feasible ? 'good' : 'bad', note: planLabel,
    }),
  ]);
}

/**
 * A number the engine gave, or null for one it did not (absent, null, not finite).
 * @param {unknown} value
 * @returns {number | null}
 */
export const finite = (value) => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/**
 * What the estimate leaves out, in the engine's sentences (js/engine-text.js), as a short list; null when the
 * engine names nothing.
 * @param {unknown} caveats the result's `caveats`
 * @param {string} id
 * @returns {HTMLElement | null}
 */
export function renderCaveats(caveats, id) {
  const sentences = Array.isArray(caveats) ? caveats.filter((c) => typeof c === 'string' && c.trim() !== '') : [];
  if (sentences.length === 0) return null;
  return el('div', { class: 'caveats', attrs: { id } }, [
    el('p', { class: 'caveats-title', text: t('What the estimate leaves out') }),
    el('ul', {}, sentences.map((sentence) => engineSentence(sentence)).map(({ text, lang }) => el('li', { text, attrs: { lang } }))),
  ]);
}
