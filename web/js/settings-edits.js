// Edits of the plan settings that change several fields together: a request file's settings, a partition dragged
// by hand, a search candidate opened, a new model. Each changes the settings in place; the page then asks for a
// new plan.

/** @import {PageState, Settings, SearchCandidate, Infeasibility} from './types.js' */
/** @import {ModelInfo} from './model.js' */
import { isObject } from './state.js';
import { listField } from './requests.js';
import { INTERLEAVING_SCHEDULES } from './schedules.js';

/**
 * Copies the settings a request file states into the plan settings (numbers and strings only; the rest is
 * left as it was).
 * @param {Settings} s
 * @param {any} doc a request: {model, training, device, pipeline}
 */
export function applyRequestSettings(s, doc) {
  /** @param {unknown} value */
  const asText = (value) => (typeof value === 'number' || typeof value === 'string' ? String(value) : undefined);
  const p = isObject(doc.pipeline) ? doc.pipeline : {};
  const d = isObject(doc.device) ? doc.device : {};
  const t = isObject(doc.training) ? doc.training : {};
  for (const key of /** @type {const} */ (['pp_degree', 'vpp_degree', 'schedule', 'micro_batch_num'])) s[key] = asText(p[key]) ?? s[key];
  for (const key of /** @type {const} */ (['memory_limit_mib', 'reserved_mib', 'p2p_bandwidth_gbs', 'p2p_latency_ms'])) s[key] = asText(d[key]) ?? '';
  if (t.global_batch_size !== undefined && p.micro_batch_num === undefined) {
    s.batch_mode = 'global';
    for (const key of /** @type {const} */ (['global_batch_size', 'micro_batch_size', 'dp_degree'])) s[key] = asText(t[key]) ?? s[key];
  } else if (p.micro_batch_num !== undefined) {
    s.batch_mode = 'micro_batch_num';
  }
  if (Array.isArray(p.layer_offset)) {
    s.partition = 'explicit';
    s.layer_offset = p.layer_offset.join(', ');
    s.stage_layers = null;
  }
}

/**
 * Settings for a partition set by hand (a dragged boundary): the layers per virtual stage, which go to the engine as
 * `pipeline.stage_layers` (its answer gives the layer_offset, takeEngineOffsets), and the recompute counts in force
 * carried along, each virtual stage keeping at most its body layers (its layers less the model's pinned ones; options
 * in their order).
 * @param {Settings} s changed in place
 * @param {ModelInfo} info
 * @param {number[]} stageLayers layers per virtual stage
 * @param {Record<string, number[]>} counts recompute counts per option and virtual stage in force before the change
 */
export function setPartitionByHand(s, info, stageLayers, counts) {
  const last = stageLayers.length - 1;
  const bodies = stageLayers.map((n, v) => n - (v === 0 ? info.pinnedFirst : 0) - (v === last ? info.pinnedLast : 0));
  const used = bodies.map(() => 0);
  /** @type {Record<string, string>} */
  const recompute = {};
  for (const [option, list] of Object.entries(counts)) {
    if (!Array.isArray(list) || list.length !== stageLayers.length) continue;
    const kept = list.map((n, v) => {
      const take = Math.max(0, Math.min(Number.isFinite(n) ? n : 0, bodies[v] - used[v]));
      used[v] += take;
      return take;
    });
    if (kept.some((n) => n > 0)) recompute[option] = kept.join(', ');
  }
  s.partition = 'explicit';
  s.stage_layers = [...stageLayers];
  s.recompute_counts = recompute;
  s.recompute_layers = null;
}

/**
 * A partition dragged by hand went to the engine as stage_layers: once the plan shown is the engine's answer for
 * exactly that partition, the settings take the engine's layer_offset of it (the page converts no partition form
 * itself) and drop the layers. Returns whether the settings changed.
 * @param {Settings} s changed in place
 * @param {Record<string, any>} request the request of the plan shown
 * @param {{layer_offset: number[]}} result its result
 * @returns {boolean}
 */
