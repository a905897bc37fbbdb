// The page's budgets, measured as a person meets them: in headless Chromium, the built site (build/site) served
// locally. Two kinds of case, each in a fresh browser context per round (a cold engine), navigated to from a blank tab
// once the browser has finished opening its window (freshTab):
//   - opening the page: from the navigation to the bundled example's first plan drawn (budget 1 s);
//   - dropping a large request file on the page as soon as it shows the example's plan (the worker's warm-up has not
//     run yet): from the drop to the reading line shown (progress, budget 100 ms) and to the model's first plan drawn
//     (100,000 layers in 2 s whether or not a plan fits, 10,000 in 0.5 s), or for a file over the engine's cap on
//     entries (100,002), to its LAYER_LIMIT error beside the file input (1 s).
//
//   node bench/page-budgets.mjs [--repeat N] [--opens N] [--only SUBSTRING] [--site DIR]
//                               [--out docs/benchmarks.md | --no-out]
//
// --repeat: drops per case (default 3); --opens: openings (default 7; 0 skips them); --only: the drop cases whose
// name holds SUBSTRING. The tables give the median and the worst, and where the time went from the page's own
// performance marks (ppb:read, ppb:parsed, ppb:plan-sent, ppb:interim-drawn, ppb:plan-answered, ppb:drawn). A
// balance still running a moment after its call sends its best plan so far, which the page draws at once, marked as
// still balancing: the first plan drawn (the budgets' figure) may be that one; the final plan drawn is given beside
// it. Prints the tables and writes them into docs/benchmarks.md between its markers (bench/wasm-bench.mjs keeps
// them); run by ./dev.sh bench. A case over its budget is reported in the table (the exit status stays 0, so the
// benchmarks after it still run). --site serves another built site (to compare two builds); its figures are not
// written to the docs.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
 * The cases: name, layers, limit, budget. A case with `refused` is a file over the engine's cap on entries (LAYER_LIMIT):
 * its budget is held against the refusal shown beside the file input.
 * @type {{name: string, body: number, limit: number | null, budgetMs: number, refused?: boolean}[]}
 */
export const CASES = [
  // 10,000 decoders of 4 MiB static each over 8 stages is 5,000 MiB a stage plus 1F1B's activations: 40,960 MiB fits.
  { name: '10,000 layers, plan fits (40,960 MiB)', body: 10_000, limit: 40_960, budgetMs: 500 },
  // 100,000 layers (the engine's cap on entries; 99,998 decoders and the pinned two): 50,000 MiB of static memory a stage on average, over any 40,960 MiB limit.
  { name: '100,000 layers, no plan fits (40,960 MiB)', body: 99_998, limit: 40_960, budgetMs: 2000 },
  { name: '100,000 layers, no limit (plan fits)', body: 99_998, limit: null, budgetMs: 2000 },
  // 100,000 decoders and the pinned two: 100,002 entries, two over the cap.
  { name: '100,002 layers, over the cap (refused)', body: 100_000, limit: null, budgetMs: 1000, refused: true },
];

/** The bundled example's first drawn result, from the navigation (ms). */
export const OPEN_BUDGET_MS = 1000;
/** Progress shown from the drop within this (ms). */
export const PROGRESS_BUDGET_MS = 100;

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
    const count = (least = 1) => {
      const n = Number(value());
      if (!Number.isInteger(n) || n < least) throw new Error(`${arg} needs a whole number of at least ${least}, not ${argv[i]}`);
      return n;
    };
    if (arg === '--repeat') options.repeat = count();
    else if (arg === '--opens') options.opens = count(0);
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
 * CPU time (ms) the browser's processes have used so far (Linux: /proc), or null where there is no /proc.
 * @returns {number | null}
 */
function browserCpuMs() {
  if (!existsSync('/proc/self/stat')) return null;
  const tick = 10; // USER_HZ is 100 on Linux
  let total = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('chromium')) continue;
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      total += (Number(fields[11]) + Number(fields[12])) * tick;
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
}

/** The browser counts as done opening a window once its processes use at most this CPU (ms) in QUIET_WINDOW_MS. */
const QUIET_CPU_MS = 20;
const QUIET_WINDOW_MS = 250;
const QUIET_WAIT_MAX_MS = 10_000;

