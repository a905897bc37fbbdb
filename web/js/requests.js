// The engine requests the state makes, in the contract's shape (docs/contract.md): the plan (estimate or
// balance), the search, and the exact sections of a plan already shown. Control text goes to the engine as typed
// where it does not read as a number, so the engine's error names the field.

/** @import {PageState, Settings, EstimateResult, ScheduleFacts, LinkedPlan} from './types.js' */
import { INTERLEAVING_SCHEDULES, scheduleFacts } from './schedules.js';
import { linkedPipeline } from './linked-plan.js';

/**
 * A control's text as the JSON the engine gets: nothing for an empty field (the engine's default), a number
 * when it reads as one, and otherwise the text itself, so the engine names the field in its error.
 * @param {string} value
 * @returns {number | string | undefined}
 */
export function numberField(value) {
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  const number = Number(trimmed);
  return Number.isFinite(number) ? number : trimmed;
}

/**
 * A comma- or space-separated list as JSON: numbers where they read as numbers, the text elsewhere.
 * Brackets are allowed, so "[1, 0, -1]" pasted from YAML works.
 * @param {string} value
 * @returns {(number | string)[] | undefined}
 */
export function listField(value) {
  const trimmed = value.trim().replace(/^\[|\]$/g, '');
  if (trimmed === '') return undefined;
  return trimmed.split(/[\s,]+/).filter((t) => t !== '').map((token) => {
    const number = Number(token);
    return Number.isFinite(number) ? number : token;
  });
}

/**
 * @param {Record<string, any>} target
 * @param {string} key
 * @param {unknown} value
 */
function put(target, key, value) {
  if (value !== undefined) target[key] = value;
}

/**
 * The request sections the settings make, without the model: training, device, pipeline and balance.
 * @param {Settings} s
 * @param {{timeline?: boolean, partition?: boolean}} [options]
 * @returns {Record<string, any>}
 */
export function planSections(s, { timeline = true, partition = true } = {}) {
  /** @type {Record<string, any>} */
  const training = {};
  /** @type {Record<string, any>} */
  const device = {};
  /** @type {Record<string, any>} */
  const pipeline = {};
  put(pipeline, 'pp_degree', numberField(s.pp_degree));
  put(pipeline, 'vpp_degree', numberField(s.vpp_degree));
  put(pipeline, 'schedule', s.schedule || undefined);
  if (s.batch_mode === 'micro_batch_num') {
    put(pipeline, 'micro_batch_num', numberField(s.micro_batch_num));
  } else {
    put(training, 'global_batch_size', numberField(s.global_batch_size));
    put(training, 'micro_batch_size', numberField(s.micro_batch_size));
    put(training, 'dp_degree', numberField(s.dp_degree));
  }
  // A preset fills the figures left empty (the engine's docs/devices.md), peak TFLOP/s included, which gives MFU.
  if (s.device_preset) device.preset = s.device_preset;
  put(device, 'memory_limit_mib', numberField(s.memory_limit_mib));
  put(device, 'reserved_mib', numberField(s.reserved_mib));
  put(device, 'p2p_bandwidth_gbs', numberField(s.p2p_bandwidth_gbs));
  put(device, 'p2p_latency_ms', numberField(s.p2p_latency_ms));
  if (timeline) pipeline.include_timeline = true;
  if (partition && s.partition === 'explicit') {
    // A partition dragged by hand goes as its layers; the engine's answer gives its layer_offset.
    if (s.stage_layers) pipeline.stage_layers = s.stage_layers;
    else put(pipeline, 'layer_offset', listField(s.layer_offset));
    if (s.recompute_layers) {
      pipeline.recompute = { layers: s.recompute_layers };
    } else {
      /** @type {Record<string, any>} */
      const counts = {};
      for (const [option, value] of Object.entries(s.recompute_counts)) put(counts, option, listField(value));
      if (Object.keys(counts).length > 0) pipeline.recompute = counts;
    }
  }
  /** @type {Record<string, any>} */
  const sections = { training, device, pipeline };
  if (s.recompute_options) sections.balance = { recompute_options: s.recompute_options };
  return sections;
}

/**
 * The request for the plan the settings describe: `balance` in PPB mode, `estimate` otherwise. A PPB plan that came
 * with a link (state.plan) is estimated as it is (held: that plan): the same plan and figures at once, no balance.
 * @param {PageState} state
 * @returns {{command: 'estimate' | 'balance', request: Record<string, any>, held: LinkedPlan | null}}
 */
export function planRequest(state) {
  const sections = planSections(state.settings);
  if (state.settings.partition === 'ppb' && state.plan) {
    delete sections.balance;
    return { command: 'estimate', request: { model: state.model, ...sections, pipeline: { ...linkedPipeline(state.plan), include_timeline: true } }, held: state.plan };
  }
  const command = state.settings.partition === 'ppb' ? 'balance' : 'estimate';
  return { command, request: { model: state.model, ...sections }, held: null };
}

/**
 * Whether the search settings describe a cluster (devices given): then every candidate processes the same global
 * batch, dp and micro batches follow from pp, and candidates are ranked by step time, which is throughput.
 * @param {PageState['search']} q
 */
export const hasCluster = (q) => q.world_size.trim() !== '';

