// The headline numbers of a plan: step time, bubble, largest peak memory against the limit, imbalance and
// feasibility, plus how the plan was made. HTML, with each number's exact value in data-value for automation.

/** @import {EstimateResult} from '../types.js' */
import { el } from '../dom.js';
import { ms, mib, num, percent, count } from '../format.js';

/**
 * @param {string} label
 * @param {string} value
 * @param {{field: string, raw?: number, note?: string, tone?: 'good' | 'bad' | ''}} options
 */
function metric(label, value, { field, raw, note, tone = '' }) {
  return el('div', { class: `metric ${tone}`.trim(), data: { field } }, [
    el('span', { class: 'metric-label', text: label }),
    el('output', { class: 'metric-value', text: value, attrs: { 'data-value': raw === undefined ? null : String(raw) } }),
    note ? el('span', { class: 'metric-note', text: note }) : null,
  ]);
}

/**
 * @param {EstimateResult} result
 * @param {{planLabel: string, samplesPerStep?: number}} context samplesPerStep: the global batch, when known
 * @returns {HTMLElement}
 */
export function renderSummary(result, { planLabel, samplesPerStep }) {
  const peak = Math.max(0, ...result.stages.map((st) => st.memory.peak_mib));
  const limit = result.stages[0]?.memory.limit_mib;
  const over = result.violations.length;
  const pp = result.stages.length;
  const shape = `pp ${result.pp_degree ?? pp} · vpp ${result.vpp_degree ?? 1} · ${count(result.micro_batch_num ?? 0)} micro batches · ${result.schedule ?? ''}`;
  const throughput = samplesPerStep && result.step_time_ms > 0 ? ` · ${num(samplesPerStep / (result.step_time_ms / 1000))} samples/s` : '';
  return el('div', { class: 'metrics' }, [
    metric('Step time', ms(result.step_time_ms), { field: 'step_time_ms', raw: result.step_time_ms, note: shape + throughput }),
    metric('Bubble', percent(result.bubble.fraction), { field: 'bubble_fraction', raw: result.bubble.fraction, note: 'idle share of all stages' }),
    metric('Largest peak memory', mib(peak), {
      field: 'peak_mib', raw: peak, tone: over ? 'bad' : '',
      note: limit !== undefined && limit > 0 ? `limit ${mib(limit)} (${percent(peak / limit, 0)})` : 'no memory limit set',
    }),
    metric('Imbalance', `${num(result.imbalance.max_over_mean)}×`, { field: 'imbalance', raw: result.imbalance.max_over_mean, note: `slowest stage over the mean; spread ${ms(result.imbalance.max_minus_min_ms)}` }),
    metric('Fits in memory', result.feasible ? 'yes' : `no, ${over} stage${over === 1 ? '' : 's'} over`, {
      field: 'feasible', tone: result.feasible ? 'good' : 'bad', note: planLabel,
    }),
  ]);
}
