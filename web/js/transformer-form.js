// The symbolic transformer form: fields of the `transformer` description (docs/transformer-model.md) with
// presets, turned into an import request; the engine's generator makes the ppb.model.v1 document. Field values
// are kept as typed; errors come back with paths such as /transformer/hidden_size and land on that field. A
// description the engine imported (from a Hugging Face config.json) fills the fields; what it says beyond them
// (head_dim, qk_norm, mla, ...) is kept as JSON text beside the fields, under EXTRA, and sent with them.

import { el } from './dom.js';
import { t } from './i18n.js';
import { numberField } from './requests.js';
import { fillDeviceSelect, setDeviceValue, SHARDINGS } from './devices.js';

/**
 * A select's option: its value, and the text shown when that is not the value itself.
 * @typedef {string | {value: string, label: string}} FieldOption
 * @typedef {{path: string, label: string, kind: 'number' | 'text' | 'check' | 'select', unit?: string,
 *            options?: FieldOption[], group: string, hint?: string}} TransformerField
 */

/** The key of the form's values that holds the description fields the form has no input for, as JSON text. */
export const EXTRA = 'extra';

/** @type {TransformerField[]} */
export const FIELDS = [
  { path: '/transformer/name', label: 'name', kind: 'text', group: 'Model' },
  { path: '/transformer/num_layers', label: 'layers', kind: 'number', group: 'Model' },
  { path: '/transformer/hidden_size', label: 'hidden size', kind: 'number', group: 'Model' },
  { path: '/transformer/num_attention_heads', label: 'attention heads', kind: 'number', group: 'Model' },
  { path: '/transformer/num_query_groups', label: 'KV heads (GQA)', kind: 'number', group: 'Model' },
  { path: '/transformer/ffn_hidden_size', label: 'FFN hidden size', kind: 'number', group: 'Model' },
  { path: '/transformer/vocab_size', label: 'vocabulary', kind: 'number', group: 'Model' },
  { path: '/transformer/seq_length', label: 'sequence length', kind: 'number', group: 'Model' },
  { path: '/transformer/normalization', label: 'normalization', kind: 'select', options: ['layernorm', 'rmsnorm'], group: 'Model' },
  { path: '/transformer/attention', label: 'attention', kind: 'select', options: ['flash', 'eager'], group: 'Model' },
  { path: '/transformer/gated_mlp', label: 'gated MLP (SwiGLU)', kind: 'check', group: 'Model' },
  { path: '/transformer/dropout', label: 'dropout', kind: 'check', group: 'Model' },
  { path: '/transformer/tied_embeddings', label: 'tied embeddings', kind: 'check', group: 'Model' },
  { path: '/transformer/moe/num_experts', label: 'experts (0 = dense)', kind: 'number', group: 'Mixture of experts' },
  { path: '/transformer/moe/top_k', label: 'experts per token', kind: 'number', group: 'Mixture of experts' },
  { path: '/transformer/moe/expert_ffn_hidden_size', label: 'expert FFN size', kind: 'number', group: 'Mixture of experts' },
  { path: '/transformer/moe/first_dense_layers', label: 'first dense layers', kind: 'number', group: 'Mixture of experts' },
  { path: '/transformer/moe/shared_experts', label: 'shared experts', kind: 'number', group: 'Mixture of experts' },
  { path: '/training/world_size', label: 'devices (world size)', kind: 'number', group: 'Parallelism and training' },
  { path: '/pipeline/pp_degree', label: 'pipeline parallel', kind: 'number', group: 'Parallelism and training' },
  { path: '/parallel/tp_degree', label: 'tensor parallel', kind: 'number', group: 'Parallelism and training' },
  { path: '/parallel/sequence_parallel', label: 'sequence parallel', kind: 'check', group: 'Parallelism and training' },
  { path: '/parallel/cp_degree', label: 'context parallel', kind: 'number', group: 'Parallelism and training' },
  { path: '/parallel/dp_degree', label: 'data parallel', kind: 'number', group: 'Parallelism and training' },
  { path: '/parallel/ep_degree', label: 'expert parallel', kind: 'number', group: 'Parallelism and training' },
  { path: '/parallel/expert_tp_degree', label: 'expert tensor parallel', kind: 'number', group: 'Parallelism and training' },
  { path: '/training/global_batch_size', label: 'global batch', kind: 'number', group: 'Parallelism and training' },
  { path: '/training/micro_batch_size', label: 'micro batch size', kind: 'number', group: 'Parallelism and training' },
  { path: '/training/precision', label: 'precision', kind: 'select', options: ['bf16', 'fp16', 'fp8', 'fp32'], group: 'Parallelism and training' },
  { path: '/training/sharding', label: 'sharding (ZeRO)', kind: 'select', options: [...SHARDINGS], group: 'Parallelism and training' },
  { path: '/device/preset', label: 'device', kind: 'select', group: 'Device',
    options: [{ value: '', label: 'none: give its peak' }] },
  { path: '/device/peak_tflops', label: 'peak TFLOP/s', kind: 'number', group: 'Device' },
  { path: '/device/compute_efficiency', label: 'efficiency (0–1]', kind: 'number', group: 'Device' },
];

