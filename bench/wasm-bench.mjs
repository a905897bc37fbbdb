// Native, WASM-under-node and WASM-in-Chromium timings of the same contract requests, side by side.
//
//   node bench/wasm-bench.mjs [--rounds R] [--repeat N] [--min-sample-ms X] [--only SUBSTRING] [--no-chromium]
//                             [--gbench build/bench/gbench.json] [--out docs/benchmarks.md]
//
// The workloads (bench/workloads.mjs) go, as JSON, through ppb::run_command in all three runtimes:
// natively through build/native/bench/ppb_bench_driver, under node through the embind module
// build/wasm/wasm/ppb_engine.js, and in headless Chromium through bench/bench.html (served from the
// repository root). Each workload runs in the three one after the other, never at once, before the
// next workload, and R rounds (default 3) go over the whole list. Per round each workload's first call is also timed
// on fresh modules (bench/first-call.mjs in node, a new browser context in Chromium), cold and after the page worker's
// warm-up (web/warm-up.js), and natively in a fresh process (the driver's --first). Each figure is the median of the
// R x N samples (N per round, default 3; bench/timing.mjs, bench/driver.cpp). Prints the table and writes it as markdown to
// --out; --gbench adds the medians of a Google Benchmark JSON report (bench/bench.cpp).
// PPB_BUILD_NATIVE and PPB_BUILD_WASM name other build directories than build/native and build/wasm.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../tools/serve.mjs';
import { median, timeCalls, warmUp, warmUpCalls } from './timing.mjs';
import { workloads } from './workloads.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// The build directories (relative to the repository root, or absolute) can be changed with
// PPB_BUILD_NATIVE and PPB_BUILD_WASM, to compare builds other than the ones dev.sh makes; the
// WASM one must lie under the repository root, which the Chromium page is served from.
const NATIVE_DIR = resolve(ROOT, process.env.PPB_BUILD_NATIVE || 'build/native');
const WASM_DIR = resolve(ROOT, process.env.PPB_BUILD_WASM || 'build/wasm');
const DRIVER = join(NATIVE_DIR, 'bench/ppb_bench_driver');
const ENGINE_JS = join(WASM_DIR, 'wasm/ppb_engine.js');
const ENGINE_WASM = join(WASM_DIR, 'wasm/ppb_engine.wasm');
const CHROMIUM = '/usr/bin/chromium';
// Engine calls made in each WASM runtime before any timing (bench/timing.mjs, warmUp).
const WARM_UP_MS = 3000;
const CHROMIUM_FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];

/** @typedef {import('./timing.mjs').Timing} Timing */
/** @typedef {import('./workloads.mjs').Workload} Workload */
/**
 * What runs on a fresh module before its first call: nothing, or the page worker's warm-up after loading
 * (web/warm-up.js).
 * @typedef {'cold' | 'after-warm-up'} FirstMode
 */
/** @type {FirstMode[]} */
const FIRST_MODES = ['cold', 'after-warm-up'];

/**
 * @param {string[]} argv
 * @returns {{repeat: number, rounds: number, minSampleMs: number, only: string, chromium: boolean, gbench: string | null, out: string | null}}
 */
function parseArgs(argv) {
  const options = { repeat: 3, rounds: 3, minSampleMs: 50, only: '', chromium: true, gbench: /** @type {string | null} */ (null),
    out: /** @type {string | null} */ (join(ROOT, 'docs/benchmarks.md')) };
  for (let i = 0; i < argv.length; ++i) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === '--repeat') options.repeat = Math.max(1, Number(value()));
    else if (arg === '--rounds') options.rounds = Math.max(1, Number(value()));
    else if (arg === '--min-sample-ms') options.minSampleMs = Number(value());
    else if (arg === '--only') options.only = value();
    else if (arg === '--no-chromium') options.chromium = false;
    else if (arg === '--gbench') options.gbench = resolve(value());
    else if (arg === '--out') {
      const file = value();
      options.out = file === '-' ? null : resolve(file);
    }
    else throw new Error(`unknown option ${arg}`);
  }
  return options;
}