/**
 * The `cluster` request: what the search's cluster gives the plan's pp_degree (dp and micro batches), answered by the
 * engine's own rule. An empty pp_degree is the engine's default, 1.
 * @param {PageState['search']} q
 * @param {string} ppText the plan's pp_degree as typed
 * @returns {Record<string, any>}
 */
export function clusterRequest(q, ppText) {
  /** @type {Record<string, any>} */
  const training = {};
  put(training, 'world_size', numberField(q.world_size));
  put(training, 'global_batch_size', numberField(q.global_batch_size));
  put(training, 'micro_batch_size', numberField(q.micro_batch_size));
  put(training, 'tp_degree', numberField(q.tp_degree));
  put(training, 'cp_degree', numberField(q.cp_degree));
  put(training, 'ep_degree', numberField(q.ep_degree));
  /** @type {Record<string, any>} */
  const pipeline = {};
  put(pipeline, 'pp_degree', numberField(ppText));
  // The experts' tp where the search and the cluster command read it.
  const expertTp = numberField(q.expert_tp_degree);
  return expertTp === undefined ? { training, pipeline } : { training, pipeline, parallel: { expert_tp_degree: expertTp } };
}

/**
 * The request for a search over the lists in the search settings; device and model from the plan settings. With a
 * cluster the training section is the cluster's (world_size, global batch, micro batch size, tp, cp, ep, sharding;
 * the experts' tp under parallel, the only place the engine reads it); without one
 * the micro batch counts are a free list and the engine ranks by time per sample, so that fewer micro batches do
 * not win only by processing fewer samples.
 * @param {PageState} state
 * @param {ScheduleFacts[]} facts the engine's schedules (the chunk count each runs when none is given)
 * @returns {Record<string, any>}
 */
export function searchRequest(state, facts) {
  const sections = planSections(state.settings, { timeline: false, partition: false });
  const q = state.search;
  /** @type {Record<string, any>} */
  const search = {};
  put(search, 'pp_degree', listField(q.pp_degree));
  if (q.schedule.length > 0) search.schedule = q.schedule;
  // The chunk counts are the interleaving schedules': the others run their own (one chunk, or two for the V schedules),
  // which the list keeps, so that the engine pairs each schedule with what it runs and no schedule is left out.
  if (q.schedule.some((name) => INTERLEAVING_SCHEDULES.includes(name))) {
    const chunks = listField(q.vpp_degree);
    if (chunks) {
      const own = q.schedule.filter((name) => !INTERLEAVING_SCHEDULES.includes(name)).map((name) => scheduleFacts(facts, name)?.vpp_degree.default ?? 1);
      search.vpp_degree = [...new Set([...own, ...chunks])].sort((a, b) => (typeof a === 'number' && typeof b === 'number' ? a - b : 0));
    }
  }
  put(search, 'top_k', numberField(q.top_k));
  if (hasCluster(q)) {
    /** @type {Record<string, any>} */
    const training = {};
    put(training, 'world_size', numberField(q.world_size));
    put(training, 'global_batch_size', numberField(q.global_batch_size));
    put(training, 'micro_batch_size', numberField(q.micro_batch_size));
    put(training, 'tp_degree', numberField(q.tp_degree));
    put(training, 'cp_degree', numberField(q.cp_degree));
    sections.training = training;
    delete sections.pipeline.micro_batch_num;
  } else {
    put(search, 'micro_batch_num', listField(q.micro_batch_num));
    search.rank_by = 'time_per_sample';
    if ('micro_batch_num' in search) delete sections.training.global_batch_size;
  }
  // Experts and sharding, with or without a cluster: ep constrains each candidate's dp (and sets the experts' shard
  // group), sharding splits the state at each candidate's own dp. Sharded bytes start from the precision the form
  // built the model in (the model document states only its bytes at the form's dp).
  put(sections.training, 'ep_degree', numberField(q.ep_degree));
  if (q.sharding) {
    sections.training.sharding = q.sharding;
    const precision = state.transformer?.['/training/precision'];
    if (typeof precision === 'string' && precision) sections.training.precision = precision;
  }
  const expertTp = numberField(q.expert_tp_degree);
  if (expertTp !== undefined) sections.parallel = { expert_tp_degree: expertTp };
  // The lists decide these; the single values of the plan settings would only conflict with them.
  for (const key of ['pp_degree', 'vpp_degree', 'micro_batch_num', 'schedule']) {
    if (key in search) delete sections.pipeline[key];
  }
  if (!('vpp_degree' in search)) delete sections.pipeline.vpp_degree;
  return { model: state.model, ...sections, search };
}

/**
 * Request sections that reproduce a shown plan exactly (its partition as stage_layers, its recompute as layer
 * lists), whichever way it was made: for exports and for pinning it in the comparison.
 * @param {EstimateResult} result
 * @param {Record<string, any>} request the request that made it
 * @returns {Record<string, any>}
 */
export function exactPlanSections(result, request) {
  /** @type {Record<string, any>} */
  const pipeline = { pp_degree: result.pp_degree, vpp_degree: result.vpp_degree, micro_batch_num: result.micro_batch_num,
    schedule: result.schedule, stage_layers: result.stage_layers };
  if (Object.keys(result.layer_recompute ?? {}).length > 0) pipeline.recompute = { layers: result.layer_recompute };
  return { training: request.training ?? {}, device: request.device ?? {}, pipeline };
}