/** @param {FieldOption} option */
const optionValue = (option) => (typeof option === 'string' ? option : option.value);

/**
 * A field's value when a preset does not state it: empty text (the generator's default applies), a box unticked,
 * a select's first option (the generator's default, or no device preset).
 * @param {TransformerField} field
 * @returns {string | boolean}
 */
const blank = (field) => (field.kind === 'check' ? false : field.kind === 'select' ? optionValue(field.options?.[0] ?? '') : '');

/** The fields every Llama-style decoder shares: RMSNorm, SwiGLU, no dropout, untied embeddings, dense. */
const LLAMA = { '/transformer/normalization': 'rmsnorm', '/transformer/gated_mlp': true, '/transformer/dropout': false,
  '/transformer/tied_embeddings': false, '/transformer/moe/num_experts': '0' };

/**
 * The presets: each model's published architecture and a configuration its authors (or NVIDIA's recipes) trained it
 * with, so that building a preset plans the run as it was. A field a preset leaves out is blank (see `blank`).
 *   Llama-3.1: the sizes of Meta's config.json files (tests/fixtures/hf/; 70B as the Llama 3 paper's Table 3); 405B
 *     as examples/requests/llama31-405b.json (the Llama 3 paper, Table 4: TP 8, PP 16, CP 1, DP 128, 16,384 H100,
 *     sequence 8192); 8B and 70B as NVIDIA's NeMo-Framework-Launcher llama3_1_8b.yaml (128 H100: TP 1, PP 1, CP 2)
 *     and llama3_1_70b.yaml (1,024 H100: TP 4, PP 4, CP 2), global batch 2048, the distributed optimizer.
 *   DeepSeek-V3 and Qwen3-235B-A22B: examples/requests/deepseek-v3.json (the DeepSeek-V3 report: 2,048 H800, PP 16,
 *     EP 64, ZeRO-1, FP8) and qwen3-235b-a22b.json; what the form has no field for (MLA, the MTP module, head_dim,
 *     qk_norm) under EXTRA.
 *   Mixtral-8x7B: mistralai's config.json (tests/fixtures/hf/), trained as NeMo-Framework-Launcher's
 *     mixtral_8x7b.yaml (64 H100: TP 1, PP 4, EP 8, sequence 4096, global batch 256).
 *   Llama-2 and GPT-3: the Llama 2 paper's 4M-token batch (1,024 sequences of 4,096) on the page's examples' H100
 *     clusters; GPT-3 175B on the shape of Narayanan et al. 2021, Table 1 (TP 8, PP 16, 1,536 A100, batch 1,536).
 * @type {Record<string, Record<string, string | boolean>>}
 */
