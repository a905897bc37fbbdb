// The page's state (what the person chose) and its defaults. State flows one way: controls -> state -> request
// (requests.js) -> worker -> response -> views; settings-edits.js holds the edits that change more than one field.
// A state read from a link or a file goes through normaliseState, which keeps only fields of the right type and
// length.

/** @import {PageState, Settings, SearchSettings, PinnedPlan} from './types.js' */
import { SCHEDULES } from './schedules.js';
import { SHARDINGS } from './devices.js';
import { readLinkedPlan } from './linked-plan.js';

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
    device_preset: '',
    recompute_options: null,
    partition: 'ppb',
    layer_offset: '',
    stage_layers: null,
    recompute_counts: {},
    recompute_layers: null,
  };
}

/** @returns {SearchSettings} */
export function defaultSearch() {
  // The default example's cluster (examples/llama2-70b.json: tp 8, dp 4 at pp 8, so 256 devices); pp left to the
  // engine (every power of two that divides the cluster and the model).
  return { world_size: '256', global_batch_size: '256', micro_batch_size: '1', tp_degree: '8', cp_degree: '1', ep_degree: '1',
    expert_tp_degree: '', sharding: '', pp_degree: '', vpp_degree: '2', micro_batch_num: '16, 32, 64',
    schedule: ['1f1b', 'interleaved_1f1b', 'zb_h1'], top_k: '20' };
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
    plan: null,
    ui: { theme: 'auto', openPlan: '', search: false, lang: null, modelSource: 'file' },
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

/**
 * Whether an untrusted value is a plain JSON object (not null, not an array).
 * @param {unknown} value
 * @returns {value is Record<string, any>}
 */
export const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

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
    // An id as the engine's presets spell them; which ids exist is the engine's to say (DEVICE_PRESET_UNKNOWN).
    device_preset: typeof s.device_preset === 'string' && /^[a-z0-9_]{1,40}$/.test(s.device_preset) ? s.device_preset : '',
    recompute_options: Array.isArray(s.recompute_options)
      ? s.recompute_options.filter((/** @type {unknown} */ o) => typeof o === 'string' && o.length <= 200)
      : null,
    partition: oneOf(s.partition, /** @type {const} */ (['even', 'ppb', 'explicit']), 'ppb'),
    layer_offset: text(s.layer_offset, ''),
    stage_layers: Array.isArray(s.stage_layers) && s.stage_layers.length <= 100_000
      && s.stage_layers.every((/** @type {unknown} */ n) => Number.isInteger(n) && /** @type {number} */ (n) >= 0) ? s.stage_layers : null,
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
    world_size: text(q.world_size, q.pp_degree === undefined ? searchDefaults.world_size : ''),
    global_batch_size: text(q.global_batch_size, searchDefaults.global_batch_size),
    micro_batch_size: text(q.micro_batch_size, searchDefaults.micro_batch_size),
    tp_degree: text(q.tp_degree, searchDefaults.tp_degree),
    cp_degree: text(q.cp_degree, searchDefaults.cp_degree),
    ep_degree: text(q.ep_degree, searchDefaults.ep_degree),
    expert_tp_degree: text(q.expert_tp_degree, searchDefaults.expert_tp_degree),
    sharding: oneOf(q.sharding, ['', ...SHARDINGS], ''),
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
    upgradeFormValues(transformer);
  }
  const ui = isObject(raw.ui) ? raw.ui : {};
  return {
    model: raw.model,
    modelLabel: text(raw.modelLabel, typeof raw.model.name === 'string' ? raw.model.name.slice(0, 200) : 'model'),
    transformer,
    settings,
    search,
    compare: { pinned },
    // The PPB plan the state was written with; a plan that does not read is dropped (the page balances again).
    plan: settings.partition === 'ppb' ? readLinkedPlan(raw.plan) : null,
    ui: {
      theme: oneOf(ui.theme, /** @type {const} */ (['auto', 'light', 'dark']), 'auto'),
      openPlan: text(ui.openPlan, ''),
      search: ui.search === true,
      lang: ui.lang === 'en' || ui.lang === 'zh' ? ui.lang : null,
      // Older states have no choice: they showed the file inputs, with the form folded away.
      modelSource: oneOf(ui.modelSource, /** @type {const} */ (['file', 'transformer', 'paste']), 'file'),
    },
  };
}

/**
 * The transformer form's values of an older page in today's fields: its "distributed optimizer" checkbox is the
 * sharding select's "optimizer" (checked) or "none", as the engine reads `training.distributed_optimizer`.
 * @param {Record<string, string | boolean>} values changed in place
 */
export function upgradeFormValues(values) {
  const old = '/training/distributed_optimizer';
  if (!(old in values)) return;
  if (!('/training/sharding' in values)) values['/training/sharding'] = values[old] === true ? 'optimizer' : 'none';
  delete values[old];
}
