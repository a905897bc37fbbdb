// Web worker that hosts the PPB engine (ppb_engine.js + ppb_engine.wasm) off the main thread.
// A classic worker, because the Emscripten module is built as a non-ES6 MODULARIZE script.
// Messages in:  {id, command, request}  where request is a JSON string.
// Messages out: {type: 'ready'} | {type: 'fatal', error} once, then {id, ok: true, response} | {id, ok: false, error}.
'use strict';

const COMMANDS = new Set(['estimate', 'balance', 'search', 'import', 'export']);

/** @type {Promise<any>} */
let engine;
try {
  importScripts('ppb_engine.js');
  engine = /** @type {any} */ (self).createPpbEngine();
} catch (error) {
  engine = Promise.reject(error);
}
engine.then(
  () => self.postMessage({ type: 'ready' }),
  (error) => self.postMessage({ type: 'fatal', error: String(error) }),
);

self.addEventListener('message', async (/** @type {MessageEvent} */ event) => {
  const { id, command, request } = event.data;
  try {
    if (!COMMANDS.has(command)) throw new Error(`unknown command: ${command}`);
    const ppb = await engine;
    const response = ppb[command](request);
    self.postMessage({ id, ok: true, response });
  } catch (error) {
    self.postMessage({ id, ok: false, error: String(error) });
  }
});