export const PRESETS = {
  'Llama-3.1-8B': {
    '/transformer/name': 'Llama-3.1-8B', '/transformer/num_layers': '32', '/transformer/hidden_size': '4096', '/transformer/num_attention_heads': '32',
    '/transformer/num_query_groups': '8', '/transformer/ffn_hidden_size': '14336', '/transformer/vocab_size': '128256', '/transformer/seq_length': '8192', ...LLAMA,
    '/training/world_size': '128', '/pipeline/pp_degree': '1', '/parallel/tp_degree': '1', '/parallel/cp_degree': '2', '/parallel/dp_degree': '64',
    '/parallel/ep_degree': '1', '/training/global_batch_size': '2048', '/training/micro_batch_size': '1', '/training/precision': 'bf16',
    '/training/sharding': 'optimizer', '/device/preset': 'h100_sxm', '/device/compute_efficiency': '0.6',
  },
  'Llama-3.1-70B': {
    '/transformer/name': 'Llama-3.1-70B', '/transformer/num_layers': '80', '/transformer/hidden_size': '8192', '/transformer/num_attention_heads': '64',
    '/transformer/num_query_groups': '8', '/transformer/ffn_hidden_size': '28672', '/transformer/vocab_size': '128256', '/transformer/seq_length': '8192', ...LLAMA,
    '/training/world_size': '1024', '/pipeline/pp_degree': '4', '/parallel/tp_degree': '4', '/parallel/sequence_parallel': true, '/parallel/cp_degree': '2',
    '/parallel/dp_degree': '16', '/parallel/ep_degree': '1', '/training/global_batch_size': '2048', '/training/micro_batch_size': '1',
    '/training/precision': 'bf16', '/training/sharding': 'optimizer', '/device/preset': 'h100_sxm', '/device/compute_efficiency': '0.6',
  },
  'Llama-3.1-405B': {
    '/transformer/name': 'Llama-3.1-405B', '/transformer/num_layers': '126', '/transformer/hidden_size': '16384', '/transformer/num_attention_heads': '128',
    '/transformer/num_query_groups': '8', '/transformer/ffn_hidden_size': '53248', '/transformer/vocab_size': '128256', '/transformer/seq_length': '8192', ...LLAMA,
    '/training/world_size': '16384', '/pipeline/pp_degree': '16', '/parallel/tp_degree': '8', '/parallel/sequence_parallel': true, '/parallel/cp_degree': '1',
    '/parallel/dp_degree': '128', '/parallel/ep_degree': '1', '/training/global_batch_size': '2048', '/training/micro_batch_size': '1',
    '/training/precision': 'bf16', '/training/sharding': 'optimizer_and_grads', '/device/preset': 'h100_sxm', '/device/compute_efficiency': '0.6',
  },
  'DeepSeek-V3': {
    '/transformer/name': 'DeepSeek-V3', '/transformer/num_layers': '61', '/transformer/hidden_size': '7168', '/transformer/num_attention_heads': '128',
    '/transformer/ffn_hidden_size': '18432', '/transformer/vocab_size': '129280', '/transformer/seq_length': '4096',
    '/transformer/normalization': 'rmsnorm', '/transformer/gated_mlp': true, '/transformer/dropout': false, '/transformer/tied_embeddings': false,
    '/transformer/moe/num_experts': '256', '/transformer/moe/top_k': '8', '/transformer/moe/expert_ffn_hidden_size': '2048',
    '/transformer/moe/first_dense_layers': '3', '/transformer/moe/shared_experts': '1',
    '/training/world_size': '2048', '/pipeline/pp_degree': '16', '/parallel/tp_degree': '1', '/parallel/cp_degree': '1', '/parallel/dp_degree': '128',
    '/parallel/ep_degree': '64', '/training/global_batch_size': '15360', '/training/micro_batch_size': '1', '/training/precision': 'fp8',
    '/training/sharding': 'optimizer', '/device/preset': 'h800', '/device/compute_efficiency': '0.6',
    [EXTRA]: JSON.stringify({ mla: { q_lora_rank: 1536, kv_lora_rank: 512, qk_rope_head_dim: 64, qk_nope_head_dim: 128, v_head_dim: 128 }, mtp_layers: 1 }),
  },
  'Qwen3-235B-A22B': {
    '/transformer/name': 'Qwen3-235B-A22B', '/transformer/num_layers': '94', '/transformer/hidden_size': '4096', '/transformer/num_attention_heads': '64',
    '/transformer/num_query_groups': '4', '/transformer/ffn_hidden_size': '12288', '/transformer/vocab_size': '151936', '/transformer/seq_length': '4096',
    '/transformer/normalization': 'rmsnorm', '/transformer/gated_mlp': true, '/transformer/dropout': false, '/transformer/tied_embeddings': false,
    '/transformer/moe/num_experts': '128', '/transformer/moe/top_k': '8', '/transformer/moe/expert_ffn_hidden_size': '1536',
    '/training/world_size': '256', '/pipeline/pp_degree': '8', '/parallel/tp_degree': '2', '/parallel/sequence_parallel': true, '/parallel/cp_degree': '1',
    '/parallel/dp_degree': '16', '/parallel/ep_degree': '32', '/parallel/expert_tp_degree': '1', '/training/global_batch_size': '2048',
    '/training/micro_batch_size': '1', '/training/precision': 'bf16', '/training/sharding': 'optimizer', '/device/preset': 'h100_sxm',
    '/device/compute_efficiency': '0.6',
    [EXTRA]: JSON.stringify({ head_dim: 128, qk_norm: true }),
  },
  'Mixtral-8x7B': {
    '/transformer/name': 'Mixtral-8x7B', '/transformer/num_layers': '32', '/transformer/hidden_size': '4096', '/transformer/num_attention_heads': '32',
    '/transformer/num_query_groups': '8', '/transformer/ffn_hidden_size': '14336', '/transformer/vocab_size': '32000', '/transformer/seq_length': '4096',
    '/transformer/normalization': 'rmsnorm', '/transformer/gated_mlp': true, '/transformer/dropout': false, '/transformer/tied_embeddings': false,
    '/transformer/moe/num_experts': '8', '/transformer/moe/top_k': '2',
    '/training/world_size': '64', '/pipeline/pp_degree': '4', '/parallel/tp_degree': '1', '/parallel/cp_degree': '1', '/parallel/dp_degree': '16',
    '/parallel/ep_degree': '8', '/training/global_batch_size': '256', '/training/micro_batch_size': '1', '/training/precision': 'bf16',
    '/training/sharding': 'optimizer', '/device/preset': 'h100_sxm', '/device/compute_efficiency': '0.6',
  },
  'Llama-2 7B': {
    '/transformer/name': 'llama2-7b', '/transformer/num_layers': '32', '/transformer/hidden_size': '4096', '/transformer/num_attention_heads': '32',
    '/transformer/num_query_groups': '32', '/transformer/ffn_hidden_size': '11008', '/transformer/vocab_size': '32000', '/transformer/seq_length': '4096', ...LLAMA,
    '/training/world_size': '128', '/pipeline/pp_degree': '8', '/parallel/tp_degree': '2', '/parallel/sequence_parallel': true, '/parallel/cp_degree': '1',
    '/parallel/dp_degree': '8', '/parallel/ep_degree': '1', '/training/global_batch_size': '1024', '/training/micro_batch_size': '1',
    '/training/precision': 'bf16', '/training/sharding': 'optimizer', '/device/preset': 'h100_sxm', '/device/compute_efficiency': '0.5',
  },
  'Llama-2 70B': {
    '/transformer/name': 'llama2-70b', '/transformer/num_layers': '80', '/transformer/hidden_size': '8192', '/transformer/num_attention_heads': '64',
    '/transformer/num_query_groups': '8', '/transformer/ffn_hidden_size': '28672', '/transformer/vocab_size': '32000', '/transformer/seq_length': '4096', ...LLAMA,
    '/training/world_size': '256', '/pipeline/pp_degree': '8', '/parallel/tp_degree': '8', '/parallel/sequence_parallel': true, '/parallel/cp_degree': '1',
    '/parallel/dp_degree': '4', '/parallel/ep_degree': '1', '/training/global_batch_size': '1024', '/training/micro_batch_size': '1',
    '/training/precision': 'bf16', '/training/sharding': 'optimizer', '/device/preset': 'h100_sxm', '/device/compute_efficiency': '0.5',
  },
  'GPT-3 175B': {
    '/transformer/name': 'gpt3-175b', '/transformer/num_layers': '96', '/transformer/hidden_size': '12288', '/transformer/num_attention_heads': '96',
    '/transformer/num_query_groups': '96', '/transformer/ffn_hidden_size': '49152', '/transformer/vocab_size': '51200', '/transformer/seq_length': '2048',
    '/transformer/normalization': 'layernorm', '/transformer/gated_mlp': false, '/transformer/dropout': true, '/transformer/tied_embeddings': true,
    '/transformer/moe/num_experts': '0',
    '/training/world_size': '1536', '/pipeline/pp_degree': '16', '/parallel/tp_degree': '8', '/parallel/sequence_parallel': true, '/parallel/cp_degree': '1',
    '/parallel/dp_degree': '12', '/parallel/ep_degree': '1', '/training/global_batch_size': '1536', '/training/micro_batch_size': '1',
    '/training/precision': 'bf16', '/training/sharding': 'none', '/device/preset': 'a100_80gb', '/device/compute_efficiency': '0.5',
  },
};