/**
 * A fresh browser context (cold caches: the site as a person following a link for the first time meets it) with a
 * blank tab, once the browser has finished opening its window. Headless Chromium builds a new window's own interface
 * with each context (Chromium 156: the omnibox popup's WebUI in a renderer of its own, measured at about 1.3 s of a
 * core and 0.5 s of the browser process's within its first second). A person who follows a link has a window open
 * already, so the clock starts after that work: once the browser's processes have used at most QUIET_CPU_MS of CPU in
 * QUIET_WINDOW_MS (at most QUIET_WAIT_MAX_MS; where there is no /proc, a fixed 2.5 s).
 * @param {import('playwright-core').Browser} browser
 * @returns {Promise<{context: import('playwright-core').BrowserContext, page: import('playwright-core').Page}>}
 */
async function freshTab(browser) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  await page.goto('about:blank');
  const pause = (/** @type {number} */ ms) => new Promise((done) => setTimeout(done, ms));
  let before = browserCpuMs();
  if (before === null) {
    await pause(2500);
    return { context, page };
  }
  const end = performance.now() + QUIET_WAIT_MAX_MS;
  while (performance.now() < end) {
    await pause(QUIET_WINDOW_MS);
    const now = /** @type {number} */ (browserCpuMs());
    if (now - before <= QUIET_CPU_MS) break;
    before = now;
  }
  return { context, page };
}

/**
 * The page opened in a fresh context: milliseconds from the navigation to the example's first plan drawn (a balance's
 * best plan so far or its answer, whichever the page draws first) and to its final plan drawn, the page's marks on
 * the way.
 * @param {import('playwright-core').Browser} browser
 * @param {string} url
 * @returns {Promise<{first: number, drawn: number, marks: Record<string, number>}>}
 */
async function openOnce(browser, url) {
  const { context, page } = await freshTab(browser);
  /** @type {string[]} */
  const problems = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto(url);
  const handle = await page.waitForFunction(() => {
    const drawn = performance.getEntriesByName('ppb:drawn')[0];
    if (!drawn) return false;
    const interim = performance.getEntriesByName('ppb:interim-drawn')[0];
    return { drawn: drawn.startTime, first: Math.min(drawn.startTime, interim?.startTime ?? Infinity),
      marks: performance.getEntriesByType('mark').filter((m) => m.startTime <= drawn.startTime).map((m) => [m.name, m.startTime]) };
  }, null, { timeout: 60_000, polling: 'raf' });
  const run = /** @type {{first: number, drawn: number, marks: [string, number][]}} */ (await handle.jsonValue());
  await context.close();
  if (problems.length) throw new Error(problems.join('; '));
  return { first: run.first, drawn: run.drawn, marks: Object.fromEntries(run.marks) };
}

/**
 * @param {boolean} ok
 * @returns {string}
 */
const within = (ok) => (ok ? 'yes' : '**no**');

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
 * One file dropped on a fresh page as soon as it shows the example's plan (the worker's warm-up has not run: a person
 * who drops a file at once meets the engine as cold as this): milliseconds from the drop to the first sign of work
 * (the reading line), to the model's first plan drawn (or, for a file the engine cannot take, the refusal beside the
 * file input) and to its final plan drawn, and the page's own marks (ms after the drop) of where the time went.
 * @param {import('playwright-core').Browser} browser
 * @param {string} url
 * @param {string} text the file
 * @param {number} layers expanded layers of the model, to know its plan when it is drawn
 * @param {boolean} refused whether the page refuses the file (LAYER_LIMIT)
 * @returns {Promise<{progress: number, first: number, total: number, error: string, marks: Record<string, number>}>}
 */
