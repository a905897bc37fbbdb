// The page's state (what the person chose) and the engine requests built from it. State flows one way:
// controls -> state -> request -> worker -> response -> views. A state read from a link or a file goes through
// normaliseState, which keeps only fields of the right type and length.

/** @import {PageState, Settings, SearchSettings, PinnedPlan} from './types.js' */

export const SCHEDULES = ['gpipe', '1f1b', 'interleaved_1f1b', 'zb_h1'];
/** The example shown first (boot.js starts fetching the same file early). */
export const DEFAULT_EXAMPLE = 'llama2-70b.json';
const MAX_TEXT = 2000;

/** @returns {Settings} */
export function defaultSettings() {
  return {
    pp_degree: '8',
    vpp_degree: '1',
    schedule: '1f1b',
    batch_mode: 'micro_batch_num',
    micro_batch_num: '32',
    global_batch_size: '256',
    micro_batch_size: '1',
    dp_degree: '8',
    memory_limit_mib: '40960',
    reserved_mib: '2048',
    p2p_bandwidth_gbs: '25',
    p2p_latency_ms: '0.02',
    recompute_options: null,
    partition: 'ppb',
    layer_offset: '',
    recompute_counts: {},
    recompute_layers: null,
  };
}

/** @returns {SearchSettings} */
export function defaultSearch() {
  return { pp_degree: '2, 4, 8', vpp_degree: '1, 2', micro_batch_num: '16, 32, 64', schedule: ['1f1b', 'interleaved_1f1b'], top_k: '20' };
}

/**
 * @param {any} model
 * @param {string} label
 * @returns {PageState}
 */
export function initialState(model, label) {
  return {
    model,
    modelLabel: label,
    transformer: null,
    settings: defaultSettings(),
    search: defaultSearch(),
    compare: { pinned: null },
    ui: { theme: 'auto', openPlan: '', search: false },
  };
}

/**
 * @param {unknown} value
 * @param {string} fallback
 * @returns {string}
 */
function text(value, fallback) {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value.length <= MAX_TEXT ? value : fallback;
}

/**
 * @template {string} T
 * @param {unknown} value
 * @param {readonly T[]} allowed
 * @param {T} fallback
 * @returns {T}
 */
function oneOf(value, allowed, fallback) {
  return allowed.includes(/** @type {T} */ (value)) ? /** @type {T} */ (value) : fallback;
}

/** @param {unknown} value */
const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * @param {unknown} value
 * @returns {Record<string, number[]> | null}
 */
function layerLists(value) {
  if (!isObject(value)) return null;
  /** @type {Record<string, number[]>} */
  const out = {};
  for (const [key, list] of Object.entries(/** @type {object} */ (value))) {
    if (key.length > 200 || !Array.isArray(list)) continue;
    out[key] = list.filter((n) => Number.isInteger(n) && n >= 0);
  }
  return out;
}

/**
 * Reads a state from an untrusted object (a link or a file): every field is checked and replaced by its default
 * when it has the wrong type. Returns null when there is no model at all.
 * @param {any} raw
 * @returns {PageState | null}
 */
