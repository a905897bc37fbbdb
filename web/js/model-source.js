// Reading a document that arrived (example, file, drop, paste): JSON or not, what kind, and through the engine's
// import command when it is a model, so a broken file never replaces a good model. Returns what to do with it;
// the page does it.

/** @import {EngineError, EngineResponse, PageState} from './types.js' */
import { classify } from './model-input.js';
import { stateFromFile } from './share.js';
import { CancelledError } from './worker-client.js';

/**
 * @typedef {{kind: 'problem', errors: EngineError[]}
 *         | {kind: 'state', state: PageState} | {kind: 'cancelled'}
 *         | {kind: 'model', model: any, label: string, warnings: EngineError[], request: any | null}} Reading
 */

/**
 * @param {{text: string, name: string}} incoming
 * @param {(request: object) => Promise<EngineResponse>} importModel the engine's import command
 * @returns {Promise<Reading>}
 */
export async function readDocument({ text, name }, importModel) {
  /** @param {string} code @param {string} message @returns {Reading} */
  const problem = (code, message) => ({ kind: 'problem', errors: [{ code, path: '', message }] });
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    return problem('JSON_SYNTAX', `${name} is not valid JSON: ${syntaxMessage(text, error)}`);
  }
  const huge = nonFinitePath(doc, '');
  if (huge !== null) {
    return { kind: 'problem', errors: [{ code: 'NUMBER_TOO_LARGE', path: huge,
      message: `${name}: the number at ${huge || 'the top'} is too large for JSON to carry (beyond about 1.8e308, it reads as infinity); write a smaller one.` }] };
  }
  const what = classify(doc);
  if (what === 'unknown') {
    return problem('MODEL_UNKNOWN', `${name} is not something PPB reads: expected a ppb.model.v1 document ("layers"), a SAPP layer file ` +
      '("layers_description"), a "transformer" description, a request with a "model", or a PPB state file.');
  }
  if (what === 'state') {
    const state = stateFromFile(doc);
    return state ? { kind: 'state', state } : problem('STATE_INVALID', `${name} is a PPB state file without a model.`);
  }
  let response;
  try {
    response = await importModel(what === 'model' ? { model: doc } : what === 'request' ? { model: doc.model } : doc);
  } catch (error) {
    if (error instanceof CancelledError) return { kind: 'cancelled' };
    return problem('ENGINE', `${name} could not be checked: ${error instanceof Error ? error.message : error}`);
  }
  if (!response.ok) return { kind: 'problem', errors: response.errors.map((e) => ({ ...e, message: `${name}: ${e.message}` })) };
  // A ppb.model.v1 document is kept as written (its option order is the order of recompute counts); imported
  // documents are the engine's.
  const model = what === 'model' ? doc : what === 'request' ? doc.model : response.result.model;
  const source = response.result.source;
  const label = source === 'sapp' ? `${model.name || name} (imported from the SAPP file ${name})`
    : source === 'transformer' ? `${model.name || name} (generated from a transformer description)`
    : model.name || name;
  return { kind: 'model', model, label, warnings: response.warnings ?? [], request: what === 'request' ? doc : null };
}

/**
 * Where a JSON syntax error is, as line and column (1-based), with the parser's reason.
 * @param {string} text
 * @param {unknown} error what JSON.parse threw
 * @returns {string}
 */
export function syntaxMessage(text, error) {
  const raw = error instanceof Error ? error.message : String(error);
  const at = /at position (\d+)/.exec(raw);
  const position = at ? Number(at[1]) : text.length;
  const before = text.slice(0, position);
  const line = (before.match(/\n/g)?.length ?? 0) + 1;
  const column = position - before.lastIndexOf('\n');
  const reason = at ? raw.replace(/\s*in JSON at position \d+.*$/s, '') : 'the text ends before the JSON does (a bracket, brace or quote is not closed)';
  return `line ${line}, column ${column}: ${reason}.`;
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
