// Web worker that hosts the PPB engine (ppb_engine.js + ppb_engine.wasm) off the main thread.
// A classic worker, because the Emscripten module is built as a non-ES6 MODULARIZE script.
//
// One protocol for long work (docs/page.md, "The worker protocol"): every command the engine runs in slices
// (its slicedCommands(): balance, search) is started, run slice by slice through the module's WorkSession with
// progress between slices, answered, and cancellable between slices; every other command is one call.
// Messages in:
//   {type: 'run', id, command, request}     a command (request: a JSON string): long work in slices when the engine
//                                            runs it so (its slicedCommands(): balance, search), else answered at
//                                            once (estimate, import, export, compare, cluster). Runs that come before
//                                            the engine has loaded wait for it, in the order they came: the page's
//                                            first plan need not wait for the ready message to cross to the page
//   {type: 'cancel', id}                    stop that work between two slices; its result so far is the answer. A
//                                            run still waiting for the engine is dropped, unanswered
//   {type: 'model', ref, bytes}             keep a model document (its JSON text as UTF-8 bytes, a transferred buffer;
//                                            a ppb.model.v1 document or a request holding one) under ref: the engine
//                                            reads it once (its keepModel) and requests name it
//   {type: 'drop-model', ref}               forget it
//   A 'run' with `model: ref` has a request without its model; the engine takes the kept one.
// Messages out:
//   {type: 'ready', version, sliced, schedules, devices, limits} | {type: 'fatal', error}   once; sliced: the commands
//                                            run in slices; schedules: the engine's schedules() (the chunk counts each
//                                            runs); devices: its device presets (devicePresets()); limits: the caps the
//                                            page checks before it sends a document (limits())
//   {type: 'progress', id, progress}        at most every PROGRESS_MS during a start: the engine's progress JSON,
//                                            forwarded as it is (one shape for every command, docs/contract.md)
//   {type: 'interim', id, response}         work still running INTERIM_AFTER_MS after it came (reading the request
//                                            included) that has a best plan so far (a balance): that plan, as a
//                                            response of its command (not proven; notes say it is still running),
//                                            when it is better than the last one sent, at most every
//                                            INTERIM_EVERY_MS; the 'response' follows as always
//   {type: 'response', id, response}        the answer of a run: the engine's response JSON string
//   {type: 'dead', id, error}               the module threw (abort, out of memory): it cannot be trusted any
//                                            more; the page replaces this worker
//   {type: 'warm', ms}                      the warm-up after loading is over (ms: the time it took)
//
// Everything sits in one function scope: the single-file page runs this file in the same script as ppb_engine.js and
// warm-up.js (tools/single-file.mjs), where top-level names would be shared with theirs.
(() => {
  'use strict';

  /** The commands answered at once. */
  const CALLS = new Set(['estimate', 'import', 'export', 'compare', 'cluster']);
  /** @type {string[]} the commands run in slices: the engine's own list, once it has loaded */
  let sliced = [];
  const SLICE_MS = 40;
  const PROGRESS_MS = 50;
  /** A balance that has not finished this long after its call came (reading the request included) sends its best plan
   *  so far, for the page to draw; a better one follows at most every INTERIM_EVERY_MS. */
  const INTERIM_AFTER_MS = 120;
  const INTERIM_EVERY_MS = 700;
  /** The quiet the warm-up after loading waits for before each of its pieces. */
  const WARM_UP_QUIET_MS = 50;
  /** The warm-up starts after the page's first answer, or this long after loading when no call has come: on the cold
   *  module one of its pieces took over a second, and a first plan asked for meanwhile waited for it. */
  const WARM_UP_FIRST_CALL_WAIT_MS = 3000;
  /** When the page's last call came (performance.now()). */
  let lastCall = 0;
  /** The engine has answered a call (a response posted). */
  let answered = false;

  /** @type {any} */
  let engine = null;
  /** @type {Map<number, {cancelled: boolean}>} sliced calls running, by request id */
  const sessions = new Map();
  /** @type {Map<number, number>} the engine's id of each model kept (its keepModel), by the page's reference: a
   *  model of 100,000 layers is read once, not again for every request that names it */
  const models = new Map();
  /** @type {Map<number, Uint8Array>} model documents that came before the engine was ready, kept once it is */
  const waiting = new Map();
  /** @type {any[]} runs that came before the engine was ready, run once it is (in the order they came) */
  const queued = [];

  /**
   * Has the engine read and keep a model document under the page's reference (replacing one kept under it).
   * @param {number} ref
   * @param {Uint8Array} bytes its JSON text as UTF-8
   */
  function keep(ref, bytes) {
    const old = models.get(ref);
    if (old !== undefined) engine.dropModel(old);
    models.set(ref, engine.keepModel(bytes));
  }

  /**
   * Forgets the model kept (or waiting for the engine) under the page's reference.
   * @param {number} ref
   */
  function drop(ref) {
    waiting.delete(ref);
    const id = models.get(ref);
    if (id === undefined) return;
    models.delete(ref);
    engine.dropModel(id);
  }

  /**
   * The engine's id of the kept model a message names: undefined for a request that holds its model, null when the
   * model named is not kept.
   * @param {{model?: number}} message
   * @returns {number | undefined | null}
   */
  function keptModelOf(message) {
    if (message.model === undefined) return undefined;
    return models.get(message.model) ?? null;
  }

  /** @param {any} message */
  function post(message) {
    if (message.type === 'response') answered = true;
    self.postMessage(message);
  }

  /**
   * The module threw: after an Emscripten abort or a failed allocation its state is undefined, so the
   * worker reports itself dead and stops; the page starts a fresh one.
   * @param {number | null} id
   * @param {unknown} error
   */
  function die(id, error) {
    post({ type: 'dead', id, error: String(error instanceof Error ? error.message : error) });
    self.close();
  }

  /**
   * The engine's WASM module compiled while it downloads (the server must send it as application/wasm; a host that
   * does not gets it compiled once downloaded).
   * @param {string} url
   * @returns {Promise<WebAssembly.Module>}
   */
  function compileEngine(url) {
    const response = fetch(url);
    return WebAssembly.compileStreaming(response.then((r) => r.clone())).catch(async () => {
      const fetched = await response;
      if (!fetched.ok) throw new Error(`HTTP ${fetched.status}`);
      return WebAssembly.compile(await fetched.arrayBuffer());
    });
  }

  /** @param {number} ms */
  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  /**
   * The warm-up after loading (warm-up.js), in pieces while the worker is otherwise idle: no sliced call running and
   * none made in the last moment (the page often makes a few in a row).
   */
  async function warmUp() {
    const loaded = performance.now();
    const idle = async () => {
      while (sessions.size > 0 || performance.now() - lastCall < WARM_UP_QUIET_MS ||
             (!answered && performance.now() - loaded < WARM_UP_FIRST_CALL_WAIT_MS)) await pause(WARM_UP_QUIET_MS);
    };
    await idle();
    const started = performance.now();
    // Loaded only now: nothing before the first answer waits for it.
    if (typeof /** @type {any} */ (self).ppbWarmUp !== 'function') importScripts('warm-up.js');
    await /** @type {any} */ (self).ppbWarmUp(engine, idle);
    post({ type: 'warm', ms: performance.now() - started });
  }

  /**
   * Runs long work through the engine's WorkSession in slices, so that cancel messages get through between slices
   * and each slice is a fresh call into the module (V8 moves a function to its optimising tier only between calls).
   * @param {number} id
   * @param {string} command
   * @param {string} request
   * @param {number | undefined} kept the engine's id of the model the request names, if it names one
   */
  async function runSliced(id, command, request, kept) {
    const control = { cancelled: false };
    sessions.set(id, control);
    // The work counts from here: reading a large request is most of it.
    const started = performance.now();
    const session = kept === undefined ? new engine.WorkSession(command, request) : new engine.WorkSession(command, request, kept);
    try {
      const error = session.error();
      if (error) {
        post({ type: 'response', id, response: error });
        return;
      }
      let lastProgress = 0;
      let lastInterim = -Infinity;
      /** @type {number | null} */
      let interimIncumbent = null;
      for (;;) {
        const text = session.step(SLICE_MS);
        /** @type {{finished: boolean, incumbent_ms: number | null}} */
        const progress = JSON.parse(text);
        const now = performance.now();
        if (progress.finished || now - lastProgress >= PROGRESS_MS) {
          post({ type: 'progress', id, progress });
          lastProgress = now;
        }
        if (progress.finished) break;
        // Work with an incumbent has a best plan so far (a balance; a search reports its candidates at the end).
        const incumbent = progress.incumbent_ms;
        if (typeof incumbent === 'number' && now - started >= INTERIM_AFTER_MS && now - lastInterim >= INTERIM_EVERY_MS &&
            (interimIncumbent === null || incumbent < interimIncumbent)) {
          const best = session.bestSoFar();
          if (best) post({ type: 'interim', id, response: best });
          lastInterim = performance.now();
          interimIncumbent = incumbent;
        }
        await pause(0);
        if (control.cancelled) break;
      }
      post({ type: 'response', id, response: session.result(control.cancelled) });
    } finally {
      sessions.delete(id);
      session.delete();
    }
  }

  try {
    // The single-file page (tools/single-file.mjs) makes this worker from one Blob that holds the engine's script
    // and, in PPB_WASM_BASE64, its WASM module; there is nothing beside it to load.
    const global = /** @type {any} */ (self);
    /** @type {Record<string, any>} */
    let overrides = {};
    if (typeof global.createPpbEngine !== 'function') {
      // The module's download and compilation start first, beside the engine's script rather than after it: the
      // longest wait before the engine is ready.
      const compiled = compileEngine('ppb_engine.wasm');
      overrides = { instantiateWasm: (/** @type {WebAssembly.Imports} */ imports, /** @type {(instance: WebAssembly.Instance, module: WebAssembly.Module) => void} */ done) => {
        compiled.then((module) => WebAssembly.instantiate(module, imports).then((instance) => done(instance, module)))
          .catch((/** @type {unknown} */ error) => post({ type: 'fatal', error: `ppb_engine.wasm could not be loaded: ${String(error)}` }));
        return {};
      } };
      importScripts('ppb_engine.js');
    }
    const wasm = global.PPB_WASM_BASE64;
    if (typeof wasm === 'string') overrides = { wasmBinary: Uint8Array.from(atob(wasm), (c) => c.charCodeAt(0)) };
    /** @type {Promise<any>} */
    const loading = global.createPpbEngine(overrides);
    loading.then(
      (/** @type {any} */ module) => {
        // Long work runs only through WorkSession (progress, cancel with the result so far), and the page takes the
        // schedules' rules from the engine: a module without them is an incomplete build, refused rather than half
        // used.
        for (const part of ['WorkSession', 'slicedCommands', 'schedules', 'devicePresets', 'limits']) {
          if (typeof module[part] !== 'function') {
            post({ type: 'fatal', error: `ppb_engine.js has no ${part} (an incomplete build of the module)` });
            return;
          }
        }
        engine = module;
        try {
          for (const [ref, bytes] of waiting) keep(ref, bytes);
        } catch (error) {
          die(null, error);
          return;
        }
        waiting.clear();
        sliced = JSON.parse(module.slicedCommands());
        post({ type: 'ready', version: typeof module.version === 'function' ? module.version() : '', sliced,
          schedules: JSON.parse(module.schedules()).schedules, devices: JSON.parse(module.devicePresets()).devices,
          limits: JSON.parse(module.limits()) });
        for (const message of queued.splice(0)) run(message);
        // After the page's first calls (the plan of the example it opens with) have had their turn.
        warmUp().catch((error) => die(null, error));
      },
      (/** @type {unknown} */ error) => post({ type: 'fatal', error: String(error) }),
    );
  } catch (error) {
    post({ type: 'fatal', error: String(error) });
  }

  /**
   * Runs one command of the page's: long work in slices, or a call answered at once.
   * @param {{id: number, command: string, request?: string, model?: number}} message
   */
  function run(message) {
    const { id, command } = message;
    const request = message.request === undefined ? '' : message.request;
    const kept = keptModelOf(message);
    if (kept === null) {
      post({ type: 'response', id, response: JSON.stringify({ ok: false, errors: [
        { code: 'MODEL_NOT_KEPT', path: '/model', message: 'The worker does not hold the model this request refers to; load the model again.' }] }) });
      return;
    }
    if (sliced.includes(command)) {
      runSliced(id, command, request, kept).catch((error) => die(id, error));
      return;
    }
    if (CALLS.has(command)) {
      try {
        post({ type: 'response', id, response: kept === undefined ? engine[command](request) : engine.runKept(command, request, kept) });
      } catch (error) {
        die(id, error);
      }
      return;
    }
    post({ type: 'response', id, response: JSON.stringify({ ok: false, errors: [
      { code: 'COMMAND_UNKNOWN', path: '', message: `The worker runs no ${String(command)}: it runs ${[...sliced, ...CALLS].join(', ')}.` }] }) });
  }

  self.addEventListener('message', (/** @type {MessageEvent} */ event) => {
    const message = event.data;
    if (message.type === 'cancel') {
      const control = sessions.get(message.id);
      if (control) control.cancelled = true;
      const waits = queued.findIndex((m) => m.id === message.id);
      if (waits >= 0) queued.splice(waits, 1);
      return;
    }
    if (message.type === 'model') {
      const bytes = message.bytes instanceof Uint8Array ? message.bytes : new Uint8Array(message.bytes);
      lastCall = Math.max(lastCall, performance.now());
      if (!engine) {
        waiting.set(message.ref, bytes);
        return;
      }
      try {
        keep(message.ref, bytes);
      } catch (error) {
        die(null, error);
      }
      return;
    }
    if (message.type === 'drop-model') {
      drop(message.ref);
      return;
    }
    if (message.type !== 'run') {
      post({ type: 'response', id: message.id, response: JSON.stringify({ ok: false, errors: [
        { code: 'COMMAND_UNKNOWN', path: '', message: `The worker has no message ${String(message.type)}: it takes run, cancel, model and drop-model.` }] }) });
      return;
    }
    lastCall = Math.max(lastCall, performance.now());
    if (!engine) queued.push(message);
    else run(message);
  });
})();
