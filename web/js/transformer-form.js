// The symbolic transformer form: fields of the `transformer` description (docs/transformer-model.md) with
// presets, turned into an import request; the engine's generator makes the ppb.model.v1 document. Field values
// are kept as typed; errors come back with paths such as /transformer/hidden_size and land on that field. A
// description the engine imported (from a Hugging Face config.json) fills the fields; what it says beyond them
// (head_dim, qk_norm, mla, ...) is kept as JSON text beside the fields, under EXTRA, and sent with them.

import { el } from './dom.js';
import { t } from './i18n.js';
import { numberField } from './requests.js';

/**
 * @typedef {{path: string, label: string, kind: 'number' | 'text' | 'check' | 'select', unit?: string,
 *            options?: string[], group: string, hint?: string}} TransformerField
 */

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
  { path: '/transformer/gated_mlp', label: 'gated MLP (SwiGLU)', kind: 'check', group: 'Model' },
  { path: '/transformer/dropout', label: 'dropout', kind: 'check', group: 'Model' },
  { path: '/transformer/tied_embeddings', label: 'tied embeddings', kind: 'check', group: 'Model' },
  { path: '/transformer/moe/num_experts', label: 'experts (0 = dense)', kind: 'number', group: 'Mixture of experts' },
  { path: '/transformer/moe/top_k', label: 'experts per token', kind: 'number', group: 'Mixture of experts' },
  { path: '/transformer/moe/expert_ffn_hidden_size', label: 'expert FFN size', kind: 'number', group: 'Mixture of experts' },
  { path: '/transformer/moe/first_dense_layers', label: 'first dense layers', kind: 'number', group: 'Mixture of experts' },
  { path: '/transformer/moe/shared_experts', label: 'shared experts', kind: 'number', group: 'Mixture of experts' },
  { path: '/parallel/tp_degree', label: 'tensor parallel', kind: 'number', group: 'Parallelism and training' },
  { path: '/parallel/sequence_parallel', label: 'sequence parallel', kind: 'check', group: 'Parallelism and training' },
  { path: '/parallel/cp_degree', label: 'context parallel', kind: 'number', group: 'Parallelism and training' },
  { path: '/parallel/ep_degree', label: 'expert parallel', kind: 'number', group: 'Parallelism and training' },
  { path: '/parallel/dp_degree', label: 'data parallel', kind: 'number', group: 'Parallelism and training' },
  { path: '/training/micro_batch_size', label: 'micro batch size', kind: 'number', group: 'Parallelism and training' },
  { path: '/training/precision', label: 'precision', kind: 'select', options: ['bf16', 'fp16', 'fp32'], group: 'Parallelism and training' },
  { path: '/training/distributed_optimizer', label: 'distributed optimizer', kind: 'check', group: 'Parallelism and training' },
  { path: '/device/peak_tflops', label: 'peak TFLOP/s', kind: 'number', group: 'Device' },
  { path: '/device/compute_efficiency', label: 'efficiency (0–1]', kind: 'number', group: 'Device' },
];

/** @type {Record<string, Record<string, string | boolean>>} */
export const PRESETS = {
  'Llama-2 7B': {
    '/transformer/name': 'llama2-7b', '/transformer/num_layers': '32', '/transformer/hidden_size': '4096', '/transformer/num_attention_heads': '32',
    '/transformer/num_query_groups': '32', '/transformer/ffn_hidden_size': '11008', '/transformer/vocab_size': '32000', '/transformer/seq_length': '4096',
    '/transformer/normalization': 'rmsnorm', '/transformer/gated_mlp': true, '/transformer/dropout': false, '/transformer/tied_embeddings': false,
    '/transformer/moe/num_experts': '0', '/parallel/tp_degree': '2', '/parallel/sequence_parallel': true, '/parallel/cp_degree': '1', '/parallel/ep_degree': '1',
    '/parallel/dp_degree': '8', '/training/micro_batch_size': '1', '/training/precision': 'bf16', '/training/distributed_optimizer': true,
    '/device/peak_tflops': '989', '/device/compute_efficiency': '0.5',
  },
  'Llama-2 70B': {
    '/transformer/name': 'llama2-70b', '/transformer/num_layers': '80', '/transformer/hidden_size': '8192', '/transformer/num_attention_heads': '64',
    '/transformer/num_query_groups': '8', '/transformer/ffn_hidden_size': '28672', '/transformer/vocab_size': '32000', '/transformer/seq_length': '4096',
    '/transformer/normalization': 'rmsnorm', '/transformer/gated_mlp': true, '/transformer/dropout': false, '/transformer/tied_embeddings': false,
    '/transformer/moe/num_experts': '0', '/parallel/tp_degree': '8', '/parallel/sequence_parallel': true, '/parallel/cp_degree': '1', '/parallel/ep_degree': '1',
    '/parallel/dp_degree': '4', '/training/micro_batch_size': '1', '/training/precision': 'bf16', '/training/distributed_optimizer': true,
    '/device/peak_tflops': '989', '/device/compute_efficiency': '0.5',
  },
  'GPT-3 175B': {
    '/transformer/name': 'gpt3-175b', '/transformer/num_layers': '96', '/transformer/hidden_size': '12288', '/transformer/num_attention_heads': '96',
    '/transformer/num_query_groups': '96', '/transformer/ffn_hidden_size': '49152', '/transformer/vocab_size': '51200', '/transformer/seq_length': '2048',
    '/transformer/normalization': 'layernorm', '/transformer/gated_mlp': false, '/transformer/dropout': true, '/transformer/tied_embeddings': true,
    '/transformer/moe/num_experts': '0', '/parallel/tp_degree': '8', '/parallel/sequence_parallel': true, '/parallel/cp_degree': '1', '/parallel/ep_degree': '1',
    '/parallel/dp_degree': '8', '/training/micro_batch_size': '1', '/training/precision': 'bf16', '/training/distributed_optimizer': false,
    '/device/peak_tflops': '989', '/device/compute_efficiency': '0.5',
  },
};

/** The key of the form's values that holds the description fields the form has no input for, as JSON text. */
export const EXTRA = 'extra';

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
    if (preset.value) setTransformerValues(container, { ...PRESETS[preset.value], [EXTRA]: '' });
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
      input = el('select', { attrs: { id } }, (field.options ?? []).map((o) => el('option', { text: o, attrs: { value: o } })));
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
  container.prepend(el('div', { class: 'tf-head' }, [preset, build]));
  const extra = el('input', { attrs: { id: 'tf-extra', type: 'hidden' } });
  extra.dataset.path = EXTRA;
  container.append(extra, el('p', { class: 'hint tf-extra-note', attrs: { id: 'tf-extra-note', hidden: '' } }),
    el('div', { class: 'tf-general', attrs: { 'data-error-for': '' } }));
  setTransformerValues(container, PRESETS['Llama-2 7B']);
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
 * @param {HTMLElement} container
 * @param {Record<string, string | boolean>} values
 */
export function setTransformerValues(container, values) {
  for (const input of container.querySelectorAll('input[data-path], select[data-path]')) {
    const path = /** @type {HTMLElement} */ (input).dataset.path ?? '';
    if (!(path in values)) continue;
    const value = values[path];
    if (input instanceof HTMLInputElement && input.type === 'checkbox') input.checked = value === true;
    else /** @type {HTMLInputElement | HTMLSelectElement} */ (input).value = String(value);
  }
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
  '/transformer/normalization': 'layernorm', '/transformer/gated_mlp': false, '/transformer/dropout': true,
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
