// The timing loop of the WASM benchmarks, the same steps as bench/driver.cpp takes natively: one
// warm-up call; when it is shorter than `minSampleMs`, calls for a fifth of that to learn the time per
// call; then `repeat` samples, each of as many back-to-back calls as fill `minSampleMs`. A sample's
// figure is its time per call, the result their median.
// No node or browser APIs here beyond performance.now(), which both have.

/**
 * @typedef {{name: string, median_ms: number, samples_ms: number[], calls_per_sample: number, response: any}} Timing
 */

/**
 * @param {number[]} values
 * @returns {number}
 */
export function median(values) {
  const v = [...values].sort((a, b) => a - b);
  const n = v.length;
  return n % 2 === 1 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/**
 * Times `call` (which returns the engine's response JSON text).
 * @param {string} name
 * @param {() => string} call
 * @param {{repeat?: number, minSampleMs?: number, pause?: () => Promise<void>}} [options] pause runs
 *   between samples (the page uses it to let the browser breathe)
 * @returns {Promise<Timing>}
 */
export async function timeCalls(name, call, { repeat = 5, minSampleMs = 50, pause = async () => {} } = {}) {
  let t0 = performance.now();
  const response = call();
  const firstMs = performance.now() - t0;
  let calls = 1;
  if (firstMs < minSampleMs) {
    // Calibrate on a fifth of a sample rather than on one call: browsers round the clock to 0.1 ms.
    let n = 0;
    t0 = performance.now();
    while (performance.now() - t0 < minSampleMs / 5) {
      call();
      ++n;
    }
    calls = Math.ceil(minSampleMs / ((performance.now() - t0) / n));
  }
  /** @type {number[]} */
  const samples = [];
  for (let s = 0; s < repeat; ++s) {
    await pause();
    t0 = performance.now();
    for (let c = 0; c < calls; ++c) call();
    samples.push((performance.now() - t0) / calls);
  }
  return { name, median_ms: median(samples), samples_ms: samples, calls_per_sample: calls, response: JSON.parse(response) };
}

/**
 * Calls `calls` in turn until `ms` have passed (at least one round). V8 first runs a WASM module
 * with its baseline compiler and moves hot functions to the optimising one in the background; a
 * fresh module answers small requests up to 20 times slower until then. Timings are taken after
 * this, so they show the steady state.
 * @param {(() => string)[]} calls
 * @param {number} ms
 * @param {() => Promise<void>} [pause]
 * @returns {Promise<number>} how many calls were made
 */
export async function warmUp(calls, ms, pause = async () => {}) {
  const t0 = performance.now();
  let n = 0;
  do {
    for (const call of calls) {
      call();
      ++n;
    }
    await pause();
  } while (performance.now() - t0 < ms);
  return n;
}

/**
 * The calls warmUp cycles through: every simulate workload, and the small balance.
 * @param {{name: string, group: string, command: string, request: object}[]} list
 * @param {any} engine the module
 * @returns {(() => string)[]}
 */
export function warmUpCalls(list, engine) {
  return list
    .filter((w) => w.group === 'simulate' || w.name === 'balance 96 layers pp 16')
    .map((w) => {
      const request = JSON.stringify(w.request);
      return () => engine[w.command](request);
    });
}

/**
 * Brings a freshly loaded module to the state a first call is timed in (bench/wasm-bench.mjs, FirstMode): 'cold'
 * leaves it as it is, 'after-warm-up' runs the page worker's warm-up after loading (web/warm-up.js, which assigns it
 * to the global object).
 * @param {any} engine
 * @param {string} mode
 * @param {() => Promise<void>} pause runs between the warm-up's pieces
 */
export async function prepareFirst(engine, mode, pause) {
  if (mode === 'cold') return;
  if (mode !== 'after-warm-up') throw new Error(`unknown first-call mode ${mode}`);
  await import('../web/warm-up.js');
  await /** @type {any} */ (globalThis).ppbWarmUp(engine, pause);
}

/** The slice the page's worker gives a session's step() (web/worker.js, SLICE_MS). */
export const PAGE_SLICE_MS = 40;

/**
 * The first call of a workload after the module has loaded, as the page makes it: a balance and a search through
 * WorkSession in slices of PAGE_SLICE_MS (each slice a fresh call, so V8's optimised code,
 * compiled in the background, is used from the next slice on: wasm has no on-stack replacement here), any other
 * command as one call. Returns the milliseconds from the call to the response, and the response.
 * @param {any} engine a freshly loaded module
 * @param {{command: string, request: object}} w
 * @param {() => Promise<void>} [pause] runs between slices (the worker yields to its message loop there)
 * @returns {Promise<{ms: number, response: any}>}
 */
export async function firstCall(engine, w, pause = async () => {}) {
  const request = JSON.stringify(w.request);
  const sliced = w.command === 'balance' || w.command === 'search';
  const t0 = performance.now();
  if (!sliced) {
    const response = engine[w.command](request);
    return { ms: performance.now() - t0, response: JSON.parse(response) };
  }
  const session = new engine.WorkSession(w.command, request);
  try {
    const error = session.error();
    if (error) return { ms: performance.now() - t0, response: JSON.parse(error) };
    for (;;) {
      const progress = JSON.parse(session.step(PAGE_SLICE_MS));
      if (progress.finished) break;
      await pause();
    }
    const response = session.result(false);
    return { ms: performance.now() - t0, response: JSON.parse(response) };
  } finally {
    session.delete();
  }
}
