// The page's side of worker.js: one promise per command; long work (the commands the engine runs in slices: a
// balance, a search) started with progress and cancel through one protocol; and recovery when the worker dies (an
// abort or out of memory in the module): pending calls fail with EngineDiedError, a fresh worker is started and the
// page is told, so it can say so and run the current inputs again.

/** @import {EngineResponse, Progress, ScheduleFacts, DevicePresetFacts, EngineLimits} from './types.js' */

export class EngineDiedError extends Error {}
/** A call stopped by cancel(): out of date, or stopped by the person. */
export class CancelledError extends Error {}

/**
 * @typedef {'estimate' | 'balance' | 'search' | 'import' | 'export' | 'compare' | 'cluster'} Command
 * @typedef {{resolve: (value: EngineResponse) => void, reject: (reason: Error) => void,
 *            onProgress?: (progress: Progress) => void, onInterim?: (response: EngineResponse) => void,
 *            command: Command, sliced: boolean | null, retryable: boolean}} Waiter
 *   onInterim: a balance still running sent its best plan so far (its answer follows); sliced: whether the engine
 *   runs the command in slices, null until the worker has said which (its ready message); retryable: a quick
 *   question its caller asks again when the call fails, so it does not hold back replacing the worker to stop
 *   another call
 * @typedef {{version: string, sliced: string[], schedules: ScheduleFacts[], devices: DevicePresetFacts[],
 *            limits: EngineLimits | null}} EngineInfo sliced: the commands the
 *   engine runs in slices (started, with progress, cancelled between slices); any other call is cancelled by replacing
 *   the worker. schedules: the engine's schedules, the chunk counts each runs; devices: its device presets; limits:
 *   the caps the page checks before it sends a document (null until the engine is ready)
 * @typedef {{result: Promise<EngineResponse>, cancel: () => void, started: number, command: Command}} Job
 */

export class EngineClient {
  /**
   * @param {string} workerUrl
   * @param {{onDeath?: (reason: string) => void}} [hooks]
   * @param {{worker: Worker, adopt: () => any[]} | null} [started] a worker started early by boot.js; adopt()
   *   returns the messages it has sent so far
   */
  constructor(workerUrl, hooks = {}, started = null) {
    this.workerUrl = workerUrl;
    this.hooks = hooks;
    this.nextId = 1;
    /** @type {Map<number, Waiter>} */
    this.pending = new Map();
    /** @type {EngineInfo} */
    this.info = { version: '', sliced: [], schedules: [], devices: [], limits: null };
    /** @type {Worker | null} */
    this.worker = null;
    /** whether the current worker has said 'ready' */
    this.loaded = false;
    /** Why the current worker's engine could not be loaded: the answer to every command, once it is known. */
    /** @type {Error | null} */
    this.loadError = null;
    /** How many calls were cancelled while they ran (a test hook). */
    this.cancelledCalls = 0;
    /** The models the worker keeps, by object, with their reference and their document as UTF-8 (the newest last). */
    /** @type {{model: object, ref: number, bytes: Uint8Array}[]} */
    this.models = [];
    /** Documents handed to the worker as they arrived (offerDocument), not yet known to be models, by reference. */
    /** @type {Map<number, Uint8Array>} */
    this.offers = new Map();
    this.nextModelRef = 1;
    /** How many model documents the worker was given to keep (a test hook: a model crosses once). */
    this.modelsSent = 0;
    /** How long the worker's warm-up after loading took, once it is over (a benchmark hook); null before. */
    /** @type {number | null} */
    this.warmUpMs = null;
    /** @type {Promise<EngineInfo>} */
    this.ready = this.start(started);
  }