/** The preset the form opens on. */
export const DEFAULT_PRESET = 'Llama-2 7B';

/**
 * Every field's value for a preset: its own, else blank; nothing kept beside the form unless the preset says so.
 * @param {string} name
 * @returns {Record<string, string | boolean>}
 */
export function presetValues(name) {
  return { ...Object.fromEntries(FIELDS.map((field) => [field.path, blank(field)])), [EXTRA]: '', ...PRESETS[name] };
}


/** @param {string} path */
const fieldId = (path) => `tf${path.replace(/\//g, '-')}`;

/**
 * Builds the form into container. `onBuild` gets the values when the person asks for the model.
 * @param {HTMLElement} container
 * @param {{onBuild: (values: Record<string, string | boolean>) => void}} hooks
 */
export function buildTransformerForm(container, { onBuild }) {
  const preset = el('select', { attrs: { id: 'tf-preset', 'aria-label': t('Preset') } }, [
    el('option', { text: t('Preset…'), attrs: { value: '' } }),
    ...Object.keys(PRESETS).map((name) => el('option', { text: name, attrs: { value: name } })),
  ]);
  preset.addEventListener('change', () => {
    if (preset.value) setTransformerValues(container, presetValues(preset.value));
  });
  /** @type {Map<string, HTMLElement>} */
  const groups = new Map();
  for (const field of FIELDS) {
    let group = groups.get(field.group);
    if (!group) {
      group = el('div', { class: 'tf-grid' });
      container.append(el('h3', { class: 'tf-group', text: t(field.group) }), group);
      groups.set(field.group, group);
    }
    const id = fieldId(field.path);
    /** @type {HTMLInputElement | HTMLSelectElement} */
    let input;
    if (field.kind === 'select') {
      input = el('select', { attrs: { id } }, (field.options ?? []).map((o) => (typeof o === 'string'
        ? el('option', { text: o, attrs: { value: o } })
        : el('option', { text: t(o.label), attrs: { value: o.value } }))));
    } else if (field.kind === 'check') {
      input = el('input', { attrs: { id, type: 'checkbox' } });
    } else {
      input = el('input', { attrs: { id, type: 'text', inputmode: field.kind === 'number' ? 'decimal' : null, autocomplete: 'off' } });
    }
    input.dataset.path = field.path;
    const wrapper = el('div', { class: `field${field.kind === 'check' ? ' check-field' : ''}`, attrs: { 'data-error-for': field.path } },
      field.kind === 'check' ? [el('label', {}, [input, ` ${t(field.label)}`])] : [el('label', { text: t(field.label), attrs: { for: id } }), input]);
    group.append(wrapper);
  }
  const build = el('button', { class: 'button primary small', text: t('Build model'), attrs: { type: 'button', id: 'tf-build' } });
  build.addEventListener('click', () => onBuild(transformerValues(container)));
  container.prepend(el('div', { class: 'tf-head' }, [preset, build]),
    el('p', { class: 'hint', text: t('A preset fills every field with a published model and the run its authors describe; Build model makes its layers, and its devices, batch and parallelism become the search\'s cluster.') }));
  const extra = el('input', { attrs: { id: 'tf-extra', type: 'hidden' } });
  extra.dataset.path = EXTRA;
  container.append(extra, el('p', { class: 'hint tf-extra-note', attrs: { id: 'tf-extra-note', hidden: '' } }),
    el('div', { class: 'tf-general', attrs: { 'data-error-for': '' } }));
  // A device preset supplies the peak throughput (and FP8's): the field may stay empty.
  container.querySelector(`#${fieldId('/device/preset')}`)?.addEventListener('change', () => showDevice(container));
  setTransformerValues(container, presetValues(DEFAULT_PRESET));
}

