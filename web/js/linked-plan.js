// A balanced plan as a link carries it: the PPB plan shown, stated exactly (layers per virtual stage, each recompute
// option's layers, the pipeline's shape as the engine ran it), so that opening the link estimates that plan at once
// instead of balancing again, and shows the same plan and figures whatever machine opens it. Recompute layers travel
// as inclusive runs ([first, last]), which keeps a link short: a balance recomputes runs of neighbouring layers.

/** @import {EstimateResult, LinkedPlan} from './types.js' */

/** Most layers (and runs) a linked plan may state: the engine's own layer limit is far below. */
const MAX_ENTRIES = 1_000_000;

/**
 * Sorted layer indices as inclusive runs: [0, 1, 2, 5] -> [[0, 2], [5, 5]].
 * @param {number[]} layers
 * @returns {[number, number][]}
 */
export function toRuns(layers) {
  /** @type {[number, number][]} */
  const runs = [];
  for (const layer of [...layers].sort((a, b) => a - b)) {
    const last = runs.at(-1);
    if (last && layer <= last[1] + 1) last[1] = Math.max(last[1], layer);
    else runs.push([layer, layer]);
  }
  return runs;
}

/**
 * Inclusive runs back as layer indices.
 * @param {[number, number][]} runs
 * @returns {number[]}
 */
export function fromRuns(runs) {
  /** @type {number[]} */
  const layers = [];
  for (const [first, last] of runs) for (let layer = first; layer <= last; ++layer) layers.push(layer);
  return layers;
}

/**
 * The linked form of a balance's plan (its estimate result).
 * @param {EstimateResult} result
 * @returns {LinkedPlan}
 */
export function linkedPlan(result) {
  /** @type {Record<string, [number, number][]>} */
  const recompute = {};
  for (const [option, layers] of Object.entries(result.layer_recompute ?? {})) {
    if (layers.length > 0) recompute[option] = toRuns(layers);
  }
  const method = result.method;
  return {
    pp: result.pp_degree ?? result.stages.length, vpp: result.vpp_degree ?? 1, m: result.micro_batch_num ?? 1,
    schedule: result.schedule ?? '1f1b', layers: result.stage_layers, recompute,
    proven: method?.proven_optimal === true,
    within: typeof method?.within_tolerance === 'number' ? method.within_tolerance : null,
  };
}

/**
 * The request's pipeline section that states a linked plan exactly (the settings give training and device).
 * @param {LinkedPlan} plan
 * @returns {Record<string, any>}
 */
export function linkedPipeline(plan) {
  /** @type {Record<string, any>} */
  const pipeline = { pp_degree: plan.pp, vpp_degree: plan.vpp, micro_batch_num: plan.m, schedule: plan.schedule,
    stage_layers: plan.layers };
  const options = Object.entries(plan.recompute);
  if (options.length > 0) pipeline.recompute = { layers: Object.fromEntries(options.map(([option, runs]) => [option, fromRuns(runs)])) };
  return pipeline;
}

/**
 * @param {unknown} value
 * @returns {value is number}
 */
const count = (value) => Number.isInteger(value) && /** @type {number} */ (value) >= 0 && /** @type {number} */ (value) <= MAX_ENTRIES;

/**
 * Reads a linked plan from an untrusted value (a link, a state file): null unless every field has its type. The
 * engine checks the plan itself against the model, as any request.
 * @param {unknown} raw
 * @returns {LinkedPlan | null}
 */
export function readLinkedPlan(raw) {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const p = /** @type {Record<string, unknown>} */ (raw);
  if (!count(p.pp) || !count(p.vpp) || !count(p.m) || typeof p.schedule !== 'string' || p.schedule.length > 100) return null;
  if (!Array.isArray(p.layers) || p.layers.length > MAX_ENTRIES || !p.layers.every(count)) return null;
  if (typeof p.recompute !== 'object' || p.recompute === null || Array.isArray(p.recompute)) return null;
  /** @type {Record<string, [number, number][]>} */
  const recompute = {};
  let total = 0;
  for (const [option, runs] of Object.entries(p.recompute)) {
    if (option.length > 200 || !Array.isArray(runs)) return null;
    for (const run of runs) {
      if (!Array.isArray(run) || run.length !== 2 || !count(run[0]) || !count(run[1]) || run[1] < run[0]) return null;
      total += run[1] - run[0] + 1;
      if (total > MAX_ENTRIES) return null;
    }
    recompute[option] = /** @type {[number, number][]} */ (runs.map((run) => [run[0], run[1]]));
  }
  return { pp: p.pp, vpp: p.vpp, m: p.m, schedule: p.schedule, layers: p.layers, recompute, proven: p.proven === true,
    within: typeof p.within === 'number' && Number.isFinite(p.within) ? p.within : null };
}