/**
 * Native: the driver on one workload of the workloads file.
 * @param {string} file the workloads file
 * @param {string} name
 * @param {{repeat: number, minSampleMs: number}} options
 * @returns {Timing}
 */
function runNative(file, name, options) {
  const out = execFileSync(DRIVER, [file, '--name', name, '--repeat', String(options.repeat), '--min-sample-ms', String(options.minSampleMs)],
    { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'inherit'] });
  const [timing] = JSON.parse(out.toString());
  if (!timing) throw new Error(`the driver did not run ${name}`);
  return timing;
}

/**
 * Native, the first call in a process of its own (the driver with --first): what a person running the CLI meets.
 * @param {string} file the workloads file
 * @param {string} name
 * @returns {number} milliseconds
 */
function nativeFirst(file, name) {
  const out = execFileSync(DRIVER, [file, '--name', name, '--first'],
    { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'inherit'] });
  const [timing] = JSON.parse(out.toString());
  if (!timing) throw new Error(`the driver did not run ${name}`);
  return timing.first_ms;
}

/**
 * Under node, the first call on a fresh module: a node process of its own per call (bench/first-call.mjs).
 * @param {string} file the workloads file
 * @param {string} name
 * @param {FirstMode} mode what runs on the module before the call (bench/first-call.mjs)
 * @returns {number} milliseconds
 */