  /**
   * @param {{worker: Worker, adopt: () => any[]} | null} [started]
   * @returns {Promise<EngineInfo>}
   */
  start(started = null) {
    const worker = started?.worker ?? new Worker(this.workerUrl);
    this.worker = worker;
    this.loadError = null;
    // A new worker (after a death or a cancel) gets the models the page refers to again.
    for (const kept of this.models) this.postModel(kept, worker);
    for (const [ref, bytes] of this.offers) this.postModel({ ref, bytes }, worker);
    return new Promise((resolve, reject) => {
      /** @param {any} message */
      const handle = (message) => {
        if (worker !== this.worker) return;
        switch (message.type) {
          case 'ready':
            this.info = { version: String(message.version ?? ''), sliced: Array.isArray(message.sliced) ? message.sliced.map(String) : [],
              schedules: Array.isArray(message.schedules) ? message.schedules : [],
              devices: Array.isArray(message.devices) ? message.devices : [], limits: message.limits ?? null };
            this.loaded = true;
            // The runs sent before this learn how they run.
            for (const waiter of this.pending.values()) waiter.sliced = this.info.sliced.includes(waiter.command);
            performance.mark('ppb:engine-ready');
            resolve(this.info);
            break;
          case 'fatal':
            loadFailed(String(message.error));
            break;
          case 'warm':
            this.warmUpMs = Number(message.ms);
            break;
          case 'progress':
            this.pending.get(message.id)?.onProgress?.(/** @type {Progress} */ (message.progress));
            break;
          case 'interim': {
            const waiter = this.pending.get(message.id);
            if (!waiter?.onInterim) break;
            try {
              waiter.onInterim(JSON.parse(message.response));
            } catch {
              // A plan so far that cannot be read is skipped: the answer still comes.
            }
            break;
          }
          case 'response': {
            const waiter = this.pending.get(message.id);
            if (!waiter) break;
            this.pending.delete(message.id);
            try {
              waiter.resolve(JSON.parse(message.response));
            } catch {
              waiter.reject(new Error('the engine answered with something that is not JSON'));
            }
            break;
          }
          case 'dead':
            this.died(String(message.error));
            break;
          case 'boot-error':
            fail(String(message.error));
            break;
        }
      };
      /** @param {string} reason */
      const fail = (reason) => {
        if (worker !== this.worker) return;
        // Before 'ready' this is a load failure; afterwards the worker is gone.
        if (!this.loaded) loadFailed(reason);
        else this.died(reason);
      };
      /** @param {string} reason */
      const loadFailed = (reason) => {
        this.loadError = new Error(`the engine could not be loaded: ${reason}`);
        reject(this.loadError);
        this.failAll(this.loadError);
      };
      worker.addEventListener('message', (event) => handle(event.data));
      worker.addEventListener('error', (event) => {
        event.preventDefault();
        fail(event.message || 'the worker stopped with an error');
      });
      worker.addEventListener('messageerror', () => {
        if (worker === this.worker) this.died('a message from the worker could not be read');
      });
      for (const message of started?.adopt() ?? []) handle(message);
    });
  }

  /** @param {Error} error */
  failAll(error) {
    const waiters = [...this.pending.values()];
    this.pending.clear();
    for (const waiter of waiters) waiter.reject(error);
  }

  /**
   * Replaces a dead worker; calls in flight fail with EngineDiedError.
   * @param {string} reason
   */
  died(reason) {
    this.replaceWorker(new EngineDiedError(reason));
    this.hooks.onDeath?.(reason);
  }

  /**
   * Terminates the worker and starts a fresh one; the calls in flight fail with `error`.
   * @param {Error} error
   */
  replaceWorker(error) {
    this.worker?.terminate();
    this.worker = null;
    this.loaded = false;
    this.failAll(error);
    this.ready = this.start();
    this.ready.catch(() => {});
  }

  /**
   * Sends one command; resolves with the parsed engine response (which may itself be `ok: false`).
   * @param {Command} command
   * @param {object} request
   * @returns {Promise<EngineResponse>}
   */
  call(command, request) {
    return this.run(command, request).result;
  }

  /**
   * Starts one command at once, before the engine has loaded too (the worker runs it as soon as the engine has): long
   * work in slices (a command of info.sliced), anything else answered at once. cancel() stops it: long work stops
   * between two slices and its result still arrives (a search's partial result, a balance's best plan so far); a
   * command still waiting for the engine to load is dropped; any other call fails at once with CancelledError, and
   * when nothing else runs in the worker, the worker is replaced so that the engine stops working on it (the next
   * call goes to the new one).
   * @param {Command} command
   * @param {object} request
   * @param {{onProgress?: (progress: Progress) => void, onInterim?: (response: EngineResponse) => void,
   *          retryable?: boolean}} [options]
   *   onInterim: for a balance, its best plan so far while it goes on; retryable: the caller asks again if the call
   *   fails (a quick question such as `cluster`), so cancelling another call may replace the worker under it
   * @returns {Job}
   */
  run(command, request, { onProgress, onInterim, retryable = false } = {}) {
    const id = this.nextId++;
    let cancelled = false;
    const { text, ref } = this.requestText(request);
    /** @type {Job} */
    const job = {
      command,
      started: performance.now(),
      result: new Promise((resolve, reject) => {
        if (this.loadError) {
          reject(this.loadError);
          return;
        }
        const sliced = this.loaded ? this.info.sliced.includes(command) : null;
        this.pending.set(id, { resolve, reject, onProgress, onInterim, command, sliced, retryable });
        this.worker?.postMessage({ type: 'run', id, command, request: text, model: ref });
      }),
      cancel: () => {
        if (cancelled) return;
        cancelled = true;
        this.cancel(id);
      },
    };
    return job;
  }