export function takeEngineOffsets(s, request, result) {
  const sent = request.pipeline?.stage_layers;
  if (!s.stage_layers || !Array.isArray(sent) || sent.join(',') !== s.stage_layers.join(',')) return false;
  s.layer_offset = result.layer_offset.join(', ');
  s.stage_layers = null;
  return true;
}

/**
 * The recompute counts the settings state, as numbers (for carrying them along a drag).
 * @param {Settings} s
 * @returns {Record<string, number[]>}
 */
export function statedRecomputeCounts(s) {
  return Object.fromEntries(Object.entries(s.recompute_counts).map(([option, text]) =>
    [option, (listField(text) ?? []).map((v) => (typeof v === 'number' ? v : 0))]));
}

/**
 * Settings that show a search candidate's plan (or a balanced compare row's): its shape, its layer_offset and its
 * exact recompute layers.
 * @param {Settings} s changed in place
 * @param {Pick<SearchCandidate, 'pp_degree' | 'vpp_degree' | 'micro_batch_num' | 'schedule' | 'plan'>} c
 */
export function openCandidateSettings(s, c) {
  s.pp_degree = String(c.pp_degree);
  s.vpp_degree = String(c.vpp_degree);
  s.micro_batch_num = String(c.micro_batch_num);
  s.batch_mode = 'micro_batch_num';
  s.schedule = c.schedule;
  if (!c.plan) {
    s.partition = 'ppb';
    return;
  }
  keepPlanAsOffsets(s, c.plan);
}

/**
 * Settings for a layer_offset plan that is a given plan exactly: its offsets and its recompute layers (shown as
 * the engine's counts per virtual stage; editing the partition turns them into counts). Used to open a search
 * candidate and to turn a PPB plan into a layer_offset to fine-tune: the step time stays what it was.
 * @param {Settings} s changed in place
 * @param {{layer_offset: number[], layer_recompute: Record<string, number[]>, recompute_counts: Record<string, number[]>}} plan
 */
export function keepPlanAsOffsets(s, plan) {
  s.partition = 'explicit';
  s.layer_offset = plan.layer_offset.join(', ');
  s.stage_layers = null;
  const layers = plan.layer_recompute;
  s.recompute_layers = Object.keys(layers).length > 0 ? layers : null;
  s.recompute_counts = Object.fromEntries(Object.entries(plan.recompute_counts).map(([k, v]) => [k, v.join(', ')]));
}

/**
 * A new model in the state: its own recompute options, no pinned plan, no explicit partition, no search; a request
 * file's settings, when given, fill the plan settings.
 * @param {PageState} state changed in place
 * @param {any} model
 * @param {string} label
 * @param {any} [request] a request file the model came from
 */
export function putModel(state, model, label, request = null) {
  state.model = model;
  state.modelLabel = label;
  state.compare.pinned = null;
  const s = state.settings;
  s.recompute_options = null;
  s.layer_offset = '';
  s.stage_layers = null;
  s.recompute_counts = {};
  s.recompute_layers = null;
  state.ui.openPlan = '';
  state.ui.search = false;
  if (request) applyRequestSettings(s, request);
}

/**
 * The settings a bundled example states (its GPU's memory, its dp, its cluster) put in place.
 * @param {PageState} state changed in place
 * @param {{settings?: Partial<Settings>, search?: Partial<import('./types.js').SearchSettings>}} example
 */
export function applyExampleDefaults(state, example) {
  Object.assign(state.settings, example.settings ?? {});
  Object.assign(state.search, example.search ?? {});
}