/**
 * The peak TFLOP/s field says where its value comes from when left empty: the device preset's, or nowhere.
 * @param {HTMLElement} container
 */
function showDevice(container) {
  const device = container.querySelector(`#${fieldId('/device/preset')}`);
  const peak = container.querySelector(`#${fieldId('/device/peak_tflops')}`);
  if (!(device instanceof HTMLSelectElement) || !(peak instanceof HTMLInputElement)) return;
  peak.placeholder = device.value ? t('the device\'s') : t('required');
}

/**
 * @param {HTMLElement} container
 * @returns {Record<string, string | boolean>}
 */
export function transformerValues(container) {
  /** @type {Record<string, string | boolean>} */
  const values = {};
  for (const input of container.querySelectorAll('input[data-path], select[data-path]')) {
    const path = /** @type {HTMLElement} */ (input).dataset.path ?? '';
    if (input instanceof HTMLInputElement && input.type === 'checkbox') values[path] = input.checked;
    else values[path] = /** @type {HTMLInputElement | HTMLSelectElement} */ (input).value;
  }
  return values;
}

/**
 * The engine's device presets in the form's device picker (from its ready message), keeping the value it holds.
 * @param {HTMLElement} container
 * @param {import('./types.js').DevicePresetFacts[]} devices
 */
