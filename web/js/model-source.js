// Reading a document that arrived (example, file, drop, paste): JSON or not, what kind, and what to do with it (the
// page does it). A SAPP file or a transformer description goes through the engine's import command, which makes the
// model; a Hugging Face config.json goes to the transformer form (js/model-loader.js), whose settings it needs. A ppb.model.v1 document (alone or in a request) is the model already: it is not sent to the engine twice
// (once to import, once to plan, which for a large model doubles the wait); the engine checks it with the first
// plan, and the page takes it back if the engine refuses it (js/model-loader.js), so a broken file never
// replaces a good model.

/** @import {EngineError, EngineLimits, EngineResponse, PageState} from './types.js' */
import { classify } from './model-input.js';
import { stateFromFile } from './share.js';
import { CancelledError } from './worker-client.js';
import { jsonErrorAt } from './json-error.js';
import { count } from './format.js';

/**
 * @typedef {{kind: 'problem', errors: EngineError[]}
 *         | {kind: 'state', state: PageState} | {kind: 'cancelled'} | {kind: 'hf_config', config: any}
 *         | {kind: 'model', model: any, label: string, warnings: EngineError[], request: any | null,
 *            checked: boolean, text: string | null}} Reading
 *   checked: the engine has read the model (an import); false for a ppb.model.v1 document, which the first plan
 *   checks. text: the model's own JSON text when the document is the model (the worker keeps it as it is)
 */

/**
 * @param {{text: string, name: string}} incoming
 * @param {(request: object) => Promise<EngineResponse>} importModel the engine's import command
 * @param {EngineLimits | null} [limits] the engine's caps (its limits()): a model over its cap on layers is refused at
 *   once, as the engine would refuse it, rather than after the engine has read megabytes of it
 * @returns {Promise<Reading>}
 */
export async function readDocument({ text, name }, importModel, limits = null) {
  /** @param {string} code @param {string} message @returns {Reading} */
  const problem = (code, message) => ({ kind: 'problem', errors: [{ code, path: '', message }] });
  let doc;
  try {
    doc = JSON.parse(text);
    performance.mark('ppb:parsed');
  } catch (error) {
    return problem('JSON_SYNTAX', `${name} is not valid JSON: ${syntaxMessage(text, error)}`);
  }
  // Only a number with 309 digits or more, or an exponent of three digits, can overflow to infinity: most files
  // have none, and the walk over a large model's every value is skipped.
  const huge = /\d{309}|[eE][+]?\d{3}/.test(text) ? nonFinitePath(doc, '') : null;
  if (huge !== null) {
    return { kind: 'problem', errors: [{ code: 'NUMBER_TOO_LARGE', path: huge,
      message: `${name}: the number at ${huge || 'the top'} is too large for JSON to carry (beyond about 1.8e308, it reads as infinity); write a smaller one.` }] };
  }
  const what = classify(doc);
  if (what === 'unknown') {
    return problem('MODEL_UNKNOWN', `${name} is not something PPB reads: expected a ppb.model.v1 document ("layers"), a SAPP layer file ` +
      '("layers_description"), a "transformer" description, a Hugging Face config.json ("model_type"), a request with a "model", ' +
      'or a PPB state file.');
  }
  if (what === 'hf_config') return { kind: 'hf_config', config: doc };
  if (what === 'state') {
    const state = stateFromFile(doc);
    return state ? { kind: 'state', state } : problem('STATE_INVALID', `${name} is a PPB state file without a model.`);
  }
  if (what === 'model' || what === 'request') {
    const model = what === 'model' ? doc : doc.model;
    const over = limits ? overLayerCap(model, limits.max_layers, what === 'model' ? '' : '/model') : null;
    if (over) return { kind: 'problem', errors: [{ ...over, message: `${name}: ${over.message}` }] };
    return { kind: 'model', model, label: (typeof model.name === 'string' && model.name) || name, warnings: [],
      request: what === 'request' ? doc : null, checked: false, text: what === 'model' ? text : null };
  }
  let response;
  try {
    response = await importModel(doc);
    performance.mark('ppb:imported');
  } catch (error) {
    if (error instanceof CancelledError) return { kind: 'cancelled' };
    return problem('ENGINE', `${name} could not be checked: ${error instanceof Error ? error.message : error}`);
  }
  if (!response.ok) return { kind: 'problem', errors: response.errors.map((e) => ({ ...e, message: `${name}: ${e.message}` })) };
  const model = response.result.model;
  const source = response.result.source;
  const label = source === 'sapp' ? `${model.name || name} (imported from the SAPP file ${name})`
    : source === 'transformer' ? `${model.name || name} (generated from a transformer description)`
    : model.name || name;
  return { kind: 'model', model, label, warnings: response.warnings ?? [], request: null, checked: true, text: null };
}

/**
 * The engine's LAYER_LIMIT, found before the engine reads the model: more layer entries than the cap, or entries
 * whose counts expand past it (io/model_reader.cpp says the same, with the same code and path; the cap is the
 * engine's, from its limits()).
 * @param {any} model a ppb.model.v1 document
 * @param {number} cap the engine's limits().max_layers
 * @param {string} base the model's JSON Pointer in the document ('' for a model alone)
 * @returns {EngineError | null}
 */
export function overLayerCap(model, cap, base) {
  const layers = model?.layers;
  if (!Array.isArray(layers)) return null;
  if (layers.length > cap) {
    return { code: 'LAYER_LIMIT', path: `${base}/layers`, message: `the model has ${count(layers.length)} entries, above the cap of ${count(cap)}.` };
  }
  let expanded = 0;
  for (let i = 0; i < layers.length; ++i) {
    const layer = layers[i];
    const n = layer && typeof layer === 'object' ? layer.count ?? 1 : 1;
    expanded += Number.isInteger(n) && n > 0 ? n : 1;
    if (expanded > cap) {
      return { code: 'LAYER_LIMIT', path: `${base}/layers/${i}/count`,
        message: `the model expands to more than ${count(cap)} layers, the cap; merge layers into blocks.` };
    }
  }
  return null;
}

/**
 * Where a JSON syntax error is, as line and column (1-based) of the first offending character, with the reason
 * (js/json-error.js; the browser's own message, which often names no position, only when the scan finds nothing).
 * @param {string} text
 * @param {unknown} error what JSON.parse threw
 * @returns {string}
 */
export function syntaxMessage(text, error) {
  const found = jsonErrorAt(text);
  const raw = error instanceof Error ? error.message : String(error);
  const position = found?.position ?? text.length;
  const before = text.slice(0, position);
  const line = (before.match(/\n/g)?.length ?? 0) + 1;
  const column = position - before.lastIndexOf('\n');
  return `line ${line}, column ${column}: ${found?.reason ?? raw}.`;
}

/**
 * The JSON Pointer of the first number that parsed to infinity (JSON allows 1e999; JavaScript cannot keep it and
 * would send it on as null), or null when there is none.
 * @param {unknown} value
 * @param {string} path
 * @returns {string | null}
 */
export function nonFinitePath(value, path) {
  if (typeof value === 'number') return Number.isFinite(value) ? null : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; ++i) {
      const found = nonFinitePath(value[i], `${path}/${i}`);
      if (found !== null) return found;
    }
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = nonFinitePath(item, `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
      if (found !== null) return found;
    }
  }
  return null;
}
