// The page's side of worker.js: one promise per command, searches with progress and cancel, and recovery when
// the worker dies (an abort or out of memory in the module): pending calls fail with EngineDiedError, a fresh
// worker is started and the page is told, so it can say so and run the current inputs again.

/** @import {EngineResponse} from './types.js' */

export class EngineDiedError extends Error {}

/**
 * @typedef {{resolve: (value: EngineResponse) => void, reject: (reason: Error) => void,
 *            onProgress?: (done: number, total: number) => void}} Waiter
 * @typedef {{version: string}} EngineInfo
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
    this.info = { version: '' };
    /** @type {Worker | null} */
    this.worker = null;
    /** whether the current worker has said 'ready' */
    this.loaded = false;
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
    return new Promise((resolve, reject) => {
      /** @param {any} message */
      const handle = (message) => {
        if (worker !== this.worker) return;
        switch (message.type) {
          case 'ready':
            this.info = { version: String(message.version ?? '') };
            resolve(this.info);
            break;
          case 'fatal':
            reject(new Error(`the engine could not be loaded: ${message.error}`));
            this.failAll(new Error(`the engine could not be loaded: ${message.error}`));
            break;
          case 'progress':
            this.pending.get(message.id)?.onProgress?.(message.done, message.total);
            break;
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
        if (!this.loaded) {
          reject(new Error(`the engine could not be loaded: ${reason}`));
          this.failAll(new Error(`the engine could not be loaded: ${reason}`));
          return;
        }
        this.died(reason);
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
    }).then((info) => {
      this.loaded = true;
      return /** @type {EngineInfo} */ (info);
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
    this.worker?.terminate();
    this.worker = null;
    this.loaded = false;
    this.failAll(new EngineDiedError(reason));
    this.ready = this.start();
    this.ready.catch(() => {});
    this.hooks.onDeath?.(reason);
  }

  /**
   * Sends one command; resolves with the parsed engine response (which may itself be `ok: false`).
   * @param {'estimate' | 'balance' | 'search' | 'import' | 'export'} command
   * @param {object} request
   * @returns {Promise<EngineResponse>}
   */
  async call(command, request) {
    await this.ready;
    const id = this.nextId++;
    const text = JSON.stringify(request);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker?.postMessage({ type: 'call', id, command, request: text });
    });
  }

  /**
   * Starts a search. `cancel()` stops it between two slices; the partial result still arrives.
   * @param {object} request
   * @param {(done: number, total: number) => void} onProgress
   * @returns {{result: Promise<EngineResponse>, cancel: () => void}}
   */
  search(request, onProgress) {
    const id = this.nextId++;
    let cancelled = false;
    const text = JSON.stringify(request);
    const result = this.ready.then(() => new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.worker?.postMessage({ type: 'search', id, request: text });
      if (cancelled) this.cancelSearch(id);
    }));
    return {
      result: /** @type {Promise<EngineResponse>} */ (result),
      cancel: () => {
        cancelled = true;
        if (this.pending.has(id)) this.cancelSearch(id);
      },
    };
  }

  /** @param {number} id */
  cancelSearch(id) {
    this.worker?.postMessage({ type: 'cancel', id });
  }

  /**
   * Makes the worker die (for tests of the recovery): 'abort' as a module call that threw, 'throw' as an
   * uncaught error.
   * @param {'abort' | 'throw'} how
   */
  crashForTest(how) {
    this.worker?.postMessage({ type: 'debug-crash', how });
  }
}