export function setTransformerDevices(container, devices) {
  const select = container.querySelector('select[data-path="/device/preset"]');
  if (select instanceof HTMLSelectElement) fillDeviceSelect(select, devices, t('none: give its peak'));
}

/**
 * @param {HTMLElement} container
 * @param {Record<string, string | boolean>} values
 */
export function setTransformerValues(container, values) {
  for (const input of container.querySelectorAll('input[data-path], select[data-path]')) {
    const path = /** @type {HTMLElement} */ (input).dataset.path ?? '';
    if (!(path in values)) continue;
    const value = values[path];
    if (input instanceof HTMLInputElement && input.type === 'checkbox') input.checked = value === true;
    else if (input instanceof HTMLSelectElement && path === '/device/preset') setDeviceValue(input, String(value));
    else /** @type {HTMLInputElement | HTMLSelectElement} */ (input).value = String(value);
  }
  showDevice(container);
  const note = container.querySelector('#tf-extra-note');
  if (note instanceof HTMLElement) {
    const kept = extraFields(transformerValues(container)[EXTRA]);
    note.hidden = kept === null;
    note.textContent = kept === null ? '' : t('Also in the description, without a field here: {fields}', { fields: keptText(kept) });
  }
}

/**
 * The description fields kept beside the form: the object EXTRA holds, or null when it holds none (or no JSON).
 * @param {string | boolean | undefined} text
 * @returns {Record<string, any> | null}
 */
function extraFields(text) {
  if (typeof text !== 'string' || text.trim() === '') return null;
  try {
    const kept = JSON.parse(text);
    return kept && typeof kept === 'object' && !Array.isArray(kept) && Object.keys(kept).length > 0 ? kept : null;
  } catch {
    return null;
  }
}

