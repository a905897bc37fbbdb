// The page's budgets at scale, measured as a person meets them: in headless Chromium, the built site
// (build/site) served locally, a request file with a large model uploaded through the file input, timed from the
// input's change event to the results drawn for that model (the summary shows its plan and the page is ready).
//
//   node bench/page-budgets.mjs [--repeat N] [--opens N] [--only SUBSTRING] [--site DIR]
//                               [--out docs/benchmarks.md | --no-out]
//
// Budgets: 100,000 layers under 2 s whether or not a plan fits; 10,000 layers under 0.5 s. Each case runs in a fresh
// page (a cold engine, as a person's first upload) N times (default 3); the table gives the median and the worst,
// and where the time went from the page's own performance marks (ppb:parsed, ppb:plan-sent, ppb:plan-answered,
// ppb:drawn). Prints the table and writes it into docs/benchmarks.md between its markers (bench/wasm-bench.mjs
// keeps them); run by ./dev.sh bench. A case over its budget is reported in the table (the exit status stays 0, so
// the benchmarks after it still run).
//
// Each upload waits for the worker's warm-up after loading to end (a person picks a file some seconds after the page
// opens). Two times per upload: the first plan drawn for the model (a balance that runs a while draws its best plan so far
// and refines it: the page shows a complete plan, marked as still balancing, with the gap closing), which the
// budget is held against, and the final plan drawn with the page ready.
//
// Before the uploads, the page is opened --opens times (default 7), each in a fresh context, and timed from the
// navigation to the example's plan drawn: what everyone meets first, on a cold engine. --site
// serves another built site (to compare two builds); its figures are not written to the docs.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../tools/serve.mjs';
import { median } from './timing.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const START = '<!-- page-budgets -->';
const END = '<!-- /page-budgets -->';
const SITE = join(ROOT, 'build', 'site');
const CHROMIUM_ARGS = ['--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * A model of `body` decoders, each its own layer entry (as a profiler writes them, so the file is as large as such a
 * model's: about 86 bytes a layer), forward 1, 1.1, 1.2 ms repeating, full and selective recompute, a pinned
 * embedding and head; on pp 8 with 32 micro batches.
 * @param {number} body
 * @param {number | null} limitMib the memory limit, or null for none
 * @returns {object}
 */
export function largeRequest(body, limitMib) {
  /** @type {object[]} */
  const layers = [{ name: 'embedding', pin: 'first', forward_ms: 3, backward_ms: 6, static_mib: 2000, activation_mib: 100, send_mib: 32 }];
  for (let i = 0; i < body; ++i) {
    const f = 1 + 0.1 * (i % 3);
    layers.push({ name: 'decoder', forward_ms: f, backward_ms: 2 * f, static_mib: 4, activation_mib: 3, send_mib: 32,
      recompute: { full: { activation_mib: 0.2, extra_ms: f } } });
  }
  layers.push({ name: 'head', pin: 'last', forward_ms: 5, backward_ms: 10, static_mib: 3000, activation_mib: 200, send_mib: 32 });
  /** @type {Record<string, any>} */
  const device = { p2p_bandwidth_gbs: 25, p2p_latency_ms: 0.02, reserved_mib: 2048 };
  if (limitMib !== null) device.memory_limit_mib = limitMib;
  return { model: { format: 'ppb.model.v1', name: `${body} layers`, layers }, device, pipeline: { pp_degree: 8, micro_batch_num: 32 } };
}

/**
 * The cases: name, layers, limit, budget.
 * @type {{name: string, body: number, limit: number | null, budgetMs: number}[]}
 */
export const CASES = [
  // 10,000 decoders of 4 MiB static each over 8 stages is 5,000 MiB a stage plus 1F1B's activations: 40,960 MiB fits.
  { name: '10,000 layers, plan fits (40,960 MiB)', body: 10_000, limit: 40_960, budgetMs: 500 },
  // 100,000 layers (the engine's cap on entries; 99,998 decoders and the pinned two): 50,000 MiB of static memory a stage on average, over any 40,960 MiB limit.
  { name: '100,000 layers, no plan fits (40,960 MiB)', body: 99_998, limit: 40_960, budgetMs: 2000 },
  { name: '100,000 layers, no limit (plan fits)', body: 99_998, limit: null, budgetMs: 2000 },
];

/**
 * @param {string[]} argv
 */
function parseArgs(argv) {
  const options = { repeat: 3, opens: 7, only: '', site: SITE, out: /** @type {string | null} */ (join(ROOT, 'docs', 'benchmarks.md')) };
  let outGiven = false;
  let siteGiven = false;
  for (let i = 0; i < argv.length; ++i) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value`);
      return argv[++i];
    };
    const count = () => {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1) throw new Error(`${arg} needs a whole number of at least 1, not ${argv[i]}`);
      return n;
    };
    if (arg === '--repeat') options.repeat = count();
    else if (arg === '--opens') options.opens = count();
    else if (arg === '--only') options.only = value();
    else if (arg === '--site') {
      options.site = resolve(value());
      siteGiven = true;
      if (!existsSync(join(options.site, 'index.html'))) throw new Error(`--site ${options.site} holds no index.html (a built site, as build/site)`);
    } else if (arg === '--out') {
      options.out = resolve(value());
      outGiven = true;
    } else if (arg === '--no-out') options.out = null;
    else throw new Error(`unknown option ${arg}`);
  }
  if (siteGiven && outGiven) throw new Error('--site measures another build, whose figures are not written: drop --out');
  if (siteGiven) options.out = null;
  return options;
}

/**
 * The page opened in a fresh context: milliseconds from the navigation to the example's plan drawn, the page's marks
 * on the way.
 * @param {import('playwright-core').Browser} browser
 * @param {string} url
 * @returns {Promise<{drawn: number, marks: Record<string, number>}>}
 */
async function openOnce(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  /** @type {string[]} */
  const problems = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto(url);
  const handle = await page.waitForFunction(() => {
    const drawn = performance.getEntriesByName('ppb:drawn')[0];
    if (!drawn) return false;
    return { drawn: drawn.startTime,
      marks: performance.getEntriesByType('mark').filter((m) => m.startTime <= drawn.startTime).map((m) => [m.name, m.startTime]) };
  }, null, { timeout: 60_000, polling: 'raf' });
  const run = /** @type {{drawn: number, marks: [string, number][]}} */ (await handle.jsonValue());
  await context.close();
  if (problems.length) throw new Error(problems.join('; '));
  return { drawn: run.drawn, marks: Object.fromEntries(run.marks) };
}

/**
 * The marks' medians, in the order they came, as text.
 * @param {Record<string, number[]>} marks
 * @returns {string}
 */
function markSteps(marks) {
  return Object.entries(marks).map(([name, t]) => /** @type {[string, number]} */ ([name, median(t)])).sort((a, b) => a[1] - b[1])
    .map(([name, t]) => `${name} ${t.toFixed(0)}`).join(', ');
}

/**
 * One upload in a fresh page: milliseconds from the file input's change to the model's plan drawn, and the
 * page's own marks (ms after the change) of where the time went.
 * @param {import('playwright-core').Browser} browser
 * @param {string} url
 * @param {Buffer} file
 * @param {number} layers expanded layers of the model, to know its plan when it is drawn
 * @returns {Promise<{first: number, total: number, warmUp: number, marks: Record<string, number>}>}
 */
async function uploadOnce(browser, url, file, layers) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  /** @type {string[]} */
  const problems = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.state === 'ready', null, { timeout: 60_000 });
  // A person picks the file some seconds after the page opens: by then the worker's warm-up is over.
  const warmUp = Number(await (await page.waitForFunction(() => /** @type {any} */ (window).__ppb.warmUpMs, null,
    { timeout: 60_000 })).jsonValue());
  await page.evaluate((n) => {
    const w = /** @type {any} */ (window);
    const input = /** @type {HTMLInputElement} */ (document.getElementById('model-file'));
    input.addEventListener('change', () => {
      w.__uploadStart = performance.now();
      // Watches every frame for the first plan of this model drawn (final or the balance's best so far).
      const watch = () => {
        const result = w.__ppb?.last?.result;
        if (result && result.stage_layers.reduce((/** @type {number} */ a, /** @type {number} */ b) => a + b, 0) === n) {
          w.__firstDrawn = performance.now();
          return;
        }
        requestAnimationFrame(watch);
      };
      requestAnimationFrame(watch);
    }, { capture: true });
  }, layers);
  await page.setInputFiles('input#model-file', { name: 'large.json', mimeType: 'application/json', buffer: file });
  const handle = await page.waitForFunction((n) => {
    const w = /** @type {any} */ (window);
    const result = w.__ppb?.last?.result;
    const drawn = result && result.stage_layers.reduce((/** @type {number} */ a, /** @type {number} */ b) => a + b, 0) === n &&
      !w.__ppb.interim && document.body.dataset.state === 'ready';
    if (!drawn) return false;
    return { end: performance.now(), start: w.__uploadStart, first: w.__firstDrawn ?? performance.now(),
      marks: performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]) };
  }, layers, { timeout: 120_000, polling: 'raf' });
  const { start, end, first, marks } = /** @type {{start: number, end: number, first: number, marks: [string, number][]}} */ (await handle.jsonValue());
  await context.close();
  if (problems.length) throw new Error(problems.join('; '));
  return { first: first - start, total: end - start, warmUp,
    marks: Object.fromEntries(marks.filter(([, t]) => t >= start).map(([name, t]) => [name, t - start])) };
}

/**
 * @param {ReturnType<typeof parseArgs>} options
 */
async function main(options) {
  const { chromium } = await import('playwright-core');
  const { server, url } = await startServer(options.site, { port: 0 });
  const load = os.loadavg()[0];
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const version = browser.version();
  /** @type {string[]} */
  const rows = [];
  /** @type {string[]} */
  const openRows = [];
  try {
    {
      /** @type {number[]} */
      const drawn = [];
      /** @type {Record<string, number[]>} */
      const marks = {};
      for (let r = 0; r < options.opens; ++r) {
        const run = await openOnce(browser, url);
        drawn.push(run.drawn);
        for (const [name, t] of Object.entries(run.marks)) (marks[name] ??= []).push(t);
        process.stderr.write(`open: example drawn ${run.drawn.toFixed(0)} ms\n`);
      }
      openRows.push(`| ${median(drawn).toFixed(0)} | ${Math.max(...drawn).toFixed(0)} | ${markSteps(marks)} |`);
    }
    for (const c of CASES.filter((x) => x.name.includes(options.only))) {
      const file = Buffer.from(JSON.stringify(largeRequest(c.body, c.limit)));
      /** @type {number[]} */
      const totals = [];
      /** @type {number[]} */
      const firsts = [];
      /** @type {number[]} */
      const warmUps = [];
      /** @type {Record<string, number[]>} */
      const marks = {};
      for (let r = 0; r < options.repeat; ++r) {
        const run = await uploadOnce(browser, url, file, c.body + 2);
        totals.push(run.total);
        firsts.push(run.first);
        warmUps.push(run.warmUp);
        for (const [name, t] of Object.entries(run.marks)) (marks[name] ??= []).push(t);
        process.stderr.write(`${c.name}: first plan ${run.first.toFixed(0)} ms, final ${run.total.toFixed(0)} ms\n`);
      }
      const med = median(firsts);
      const steps = markSteps(marks);
      rows.push(`| ${c.name} | ${(file.length / 2 ** 20).toFixed(1)} MiB | ${med.toFixed(0)} | ${Math.max(...firsts).toFixed(0)} | ${c.budgetMs} | ${med <= c.budgetMs ? 'yes' : '**no**'} | ${median(totals).toFixed(0)} | ${median(warmUps).toFixed(0)} | ${steps} |`);
    }
  } finally {
    await browser.close();
    server.close();
  }
  const table = ['| case | file | first plan drawn, median ms | worst ms | budget ms | within | final plan drawn, median ms | worker warm-up before, ms | page marks, ms after the upload (median) |',
    '|---|---:|---:|---:|---:|---|---:|---:|---|', ...rows].join('\n');
  const openTable = ['| example plan drawn, median ms after the navigation | worst ms | page marks, ms after the navigation (median) |',
    '|---:|---:|---|', ...openRows].join('\n');
  process.stdout.write(`${openTable}\n\n${table}\n`);
  const over = rows.filter((r) => r.includes('**no**')).length;
  if (!options.out) return;
  const section = [
    START,
    '## The page: from upload to drawn results',
    '',
    `Written by \`node bench/page-budgets.mjs\` (run by \`./dev.sh bench\`) on ${new Date().toISOString().slice(0, 10)}, headless Chromium ${version},`,
    `${os.cpus().length} cores, load average ${load.toFixed(1)} at the start (the machine is shared; with more runnable processes than cores the`,
    'figures grow with the load). The built site in a fresh browser context per upload (the engine as cold as on a',
    'person\'s first upload), a request file uploaded through the file input: a model of individual layer entries (as a',
    'profiler writes them) on pp 8 with 32 micro batches, PPB. Timed from the input\'s change event to the first plan',
    'drawn for that model: a balance still running 120 ms after the call came sends its best plan so far, which the page',
    'draws at once, marked as still balancing, and refines (the budget is held against this time); the final plan',
    'column is when the balance\'s last answer is drawn and the page is ready. The marks say when the page had parsed',
    'the file, sent the plan, drawn the best plan so far (ppb:interim-drawn), had the engine\'s answer and had drawn it.',
    'Budgets: 10,000 layers in 0.5 s, 100,000 layers in 2 s whether or not a plan fits. Each upload waits for the',
    'worker\'s warm-up after loading (web/warm-up.js: small balances, estimates, a comparison and a search while idle,',
    'so that the code a large upload runs is on V8\'s optimising tier; its duration is in the table), as a person who picks a',
    'file some seconds after the page opens meets it.',
    '',
    table,
    '',
    over ? `${over} case${over === 1 ? ' is' : 's are'} over the budget.` : 'Every case is within its budget.',
    '',
    '### Opening the page',
    '',
    `The page opened ${options.opens} times, each in a fresh context, timed from the navigation to the plan of the`,
    'example it opens with drawn (ppb:drawn): the engine is loaded but cold (its warm-up comes after these calls). The',
    'marks say when the engine said ready (ppb:engine-ready), the page sent the plan, had the engine\'s answer and had',
    'drawn it.',
    '',
    openTable,
    END,
  ].join('\n');
  const old = existsSync(options.out) ? readFileSync(options.out, 'utf8') : '';
  const start = old.indexOf(START);
  const end = old.indexOf(END);
  writeFileSync(options.out, start >= 0 && end > start ? old.slice(0, start) + section + old.slice(end + END.length) : `${old.trimEnd()}\n\n${section}\n`);
  process.stderr.write(`wrote the page-budgets section of ${options.out}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  /** @type {ReturnType<typeof parseArgs>} */
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (e) {
    // A usage mistake: its sentence, without a stack.
    process.stderr.write(`page-budgets: ${e instanceof Error ? e.message : e}\n`);
    process.exit(2);
  }
  main(options).catch((e) => {
    process.stderr.write(`page-budgets: ${e && e.stack ? e.stack : e}\n`);
    process.exit(1);
  });
}
