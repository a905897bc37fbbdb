// The bench page's runner: the workloads of bench/workloads.mjs through the WASM module on the page's
// main thread, timed by bench/timing.mjs. Opened by hand it runs them all into the table
// (query: ?repeat=N&min_sample_ms=X&warm_up_ms=W&only=SUBSTRING&engine=DIR); with ?drive=1 it only loads the engine and
// exposes window.ppbBench.warm(ms), .run(name, repeat, minSampleMs) and .first(name, mode) (the first call on a fresh module,
// on a page of its own), which bench/wasm-bench.mjs calls between its native and node runs of the same workload.
import { workloads } from './workloads.mjs';
import { timeCalls, warmUp, warmUpCalls, firstCall, prepareFirst } from './timing.mjs';

const status = /** @type {HTMLElement} */ (document.getElementById('status'));
const rows = /** @type {HTMLElement} */ (document.getElementById('results'));
const list = workloads();

/** @returns {Promise<void>} */
const pause = () => new Promise((resolve) => setTimeout(resolve, 0));

const query = new URLSearchParams(location.search);

/**
 * Loads the module's script from the repository's `dir` (build/wasm/wasm unless the engine query
 * parameter names another build) and starts the module.
 * @param {string} dir
 * @returns {Promise<any>}
 */
async function loadEngine(dir) {
  await new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = `../${dir}/ppb_engine.js`;
    script.onload = resolve;
    script.onerror = () => reject(new Error(`cannot load ${script.src}`));
    document.head.append(script);
  });
  return /** @type {any} */ (window).createPpbEngine();
}

/** @type {Promise<any>} */
const engine = loadEngine(query.get('engine') ?? 'build/wasm/wasm');

/**
 * Times one workload by name and adds its row to the table.
 * @param {string} name
 * @param {number} repeat
 * @param {number} minSampleMs
 * @returns {Promise<import('./timing.mjs').Timing>}
 */
async function run(name, repeat, minSampleMs) {
  const w = list.find((x) => x.name === name);
  if (!w) throw new Error(`no workload named ${name}`);
  const module = await engine;
  status.textContent = `running ${w.name}…`;
  await pause();
  const request = JSON.stringify(w.request);
  const timing = await timeCalls(w.name, () => module[w.command](request), { repeat, minSampleMs, pause });
  const tr = document.createElement('tr');
  for (const text of [w.name, timing.median_ms.toFixed(3), String(timing.calls_per_sample)]) {
    const td = document.createElement('td');
    td.textContent = text;
    tr.append(td);
  }
  rows.append(tr);
  status.textContent = 'idle';
  return timing;
}

/**
 * Runs engine calls for `ms` before timing (bench/timing.mjs, warmUp).
 * @param {number} ms
 * @returns {Promise<number>}
 */
async function warm(ms) {
  status.textContent = 'warming up…';
  const n = await warmUp(warmUpCalls(list, await engine), ms, pause);
  status.textContent = 'idle';
  return n;
}

/**
 * The first call of a workload on this page's freshly loaded module (bench/timing.mjs, firstCall); call it before
 * anything else runs, on a page of its own. `mode` says what runs on the module first (bench/timing.mjs, prepareFirst).
 * @param {string} name
 * @param {string} [mode] 'cold' or 'after-warm-up'
 * @returns {Promise<{name: string, ms: number, response: any}>}
 */
async function first(name, mode = 'cold') {
  const w = list.find((x) => x.name === name);
  if (!w) throw new Error(`no workload named ${name}`);
  await prepareFirst(await engine, mode, pause);
  const { ms, response } = await firstCall(await engine, w, pause);
  return { name, ms, response };
}

/** @type {{ready: boolean, error: string | null, userAgent: string, run: typeof run, warm: typeof warm, first: typeof first}} */
const api = { ready: false, error: null, userAgent: navigator.userAgent, run, warm, first };
/** @type {any} */ (window).ppbBench = api;

engine.then(
  async () => {
    api.ready = true;
    status.textContent = 'engine loaded';
    if (query.get('drive') === '1') return;
    const repeat = Number(query.get('repeat') ?? 5);
    const minSampleMs = Number(query.get('min_sample_ms') ?? 50);
    await warm(Number(query.get('warm_up_ms') ?? 3000));
    for (const w of list.filter((x) => x.name.includes(query.get('only') ?? ''))) await run(w.name, repeat, minSampleMs);
    status.textContent = 'done';
  },
  (e) => {
    api.error = String(e && e.stack ? e.stack : e);
    status.textContent = `failed: ${api.error}`;
  },
);