  /**
   * Hands the worker a document as it arrives, before the page has parsed it: the engine reads the model in it (a
   * ppb.model.v1 document, or a request holding one) at once, beside the page's own reading, and the first plan
   * does not wait for both one after the other. keepModel with the reference returned adopts it once the page
   * knows the document is a model; dropOffer forgets it otherwise.
   * @param {Uint8Array} bytes the document's text as UTF-8 (copied: the page goes on reading it)
   * @returns {number} the reference
   */
  offerDocument(bytes) {
    const ref = this.nextModelRef++;
    this.offers.set(ref, bytes);
    this.postModel({ ref, bytes });
    return ref;
  }

  /**
   * The document offered under `ref` is not a model the page uses (another kind, a problem, a newer document came).
   * @param {number} ref
   */
  dropOffer(ref) {
    if (this.offers.delete(ref)) this.worker?.postMessage({ type: 'drop-model', ref });
  }

  /**
   * Hands the worker a model document once, to keep for the calls that refer to it: the document offered as it
   * arrived (offerDocument), else the file's own text when the page has it (nothing to serialise), else the model
   * serialised here. The two newest models are kept (the current one and the one before, which a comparison or a
   * late answer may still use).
   * @param {object} model the page's model object, which later requests carry
   * @param {string | null} [text] its JSON text, when the page has it
   * @param {number | null} [offer] the reference of the document offered that holds it
   */
  keepModel(model, text, offer) {
    if (this.models.some((kept) => kept.model === model)) {
      if (offer !== undefined && offer !== null) this.dropOffer(offer);
      return;
    }
    const offered = offer === undefined || offer === null ? undefined : this.offers.get(offer);
    /** @type {{model: object, ref: number, bytes: Uint8Array}} */
    let kept;
    if (offered !== undefined && typeof offer === 'number') {
      this.offers.delete(offer);
      kept = { model, ref: offer, bytes: offered };
    } else {
      kept = { model, ref: this.nextModelRef++, bytes: new TextEncoder().encode(text ?? JSON.stringify(model)) };
      this.postModel(kept);
    }
    this.models.push(kept);
    this.modelsSent += 1;
    while (this.models.length > 2) {
      const old = this.models.shift();
      if (old) this.worker?.postMessage({ type: 'drop-model', ref: old.ref });
    }
  }

  /**
   * Sends a document to the worker as UTF-8 bytes in a transferred buffer (a copy: the page keeps its own for a
   * worker started later): copying a string of many megabytes into a message takes the page a while, handing over a
   * buffer does not.
   * @param {{ref: number, bytes: Uint8Array}} kept
   * @param {Worker | null} [worker]
   */
  postModel(kept, worker = this.worker) {
    const bytes = kept.bytes.slice();
    worker?.postMessage({ type: 'model', ref: kept.ref, bytes }, [bytes.buffer]);
  }

  /**
   * A request as the worker gets it: without its model when the worker keeps that model (by reference).
   * @param {Record<string, any>} request
   * @returns {{text: string, ref: number | undefined}}
   */
  requestText(request) {
    const model = request.model;
    if (model === null || typeof model !== 'object') return { text: JSON.stringify(request), ref: undefined };
    this.keepModel(model);
    const kept = this.models.find((k) => k.model === model);
    const rest = { ...request };
    delete rest.model;
    return { text: JSON.stringify(rest), ref: kept?.ref };
  }

  /**
   * @param {number} id
   */
  cancel(id) {
    const waiter = this.pending.get(id);
    if (!waiter) return;
    this.cancelledCalls += 1;
    if (waiter.sliced !== false) this.worker?.postMessage({ type: 'cancel', id });
    if (waiter.sliced) return;
    this.pending.delete(id);
    waiter.reject(new CancelledError('cancelled'));
    // Sent before the engine had loaded: the worker drops it.
    if (waiter.sliced === null) return;
    // The engine is inside this call and cannot be interrupted: a fresh worker stops it, unless other calls wait
    // for this one (they would fail too), in which case its answer is dropped when it comes. Calls their callers ask
    // again do not count.
    if ([...this.pending.values()].every((other) => other.retryable)) this.replaceWorker(new CancelledError('cancelled'));
  }
}