function nodeFirst(file, name, mode) {
  const out = execFileSync(process.execPath, [join(ROOT, 'bench/first-call.mjs'), ENGINE_JS, ENGINE_WASM, file, name,
    ...(mode === 'cold' ? [] : [mode])],
    { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(out.toString()).ms;
}

/**
 * Under node: the module loaded once, a runner per workload.
 * @returns {Promise<(w: Workload, options: {repeat: number, minSampleMs: number}) => Promise<Timing>>}
 */
async function nodeRunner() {
  const require = createRequire(import.meta.url);
  const createPpbEngine = require(ENGINE_JS);
  // Node's fetch cannot read a file path, so the module gets its bytes directly.
  const engine = await createPpbEngine({ wasmBinary: readFileSync(ENGINE_WASM) });
  await warmUp(warmUpCalls(workloads(), engine), WARM_UP_MS);
  return (w, options) => {
    const request = JSON.stringify(w.request);
    return timeCalls(w.name, () => engine[w.command](request), options);
  };
}

/**
 * In headless Chromium: bench/bench.html served from the repository root, driven one workload at a
 * time through window.ppbBench.run.
 * @returns {Promise<{run: (w: Workload, options: {repeat: number, minSampleMs: number}) => Promise<Timing>,
 *                    first: (w: Workload, mode: FirstMode) => Promise<{name: string, ms: number, response: any}>,
 *                    version: string, close: () => Promise<void>}>}
 */
async function chromiumRunner() {
  const { chromium } = await import('playwright-core');
  const { server, url } = await startServer(ROOT, { port: 0, isolated: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
  const close = async () => {
    await browser.close();
    server.close();
  };
  try {
    const page = await browser.newPage();
    /** @type {string[]} */
    const problems = [];
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    const engineDir = relative(ROOT, join(WASM_DIR, 'wasm')).split('\\').join('/');
    if (engineDir.startsWith('..')) throw new Error(`PPB_BUILD_WASM must lie under ${ROOT} for the Chromium page`);
    await page.goto(`${url.replace(/\/$/, '')}/bench/bench.html?drive=1&engine=${encodeURIComponent(engineDir)}`);
    await page.waitForFunction(() => {
      const api = /** @type {any} */ (window).ppbBench;
      return api && (api.ready || api.error);
    }, null, { timeout: 60000 });
    const error = await page.evaluate(() => /** @type {any} */ (window).ppbBench.error);
    if (error) throw new Error(`bench page: ${error}`);
    await page.evaluate((ms) => /** @type {any} */ (window).ppbBench.warm(ms), WARM_UP_MS);
    const benchUrl = `${url.replace(/\/$/, '')}/bench/bench.html?drive=1&engine=${encodeURIComponent(engineDir)}`;
    // The first call on a fresh module: a page in a context of its own (its own renderer, no compiled code from
    // another page), loaded, then the workload before anything else.
    const first = async (/** @type {Workload} */ w, /** @type {FirstMode} */ mode) => {
      const context = await browser.newContext();
      try {
        const fresh = await context.newPage();
        await fresh.goto(benchUrl);
        await fresh.waitForFunction(() => {
          const api = /** @type {any} */ (window).ppbBench;
          return api && (api.ready || api.error);
        }, null, { timeout: 60000 });
        return /** @type {{name: string, ms: number, response: any}} */ (await fresh.evaluate(([name, after]) =>
          /** @type {any} */ (window).ppbBench.first(name, after), /** @type {[string, FirstMode]} */ ([w.name, mode])));
      } finally {
        await context.close();
      }
    };
    const run = async (/** @type {Workload} */ w, /** @type {{repeat: number, minSampleMs: number}} */ options) => {
      const timing = await page.evaluate(([name, repeat, minSampleMs]) =>
        /** @type {any} */ (window).ppbBench.run(name, repeat, minSampleMs), /** @type {[string, number, number]} */ ([w.name, options.repeat, options.minSampleMs]));
      if (problems.length > 0) throw new Error(`bench page: ${problems.join('; ')}`);
      return timing;
    };
    return { run, first, version: browser.version(), close };
  } catch (e) {
    await close();
    throw e;
  }
}

/**
 * What a response says about the work done, for the table and for checking that the runtimes agree.
 * @param {Workload} w
 * @param {any} response
 * @returns {{text: string, key: string}}
 */
function workDone(w, response) {
  if (!response.ok) return { text: `error ${response.errors?.[0]?.code}`, key: JSON.stringify(response.errors) };
  const r = response.result;
  if (w.command === 'estimate') {
    const p = /** @type {any} */ (w.request).pipeline;
    const ops = p.pp_degree * p.vpp_degree * p.micro_batch_num * (p.schedule === 'zb_h1' ? 3 : 2);
    return { text: `${ops.toLocaleString('en-US')} ops`, key: String(r.step_time_ms) };
  }
  if (w.command === 'balance') {
    const m = r.method;
    return { text: `${m.nodes.toLocaleString('en-US')} nodes${m.proven_optimal ? ', proven' : ''}`,
      key: JSON.stringify([m.nodes, r.step_time_ms, r.stage_layers, r.layer_recompute]) };
  }
  const proven = r.candidates.filter((/** @type {any} */ c) => c.proven_optimal).length;
  const plans = r.candidates.map((/** @type {any} */ c) => [c.step_time_ms, c.plan?.stage_layers]);
  return { text: `${r.counts.evaluated} candidates, ${proven} proven`, key: JSON.stringify([r.counts.evaluated, proven, plans]) };
}

/**
 * @param {number} ms
 * @returns {string}
 */
function fmtMs(ms) {
  if (ms >= 100) return ms.toFixed(0);
  if (ms >= 10) return ms.toFixed(1);
  if (ms >= 1) return ms.toFixed(2);
  return ms.toFixed(3);
}

/** WASM time over native time at or below this is on target. */
const TARGET_RATIO = 1.5;

/**
 * A ratio against TARGET_RATIO, in italics when it is over.
 * @param {number} ratio
 * @returns {string}
 */
function fmtRatio(ratio) {
  return ratio > TARGET_RATIO ? `_${ratio.toFixed(2)}_` : ratio.toFixed(2);
}

/**
 * @param {number[]} values
 * @returns {number}
 */
function geometricMean(values) {
  return Math.exp(values.reduce((s, v) => s + Math.log(v), 0) / values.length);
}

/**
 * @param {string} command
 * @param {string[]} args
 * @returns {string}
 */
function firstLine(command, args) {
  const r = spawnSync(command, args, { encoding: 'utf8' });
  return (r.stdout || r.stderr || '').split('\n')[0].trim() || 'unknown';
}

/**
 * The Google Benchmark report's medians, as markdown rows.
 * @param {string} file
 * @returns {string[]}
 */
function gbenchRows(file) {
  // Google Benchmark writes NaN (and inf) for the spread of counters, which JSON does not have.
  const report = JSON.parse(readFileSync(file, 'utf8').replace(/:\s*-?(nan|inf)\b/gi, ': null'));
  /** @type {string[]} */
  const rows = [];
  for (const b of report.benchmarks) {
    if (b.aggregate_name !== 'median') continue;
    const toMs = { ns: 1e-6, us: 1e-3, ms: 1, s: 1e3 }[/** @type {'ns'|'us'|'ms'|'s'} */ (b.time_unit)] ?? 1;
    const counters = ['proven', 'step_ms', 'candidates'].filter((k) => k in b).map((k) => `${k} ${b[k]}`).join(', ');
    rows.push(`| ${b.run_name} | ${fmtMs(b.real_time * toMs)} | ${fmtMs(b.cpu_time * toMs)} | ${counters} |`);
  }
  return rows;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const list = workloads().filter((w) => w.name.includes(options.only));
  const load = os.loadavg()[0];

  // Beside the driver, so that runs against different build directories do not share it.
  const dir = join(NATIVE_DIR, 'bench');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'workloads.json');
  writeFileSync(file, JSON.stringify(list));
  const runNode = await nodeRunner();
  const chromium = options.chromium ? await chromiumRunner() : null;
  const chromiumVersion = chromium ? chromium.version : 'not run';
  // One workload at a time in all three runtimes, so that what else the machine does over the run
  // falls on the three columns alike.
  /** @type {Timing[]} */
  const native = [];
  /** @type {Timing[]} */
  const node = [];
  /** @type {Timing[] | null} */
  const browser = chromium ? [] : null;
  // The first call after the module loads (natively: in a fresh process), per workload: every round's figure; in WASM
  // for each of FIRST_MODES.
  /** @type {number[][]} */
  const nativeFirsts = list.map(() => []);
  /** @type {Record<FirstMode, number[][]>} */
  const nodeFirsts = { cold: list.map(() => []), 'after-warm-up': list.map(() => []) };
  /** @type {Record<FirstMode, number[][]>} */
  const browserFirsts = { cold: list.map(() => []), 'after-warm-up': list.map(() => []) };
  // Rounds over the whole list, so that a burst of load elsewhere on the machine spoils a few samples
  // of each runtime rather than all of one; a figure is the median of every round's samples.
  /** @type {(into: Timing[], i: number, t: Timing) => void} */
  const add = (into, i, t) => {
    if (!into[i]) into[i] = t;
    else into[i] = { ...into[i], samples_ms: [...into[i].samples_ms, ...t.samples_ms] };
    into[i].median_ms = median(into[i].samples_ms);
  };
  try {
    for (let round = 1; round <= options.rounds; ++round)
      for (const [i, w] of list.entries()) {
        add(native, i, runNative(file, w.name, options));
        nativeFirsts[i].push(nativeFirst(file, w.name));
        for (const mode of FIRST_MODES) nodeFirsts[mode][i].push(nodeFirst(file, w.name, mode));
        add(node, i, await runNode(w, options));
        if (chromium && browser) {
          for (const mode of FIRST_MODES) browserFirsts[mode][i].push((await chromium.first(w, mode)).ms);
          add(browser, i, await chromium.run(w, options));
        }
        process.stderr.write(`round ${round}, ${w.name}: native ${fmtMs(native[i].median_ms)} ms, node ${fmtMs(node[i].median_ms)} ms` +
          (browser ? `, Chromium ${fmtMs(browser[i].median_ms)} ms` : '') + '\n');
      }
  } finally {
    await chromium?.close();
  }

  /** @type {string[]} */
  const mismatches = [];
  /** @type {Record<string, {node: number[], browser: number[], cold: number[], 'after-warm-up': number[], warmSteady: number[]}>} */
  const ratiosByGroup = {};
  const header = ['workload', 'work (native)', 'native ms', 'WASM node ms', 'node / native', 'Chromium ms', 'Chromium / native'];
  const firstHeader = ['workload', 'native first call ms', 'cold: node / Chromium ms', 'cold / native',
    'after warm-up: node / Chromium ms', 'after warm-up / native',
    'after warm-up / native steady state'];
  /** @type {string[][]} */
  const rows = [];
  /** @type {string[][]} */
  const firstRows = [];
  list.forEach((w, i) => {
    const n = native[i];
    const v = node[i];
    const b = browser?.[i];
    if (n.name !== w.name || v.name !== w.name || (b && b.name !== w.name)) throw new Error(`result order differs at ${w.name}`);
    const work = workDone(w, n.response);
    for (const [runtime, t] of /** @type {[string, Timing | undefined][]} */ ([['node', v], ['Chromium', b]])) {
      if (!t) continue;
      const other = workDone(w, t.response);
      // Budgets count work, so every runtime gives native's answer.
      if (other.key !== work.key) mismatches.push(`${w.name}: native ${work.text}, ${runtime} ${other.text}`);
    }
    const group = (ratiosByGroup[w.group] ??= { node: [], browser: [], cold: [], 'after-warm-up': [], warmSteady: [] });
    group.node.push(v.median_ms / n.median_ms);
    if (b) group.browser.push(b.median_ms / n.median_ms);
    rows.push([w.name, work.text, fmtMs(n.median_ms), fmtMs(v.median_ms), fmtRatio(v.median_ms / n.median_ms),
      b ? fmtMs(b.median_ms) : '-', b ? fmtRatio(b.median_ms / n.median_ms) : '-']);
    // In each mode, the slower WASM runtime's first call against native's first call in a fresh process.
    const nf = median(nativeFirsts[i]);
    const row = [w.name, fmtMs(nf)];
    let slowest = 0;
    for (const mode of FIRST_MODES) {
      const vf = median(nodeFirsts[mode][i]);
      const bf = browserFirsts[mode][i].length ? median(browserFirsts[mode][i]) : null;
      slowest = Math.max(vf, bf ?? 0);
      group[mode].push(slowest / nf);
      row.push(`${fmtMs(vf)} / ${bf === null ? '-' : fmtMs(bf)}`, fmtRatio(slowest / nf));
    }
    // slowest is now the first call after warm-up's.
    group.warmSteady.push(slowest / n.median_ms);
    firstRows.push([...row, fmtRatio(slowest / n.median_ms)]);
  });
  const means = (/** @type {string} */ label, /** @type {Record<string, number[]>} */ r) => {
    const g = (/** @type {number[]} */ v) => (v.length ? `**${geometricMean(v).toFixed(2)}**` : '-');
    rows.push([label, '', '', '', g(r.node), '', g(r.browser)]);
    firstRows.push([label, '', '', g(r.cold), '', g(r['after-warm-up']), g(r.warmSteady)]);
  };
  for (const [group, r] of Object.entries(ratiosByGroup)) means(`**${group}, geometric mean**`, r);
  const all = (/** @type {'node'|'browser'|FirstMode|'warmSteady'} */ key) =>
    Object.values(ratiosByGroup).flatMap((g) => g[key]);
  means('**all, geometric mean**', { node: all('node'), browser: all('browser'), cold: all('cold'),
    'after-warm-up': all('after-warm-up'), warmSteady: all('warmSteady') });

  const markdown = (/** @type {string[]} */ head, /** @type {string[][]} */ body, /** @type {number} */ textColumns) =>
    [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i < textColumns ? '---' : '---:')).join('|')}|`,
      ...body.map((r) => `| ${r.join(' | ')} |`)];
  const table = markdown(header, rows, 2);
  const firstTable = markdown(firstHeader, firstRows, 1);
  process.stdout.write([...table, '', ...firstTable].join('\n') + '\n');
  for (const m of mismatches) process.stdout.write(`MISMATCH ${m}\n`);

  if (!options.out) return;
  const cpu = (readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/) ?? [])[1] ?? os.cpus()[0]?.model ?? 'unknown';
  const lines = [
    '# Benchmarks: native and WebAssembly',
    '',
    `Written by \`./dev.sh bench\` (\`node bench/wasm-bench.mjs\`) on ${new Date().toISOString().slice(0, 10)}; do not edit by hand.`,
    '',
    'Every workload is one contract request (`bench/workloads.mjs`) sent through `ppb::run_command`,',
    'the entry point the CLI and the WASM module share, so the three columns time the same work,',
    'JSON parsing and serialisation included: natively with `build/native/bench/ppb_bench_driver`,',
    'under node with the embind module `build/wasm/wasm/ppb_engine.js`, and in headless Chromium on',
    '`bench/bench.html` (the same module on the page\'s main thread). Each workload runs in the three',
    'runtimes one after another before the next workload starts, so that the rest of the machine\'s load',
    'falls on the three columns alike. Each WASM runtime first makes engine calls for',
    `${WARM_UP_MS / 1000} s: V8 starts a module on its baseline compiler and moves hot code to the optimising one`,
    'in the background, and until then small requests run up to 20 times slower; the first table shows the',
    'steady state.',
    `${options.rounds} rounds go over the whole list; each takes ${options.repeat} samples of every workload in every runtime`,
    `after a warm-up call, and each figure is the median of the ${options.rounds * options.repeat} samples. A sample is as many`,
    `back-to-back calls as fill ${options.minSampleMs} ms, divided by their number. Ratios are WASM time over native`,
    'time: 1.5 or below is the target (ratios over it are in italics).',
    '',
    '- simulate: `estimate` of uniform stages (F 1 ms, B 2 ms, W 1 ms, 0.01 ms per transfer), as',
    '  `BM_Simulate` / `BM_SimulateSchedule` (zb_h1 there), pp 8, 16, 64 x m 32, 256, 1024 x vpp 1, 2 (pp 64, m 32,',
    '  vpp 2 is no plan: interleaving needs m to be a multiple of pp); "ops" counts the simulated F, B',
    '  and W operations.',
    '- balance: `balance` of `BM_Balance`\'s model (heavy pinned embedding and head, decoders with',
    '  full and selective recompute, a memory limit that makes the first stages recompute). The 96-layer',
    '  case finishes proven optimal; the 1000-layer case stops at the command\'s default work budget',
    '  (`balance.work_budget`, 8,000,000 units): what the default costs on the benchmark set\'s hardest',
    '  balance. Budgets count work, so every runtime does the same work and gives the same plan (a',
    '  difference would be listed below as a disagreement).',
    '- search: `search` of `BM_Search`\'s default space (96 layers, pp 1 to 16, vpp 1, 2, 4, four',
    '  schedules, a 128-device cluster) with its defaults, `search.candidate_work` 30,000 units per',
    '  candidate: the same candidates and plans in every runtime.',
    '',
    `Machine: ${cpu}, ${os.cpus().length} cores, load average ${load.toFixed(2)} at the start (other`,
    `processes share the machine, so single figures carry noise). Native: ${firstLine('c++', ['--version']).replace(/^c\+\+/, 'g++')}, -O3`,
    `(CMake Release). WASM: Emscripten ${(firstLine('emcc', ['--version']).match(/\d+\.\d+\.\d+/) ?? ['unknown'])[0]}, -O3,`,
    `native WebAssembly exceptions; node ${process.version} (V8 ${process.versions.v8});`,
    `Chromium ${chromiumVersion}.`,
    '',
    '## Steady state',
    '',
    ...table,
    '',
    '## First calls',
    '',
    'What a person meets: the first call of a workload on a fresh module (a node process of its own, a Chromium page',
    'in a context of its own), run as the page\'s worker runs it: a balance and a search through `WorkSession`',
    'in 40 ms slices, each slice a fresh call (V8 uses a function\'s optimised code from its',
    'next call on; without slices a long call stays on the baseline code throughout), an estimate as one call. In',
    'two states of the module: **cold**, nothing run before (V8 compiles each function on its first call, 15 to 50 ms',
    'in all on a module\'s first calls: what the page\'s opening calls meet); **after warm-up**, after the warm-up the',
    'page\'s worker runs once loaded while it is idle (web/warm-up.js: small balances, estimates, a comparison and a',
    'search; the page budgets below drop their files before it has run), what a call a person makes a moment after the page opens meets. Natively, the **first call** is the',
    'driver\'s first call in a process of its own (`--first`), what a person running the CLI meets: a single call there',
    'is slower than the steady state too (cold caches, a heap not yet grown). Each ratio is the slower WASM runtime\'s',
    'first call over native\'s first call, against 1.5; the last column sets the first call after warm-up beside',
    'native\'s steady state instead (these tables before 2026-12-01 set first calls against native\'s steady state only,',
    `which a single native call misses too: ${fmtMs(median(nativeFirsts[0]))} ms in a fresh process against`,
    `${fmtMs(native[0].median_ms)} ms steady for ${list[0].name}). Ratios over 1.5 are in italics.`,
    'Each figure is the median of one call per round; the Chromium page is served cross-origin isolated, so that its',
    'clock counts microseconds rather than tenths of a millisecond.',
    '',
    ...firstTable,
    '',
  ];
  if (mismatches.length) lines.push('Runtimes that disagreed on the result (a bug to look at):', '', ...mismatches.map((m) => `- ${m}`), '');
  if (options.gbench) {
    lines.push('## The engine API without JSON (Google Benchmark, native)', '',
      '`build/native/bench/ppb_bench` (`bench/bench.cpp`) calls `simulate`, `balance` and a',
      '`SearchSession` directly, medians of its repetitions. `BM_Balance` keeps the command\'s default work',
      'budget, so its 1000-layer case stops there: its time is what the default budget costs natively. Set',
      'beside the native column above, the difference on small requests is the JSON edge: parsing the',
      'request, resolving the plan and writing the response.', '',
      '| benchmark | real ms | CPU ms | counters |', '|---|---:|---:|---|', ...gbenchRows(options.gbench), '');
  }
  // The page's frame times (bench/page-frames.mjs) and budgets (bench/page-budgets.mjs), and the last A/B of two
  // WASM builds (bench/ab-wasm.mjs), live in the same file, between their markers: kept as they are.
  const previous = existsSync(options.out) ? readFileSync(options.out, 'utf8') : '';
  for (const marker of ['page-budgets', 'page-frames', 'ab-wasm']) {
    const at = previous.indexOf(`<!-- ${marker} -->`);
    const end = previous.indexOf(`<!-- /${marker} -->`);
    if (at >= 0 && end > at) lines.push(previous.slice(at, end + `<!-- /${marker} -->`.length), '');
  }
  writeFileSync(options.out, lines.join('\n'));
  process.stderr.write(`wrote ${relative(ROOT, options.out)}\n`);
}

main().catch((e) => {
  process.stderr.write(`wasm-bench: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