/**
 * "head_dim 128, moe.layer_freq [0,1,1]": the kept fields, one path and value each.
 * @param {Record<string, any>} kept
 * @param {string} [prefix]
 * @returns {string}
 */
function keptText(kept, prefix = '') {
  return Object.entries(kept).map(([key, value]) => (value && typeof value === 'object' && !Array.isArray(value)
    ? keptText(value, `${prefix}${key}.`)
    : `${prefix}${key} ${JSON.stringify(value)}`)).join(', ');
}

/** What the generator assumes for a description field left out (docs/transformer-model.md), as the form shows it. */
/** @type {Record<string, string | boolean>} */
const GENERATOR_DEFAULTS = {
  '/transformer/normalization': 'layernorm', '/transformer/attention': 'flash', '/transformer/gated_mlp': false, '/transformer/dropout': true,
  '/transformer/tied_embeddings': true, '/transformer/moe/num_experts': '0',
};

/**
 * The form's values for a description the engine made (result.transformer of an import): each field's value, its
 * default where the description leaves it out (the generator's), and under EXTRA the fields the form has no input
 * for. Parallelism, training and device keep what the form holds.
 * @param {Record<string, any>} description
 * @returns {Record<string, string | boolean>}
 */
export function descriptionValues(description) {
  /** @type {Record<string, any>} */
  const rest = structuredClone(description);
  /** @type {Record<string, string | boolean>} */
  const values = {};
  for (const field of FIELDS) {
    if (!field.path.startsWith('/transformer/')) continue;
    const keys = field.path.split('/').slice(2);
    /** @type {any} */
    let parent = rest;
    for (const key of keys.slice(0, -1)) parent = parent && typeof parent === 'object' ? parent[key] : undefined;
    const last = keys[keys.length - 1];
    const value = parent && typeof parent === 'object' ? parent[last] : undefined;
    if (parent && typeof parent === 'object') delete parent[last];
    if (field.kind === 'check') values[field.path] = value === undefined ? GENERATOR_DEFAULTS[field.path] === true : value === true;
    else if (value !== undefined) values[field.path] = String(value);
    else values[field.path] = String(GENERATOR_DEFAULTS[field.path] ?? '');
  }
  if (rest.moe && typeof rest.moe === 'object' && Object.keys(rest.moe).length === 0) delete rest.moe;
  values[EXTRA] = Object.keys(rest).length > 0 ? JSON.stringify(rest) : '';
  return values;
}

/**
 * The import request for the form's values: each path becomes a nested field; empty text fields are left out
 * (the generator's defaults apply).
 * @param {Record<string, string | boolean>} values
 * @returns {Record<string, any>}
 */
export function transformerRequest(values) {
  /** @type {Record<string, any>} */
  const request = {};
  for (const field of FIELDS) {
    const value = values[field.path];
    if (value === undefined) continue;
    let json;
    if (field.kind === 'check') json = value === true;
    else if (field.kind === 'number') json = numberField(String(value));
    else json = String(value).trim() === '' ? undefined : String(value);
    if (json === undefined) continue;
    const keys = field.path.split('/').slice(1);
    let target = request;
    for (const key of keys.slice(0, -1)) target = target[key] ??= {};
    target[keys[keys.length - 1]] = json;
  }
  const kept = extraFields(values[EXTRA]);
  if (kept) request.transformer = merged(request.transformer ?? {}, kept);
  return request;
}

/**
 * `into` with `from`'s fields added, objects merged field by field (the form's moe fields and the kept moe.layer_freq).
 * @param {Record<string, any>} into
 * @param {Record<string, any>} from
 * @returns {Record<string, any>}
 */
function merged(into, from) {
  /** @type {Record<string, any>} */
  const out = { ...into };
  for (const [key, value] of Object.entries(from)) {
    const both = value && typeof value === 'object' && !Array.isArray(value) && out[key] && typeof out[key] === 'object';
    out[key] = both ? merged(out[key], value) : value;
  }
  return out;
}