export function normaliseState(raw) {
  if (!isObject(raw) || !isObject(raw.model)) return null;
  const defaults = defaultSettings();
  const s = isObject(raw.settings) ? raw.settings : {};
  /** @type {Settings} */
  const settings = {
    pp_degree: text(s.pp_degree, defaults.pp_degree),
    vpp_degree: text(s.vpp_degree, defaults.vpp_degree),
    schedule: text(s.schedule, defaults.schedule),
    batch_mode: oneOf(s.batch_mode, /** @type {const} */ (['micro_batch_num', 'global']), 'micro_batch_num'),
    micro_batch_num: text(s.micro_batch_num, defaults.micro_batch_num),
    global_batch_size: text(s.global_batch_size, defaults.global_batch_size),
    micro_batch_size: text(s.micro_batch_size, defaults.micro_batch_size),
    dp_degree: text(s.dp_degree, defaults.dp_degree),
    memory_limit_mib: text(s.memory_limit_mib, defaults.memory_limit_mib),
    reserved_mib: text(s.reserved_mib, defaults.reserved_mib),
    p2p_bandwidth_gbs: text(s.p2p_bandwidth_gbs, defaults.p2p_bandwidth_gbs),
    p2p_latency_ms: text(s.p2p_latency_ms, defaults.p2p_latency_ms),
    recompute_options: Array.isArray(s.recompute_options)
      ? s.recompute_options.filter((/** @type {unknown} */ o) => typeof o === 'string' && o.length <= 200)
      : null,
    partition: oneOf(s.partition, /** @type {const} */ (['even', 'ppb', 'explicit']), 'ppb'),
    layer_offset: text(s.layer_offset, ''),
    recompute_counts: {},
    recompute_layers: layerLists(s.recompute_layers),
  };
  if (isObject(s.recompute_counts)) {
    for (const [key, value] of Object.entries(s.recompute_counts)) {
      if (key.length <= 200 && typeof value === 'string' && value.length <= MAX_TEXT) settings.recompute_counts[key] = value;
    }
  }
  const q = isObject(raw.search) ? raw.search : {};
  const searchDefaults = defaultSearch();
  /** @type {SearchSettings} */
  const search = {
    pp_degree: text(q.pp_degree, searchDefaults.pp_degree),
    vpp_degree: text(q.vpp_degree, searchDefaults.vpp_degree),
    micro_batch_num: text(q.micro_batch_num, searchDefaults.micro_batch_num),
    schedule: Array.isArray(q.schedule) ? q.schedule.filter((/** @type {unknown} */ x) => SCHEDULES.includes(/** @type {string} */ (x))) : searchDefaults.schedule,
    top_k: text(q.top_k, searchDefaults.top_k),
  };
  /** @type {PinnedPlan | null} */
  let pinned = null;
  const p = isObject(raw.compare) && isObject(raw.compare.pinned) ? raw.compare.pinned : null;
  if (p && isObject(p.request)) pinned = { label: text(p.label, 'pinned plan'), request: p.request };
  /** @type {Record<string, string | boolean> | null} */
  let transformer = null;
  if (isObject(raw.transformer)) {
    transformer = {};
    for (const [key, value] of Object.entries(raw.transformer)) {
      if (key.length <= 100 && (typeof value === 'boolean' || (typeof value === 'string' && value.length <= MAX_TEXT))) {
        transformer[key] = value;
      }
    }
  }
  const ui = isObject(raw.ui) ? raw.ui : {};
  return {
    model: raw.model,
    modelLabel: text(raw.modelLabel, typeof raw.model.name === 'string' ? raw.model.name.slice(0, 200) : 'model'),
    transformer,
    settings,
    search,
    compare: { pinned },
    ui: {
      theme: oneOf(ui.theme, /** @type {const} */ (['auto', 'light', 'dark']), 'auto'),
      openPlan: text(ui.openPlan, ''),
      search: ui.search === true,
    },
  };
}

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
  put(device, 'memory_limit_mib', numberField(s.memory_limit_mib));
  put(device, 'reserved_mib', numberField(s.reserved_mib));
  put(device, 'p2p_bandwidth_gbs', numberField(s.p2p_bandwidth_gbs));
  put(device, 'p2p_latency_ms', numberField(s.p2p_latency_ms));
  if (timeline) pipeline.include_timeline = true;
  if (partition && s.partition === 'explicit') {
    put(pipeline, 'layer_offset', listField(s.layer_offset));
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
 * The request for the plan the settings describe: `balance` in PPB mode, `estimate` otherwise.
 * @param {PageState} state
 * @returns {{command: 'estimate' | 'balance', request: Record<string, any>}}
 */
export function planRequest(state) {
  const command = state.settings.partition === 'ppb' ? 'balance' : 'estimate';
  return { command, request: { model: state.model, ...planSections(state.settings) } };
}

/**
 * The request for a search over the lists in the search settings; the rest comes from the plan settings.
 * @param {PageState} state
 * @returns {Record<string, any>}
 */
export function searchRequest(state) {
  const sections = planSections(state.settings, { timeline: false, partition: false });
  const q = state.search;
  /** @type {Record<string, any>} */
  const search = {};
  put(search, 'pp_degree', listField(q.pp_degree));
  put(search, 'vpp_degree', listField(q.vpp_degree));
  put(search, 'micro_batch_num', listField(q.micro_batch_num));
  if (q.schedule.length > 0) search.schedule = q.schedule;
  put(search, 'top_k', numberField(q.top_k));
  // The lists decide these; the single values of the plan settings would only conflict with them.
  for (const key of ['pp_degree', 'vpp_degree', 'micro_batch_num', 'schedule']) {
    if (key in search) delete sections.pipeline[key];
  }
  if ('micro_batch_num' in search) delete sections.training.global_batch_size;
  return { model: state.model, ...sections, search };
}

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
  }
}

/**
 * Request sections that reproduce a shown plan exactly (its partition as stage_layers, its recompute as layer
 * lists), whichever way it was made: for exports and for pinning it in the comparison.
 * @param {import('./types.js').EstimateResult} result
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

/**
 * Settings for a partition set by hand (a dragged boundary): the layer_offset it makes, and the recompute counts
 * in force carried along, each virtual stage keeping at most its body layers (options in their order).
 * @param {Settings} s changed in place
 * @param {import('./model.js').ModelInfo} info
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
  const base = Math.floor(info.body / stageLayers.length);
  s.partition = 'explicit';
  s.layer_offset = bodies.map((n) => n - base).join(', ');
  s.recompute_counts = recompute;
  s.recompute_layers = null;
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
 * Settings that show a search candidate's plan: its shape, its layer_offset and its exact recompute layers.
 * @param {Settings} s changed in place
 * @param {import('./types.js').SearchCandidate} c
 * @param {(layerRecompute: Record<string, number[]>, stageLayers: number[]) => Record<string, number[]>} countsOf
 */
export function openCandidateSettings(s, c, countsOf) {
  s.pp_degree = String(c.pp_degree);
  s.vpp_degree = String(c.vpp_degree);
  s.micro_batch_num = String(c.micro_batch_num);
  s.batch_mode = 'micro_batch_num';
  s.schedule = c.schedule;
  if (!c.plan) {
    s.partition = 'ppb';
    return;
  }
  s.partition = 'explicit';
  s.layer_offset = c.plan.layer_offset.join(', ');
  const layers = c.plan.layer_recompute ?? {};
  s.recompute_layers = Object.keys(layers).length > 0 ? layers : null;
  s.recompute_counts = Object.fromEntries(Object.entries(countsOf(layers, c.plan.stage_layers)).map(([k, v]) => [k, v.join(', ')]));
}