/**
 * The search an infeasibility explanation suggests (docs/search.md, "Infeasibility explained"): the same schedule
 * and chunk count, the smallest pp_degree at which a plan fits and every larger one the cluster divides into, the
 * recompute option that makes the shape fit allowed. On a cluster that no such pp_degree divides, the search goes
 * without the cluster, over the plan's micro batch count. Changes the state in place; null when the explanation
 * suggests no search (only a larger memory limit would fit).
 * @param {PageState} state
 * @param {Infeasibility} inf
 * @param {{pp_degree: number, vpp_degree: number, micro_batch_num: number, schedule: string}} shape the shape explained
 * @returns {string[] | null} the pp_degrees searched
 */
export function applySuggestedSearch(state, inf, shape) {
  if (inf.min_pp_degree === null && inf.recompute_option === null) return null;
  const q = state.search;
  const s = state.settings;
  const from = inf.min_pp_degree ?? shape.pp_degree;
  /** @type {number[]} */
  let pps = [from];
  const positive = (/** @type {string} */ text, /** @type {number} */ fallback) => {
    const value = text.trim() === '' ? fallback : Number(text);
    return Number.isInteger(value) && value > 0 ? value : null;
  };
  const world = positive(q.world_size, 0);
  const per = (positive(q.tp_degree, 1) ?? 0) * (positive(q.cp_degree, 1) ?? 0);
  if (world && per > 0 && world % per === 0) {
    const pipelines = world / per;
    const divisors = [];
    for (let pp = from; pp <= pipelines; ++pp) if (pipelines % pp === 0) divisors.push(pp);
    if (divisors.length > 0) pps = divisors;
    else {
      q.world_size = '';
      q.micro_batch_num = String(shape.micro_batch_num);
    }
  } else if (q.world_size.trim() !== '') {
    q.world_size = '';
    q.micro_batch_num = String(shape.micro_batch_num);
  }
  q.pp_degree = pps.join(', ');
  q.schedule = [shape.schedule];
  if (INTERLEAVING_SCHEDULES.includes(shape.schedule)) q.vpp_degree = String(shape.vpp_degree);
  if (inf.recompute_option !== null && s.recompute_options !== null && !s.recompute_options.includes(inf.recompute_option)) {
    s.recompute_options = [...s.recompute_options, inf.recompute_option];
  }
  return pps.map(String);
}

/**
 * The settings a model built from the transformer form brings (docs/page.md, "The transformer form"): its devices,
 * global batch, micro batch size, tp, cp, ep, expert tp and sharding become the search's cluster; its pp, batch and
 * dp the plan's, and its device preset the Device panel's, whose figures the preset then fills (emptied here).
 * Values go as typed; an empty world size means no cluster, as in the search panel. The engine checks them all.
 * @param {PageState} state changed in place
 * @param {Record<string, string | boolean>} values the form's values, by path
 */
export function applyFormSettings(state, values) {
  /** @param {string} path */
  const v = (path) => (typeof values[path] === 'string' ? String(values[path]).trim() : '');
  const q = state.search;
  const s = state.settings;
  q.world_size = v('/training/world_size');
  q.tp_degree = v('/parallel/tp_degree');
  q.cp_degree = v('/parallel/cp_degree');
  q.ep_degree = v('/parallel/ep_degree');
  q.expert_tp_degree = v('/parallel/expert_tp_degree');
  q.sharding = v('/training/sharding');
  const gbs = v('/training/global_batch_size');
  const mbs = v('/training/micro_batch_size');
  if (gbs) q.global_batch_size = gbs;
  if (mbs) q.micro_batch_size = mbs;
  const pp = v('/pipeline/pp_degree');
  if (pp) s.pp_degree = pp;
  // The plan processes the same batch, split over the form's data-parallel replicas.
  const dp = v('/parallel/dp_degree');
  if (gbs && dp) {
    s.batch_mode = 'global';
    s.global_batch_size = gbs;
    s.micro_batch_size = mbs || '1';
    s.dp_degree = dp;
  }
  s.device_preset = v('/device/preset');
  if (s.device_preset) {
    s.memory_limit_mib = '';
    s.reserved_mib = '';
    s.p2p_bandwidth_gbs = '';
  }
}
