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
    return problem('JSON_SYNTAX', `${name} is not valid JSON: ${error instanceof Error ? error.message : error}.`);
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