async function dropOnce(browser, url, text, layers, refused) {
  const { context, page } = await freshTab(browser);
  /** @type {string[]} */
  const problems = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => performance.getEntriesByName('ppb:drawn').length > 0 && document.body.dataset.state === 'ready',
    null, { timeout: 60_000 });
  // The file is made in the page before the clock starts (passing 15 MiB to the page takes a while of its own).
  await page.evaluate((content) => { /** @type {any} */ (window).__file = new File([content], 'large.json', { type: 'application/json' }); }, text);
  await page.evaluate((n) => {
    const w = /** @type {any} */ (window);
    const data = new DataTransfer();
    data.items.add(w.__file);
    const start = performance.now();
    w.__drop = { start, progress: null, first: null, error: '' };
    // Watches every frame for the reading line, and for the first plan of this model drawn (final or the balance's
    // best so far) or the model's refusal.
    const watch = () => {
      const now = performance.now();
      if (w.__drop.progress === null && document.querySelector('#work .work-line')) w.__drop.progress = now;
      const result = w.__ppb?.last?.result;
      if (w.__drop.first === null && result && result.stage_layers.reduce((/** @type {number} */ a, /** @type {number} */ b) => a + b, 0) === n) {
        w.__drop.first = now;
      }
      const alert = document.querySelector('#drop-target [role="alert"]');
      if (w.__drop.first === null && alert) {
        w.__drop.first = now;
        w.__drop.error = `${/** @type {HTMLElement} */ (alert).dataset.code}: ${alert.textContent}`;
      }
      if (w.__drop.first === null || w.__drop.progress === null) requestAnimationFrame(watch);
    };
    requestAnimationFrame(watch);
    window.dispatchEvent(new DragEvent('dragenter', { dataTransfer: data, cancelable: true }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: data, cancelable: true }));
  }, layers);
  const handle = await page.waitForFunction(([n, refusedFile]) => {
    const w = /** @type {any} */ (window);
    if (w.__drop.first === null || w.__drop.progress === null) return false;
    if (!refusedFile) {
      const result = w.__ppb?.last?.result;
      const drawn = result && result.stage_layers.reduce((/** @type {number} */ a, /** @type {number} */ b) => a + b, 0) === n &&
        !w.__ppb.interim && document.body.dataset.state === 'ready';
      if (!drawn) return false;
    }
    return { end: refusedFile ? w.__drop.first : performance.now(), ...w.__drop,
      marks: performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]) };
  }, /** @type {[number, boolean]} */ ([layers, refused]), { timeout: 120_000, polling: 'raf' });
  const run = /** @type {{start: number, end: number, progress: number, first: number, error: string, marks: [string, number][]}} */ (await handle.jsonValue());
  await context.close();
  if (problems.length) throw new Error(problems.join('; '));
  if (refused && !run.error.includes('LAYER_LIMIT')) throw new Error(`the over-limit file was not refused with LAYER_LIMIT: ${run.error}`);
  return { progress: run.progress - run.start, first: run.first - run.start, total: run.end - run.start, error: run.error,
    marks: Object.fromEntries(run.marks.filter(([, t]) => t >= run.start).map(([name, t]) => [name, t - run.start])) };
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
  /** @type {string[]} */
  const refusedRows = [];
  try {
    if (options.opens > 0) {
      /** @type {number[]} */
      const firsts = [];
      /** @type {number[]} */
      const drawn = [];
      /** @type {Record<string, number[]>} */
      const marks = {};
      for (let r = 0; r < options.opens; ++r) {
        const run = await openOnce(browser, url);
        firsts.push(run.first);
        drawn.push(run.drawn);
        for (const [name, t] of Object.entries(run.marks)) (marks[name] ??= []).push(t);
        process.stderr.write(`open: example's first plan drawn ${run.first.toFixed(0)} ms, final ${run.drawn.toFixed(0)} ms\n`);
      }
      const med = median(firsts);
      openRows.push(`| ${med.toFixed(0)} | ${Math.max(...firsts).toFixed(0)} | ${OPEN_BUDGET_MS} | ${within(med <= OPEN_BUDGET_MS)} | ` +
        `${median(drawn).toFixed(0)} | ${markSteps(marks)} |`);
    }
    for (const c of CASES.filter((x) => x.name.includes(options.only))) {
      const text = JSON.stringify(largeRequest(c.body, c.limit));
      /** @type {number[]} */
      const totals = [];
      /** @type {number[]} */
      const firsts = [];
      /** @type {number[]} */
      const progresses = [];
      /** @type {Record<string, number[]>} */
      const marks = {};
      for (let r = 0; r < options.repeat; ++r) {
        const run = await dropOnce(browser, url, text, c.body + 2, c.refused ?? false);
        totals.push(run.total);
        firsts.push(run.first);
        progresses.push(run.progress);
        for (const [name, t] of Object.entries(run.marks)) (marks[name] ??= []).push(t);
        process.stderr.write(`${c.name}: progress ${run.progress.toFixed(0)} ms, ${c.refused ? 'refused' : 'first plan'} ${run.first.toFixed(0)} ms` +
          `${c.refused ? '' : `, final ${run.total.toFixed(0)} ms`}\n`);
      }
      const med = median(firsts);
      const progress = median(progresses);
      const size = `${(Buffer.byteLength(text) / 2 ** 20).toFixed(1)} MiB`;
      const ok = med <= c.budgetMs && progress <= PROGRESS_BUDGET_MS;
      if (c.refused) {
        refusedRows.push(`| ${c.name} | ${size} | ${progress.toFixed(0)} | ${med.toFixed(0)} | ${Math.max(...firsts).toFixed(0)} | ${c.budgetMs} | ${within(ok)} | ${markSteps(marks)} |`);
      } else {
        rows.push(`| ${c.name} | ${size} | ${progress.toFixed(0)} | ${med.toFixed(0)} | ${Math.max(...firsts).toFixed(0)} | ${c.budgetMs} | ${within(ok)} | ` +
          `${median(totals).toFixed(0)} | ${markSteps(marks)} |`);
      }
    }
  } finally {
    await browser.close();
    server.close();
  }
  const table = ['| case | file | progress shown, median ms | first plan drawn, median ms | worst ms | budget ms | within | final plan drawn, median ms | page marks, ms after the drop (median) |',
    '|---|---:|---:|---:|---:|---:|---|---:|---|', ...rows].join('\n');
  const refusedTable = ['| case | file | progress shown, median ms | refusal shown, median ms | worst ms | budget ms | within | page marks, ms after the drop (median) |',
    '|---|---:|---:|---:|---:|---:|---|---|', ...refusedRows].join('\n');
  const openTable = ['| example\'s first plan drawn, median ms after the navigation | worst ms | budget ms | within | final plan drawn, median ms | page marks, ms after the navigation (median) |',
    '|---:|---:|---:|---|---:|---|', ...openRows].join('\n');
  process.stdout.write(`${openTable}\n\n${table}\n\n${refusedTable}\n`);
  const over = [...rows, ...refusedRows, ...openRows].filter((r) => r.includes('**no**')).length;
  if (!options.out) return;
  const section = [
    START,
    '## The page: budgets from the navigation and from the drop',
    '',
    `Written by \`node bench/page-budgets.mjs\` (run by \`./dev.sh bench\`) on ${new Date().toISOString().slice(0, 10)}, headless Chromium ${version},`,
    `${os.cpus().length} cores, load average ${load.toFixed(1)} at the start (the machine is shared; with more runnable processes than cores the`,
    'figures grow with the load). The built site, each round in a fresh browser context (the engine as cold as a',
    'person meets it), navigated to from a blank tab once the browser has finished opening the window: headless',
    'Chromium builds each new window\'s own interface (its omnibox popup, a WebUI in a renderer of its own: about 1.3 s',
    'of a core and 0.5 s of the browser process\'s in its first second, measured), which a person following a link, with',
    `a window open already, does not wait for; the clock starts once the browser's processes have used at most ${QUIET_CPU_MS} ms`,
    `of CPU in ${QUIET_WINDOW_MS} ms. Each figure the median of its rounds. Budgets: the bundled example's first plan drawn within`,
    `${OPEN_BUDGET_MS} ms of the navigation; a dropped file shows progress within ${PROGRESS_BUDGET_MS} ms; 10,000 layers drawn in 0.5 s, 100,000`,
    'layers in 2 s whether or not a plan fits, and a file over the engine\'s cap on entries (100,002) refused in 1 s.',
    '',
    '### Opening the page',
    '',
    `The page opened ${options.opens} times, timed from the navigation to the example's first plan drawn: the`,
    'default example is balanced (PPB), and a balance still running 120 ms after its call came sends its best plan so',
    'far, which the page draws at once (ppb:interim-drawn), marked as still balancing; the final plan column is its last',
    'answer drawn (ppb:drawn). The marks say when the engine said ready (ppb:engine-ready), the page sent the plan, had',
    'the engine\'s answer and had drawn it.',
    '',
    openTable,
    '',
    '### Dropping a large file',
    '',
    'A request file dropped on the page as soon as it shows the example\'s plan, as a person who drops a file at once',
    'meets it (the worker\'s warm-up, web/warm-up.js, has not run yet): a model of individual layer entries (as a',
    'profiler writes them) on pp 8 with 32 micro batches, PPB. Timed from the drop to the reading line shown',
    '(progress), to the first plan drawn for that model (a balance\'s best plan so far counts, as above) and to the',
    'final plan drawn with the page ready. The marks say when the page had read the file (ppb:read), parsed it,',
    'sent the plan, drawn the best plan so far, had the engine\'s answer and had drawn it.',
    '',
    table,
    '',
    'A file over the cap, timed from the drop to the reading line and to the LAYER_LIMIT error shown beside the file',
    'input.',
    '',
    refusedTable,
    '',
    over ? `${over} case${over === 1 ? ' is' : 's are'} over the budget.` : 'Every case is within its budget.',
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
