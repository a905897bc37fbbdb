// Issue 32: the same balance request gives the same plan on every machine and runtime, because its budgets count work
// and the wall clock is only a safety cap. One balance cut by its work budget (1,000 layers over 64 stages, the
// benchmark's hardest, at 300,000 units) and one that finishes (96 layers over 16 stages, proven optimal) are run by
// the native CLI, by the WASM module under node (at once and in slices of 1 ms, as the page's worker runs it), and in
// headless Chromium: cold, warm, and with the CPU throttled to a third of its speed (the DevTools protocol's
// Emulation.setCPUThrottlingRate), in slices. Every answer's result must be the native one, byte for byte.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { workloads } from '../../bench/workloads.mjs';
import { startServer } from '../../tools/serve.mjs';
import { launchBrowser, repoRoot } from './helpers.mjs';

const cli = join(repoRoot, 'build', 'native', 'ppb');
const moduleDir = join(repoRoot, 'build', 'wasm', 'wasm');

/** @param {string} name @param {object} balance */
function request(name, balance) {
  const w = workloads().find((x) => x.name === name);
  if (!w) throw new Error(`no workload ${name}`);
  const r = /** @type {any} */ (structuredClone(w.request));
  r.balance = { ...r.balance, ...balance };
  return JSON.stringify(r);
}

const cases = [
  { name: 'cut by its work budget', text: request('balance 1000 layers pp 64', { work_budget: 300_000 }), proven: false },
  { name: 'proven optimal', text: request('balance 96 layers pp 16', {}), proven: true },
];

/** The result of a response text, checked to be ok. @param {string} text */
function resultOf(text) {
  const response = JSON.parse(text);
  assert.equal(response.ok, true, text.slice(0, 400));
  return JSON.stringify(response.result);
}

/** @type {Map<string, string>} */
const native = new Map();
/** @type {any} */
let engine = null;
/** @type {{browser: import('playwright-core').Browser, url: string, close: () => Promise<void>} | null} */
let site = null;

before(async () => {
  for (const c of cases) native.set(c.name, resultOf(execFileSync(cli, ['balance', '-'], { input: c.text, maxBuffer: 1 << 28 }).toString()));
  const createPpbEngine = createRequire(import.meta.url)(join(moduleDir, 'ppb_engine.js'));
  engine = await createPpbEngine({ wasmBinary: readFileSync(join(moduleDir, 'ppb_engine.wasm')) });
  // The repository's root, as the bench page is served: it loads the module the page's worker loads.
  const { server, url } = await startServer(repoRoot, { port: 0 });
  const browser = await launchBrowser();
  site = { browser, url, close: async () => { await browser.close(); await new Promise((resolve) => server.close(resolve)); } };
});

after(async () => { await site?.close(); });

/**
 * Runs a balance in a WorkSession in slices of `sliceMs`, as the page's worker does.
 * @param {any} module
 * @param {string} text
 * @param {number} sliceMs
 */
function sliced(module, text, sliceMs) {
  const session = new module.WorkSession('balance', text);
  try {
    while (!JSON.parse(session.step(sliceMs)).finished) { /* the next slice */ }
    return session.result(false);
  } finally {
    session.delete();
  }
}

test('the native answers are what the cases need: one cut by its work budget, one proven', () => {
  for (const c of cases) {
    const method = JSON.parse(/** @type {string} */ (native.get(c.name))).method;
    assert.equal(method.proven_optimal, c.proven, c.name);
    if (!c.proven) assert.ok(method.notes.some((/** @type {string} */ n) => n.includes('stopped at its work budget')), c.name);
    assert.ok(!method.notes.some((/** @type {string} */ n) => n.includes('stopped early')), c.name);
  }
});

test('WASM under node gives the native result, at once and in slices', () => {
  for (const c of cases) {
    assert.equal(resultOf(engine.balance(c.text)), native.get(c.name), `${c.name}, at once`);
    assert.equal(resultOf(sliced(engine, c.text, 1)), native.get(c.name), `${c.name}, in slices`);
  }
});

test('Chromium gives the native result cold, warm and with the CPU throttled to a third', async () => {
  assert.ok(site);
  const context = await site.browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(new URL('bench/bench.html?drive=1', site.url).href);
    await page.waitForFunction(() => /** @type {any} */ (window).ppbBench?.ready === true, null, { timeout: 60_000 });
    // A fresh module per run: the first call is a cold one.
    const run = (/** @type {string} */ text, /** @type {number} */ sliceMs) => page.evaluate(async ({ text, sliceMs }) => {
      const module = await /** @type {any} */ (window).createPpbEngine();
      const once = module.balance(text);
      const warm = module.balance(text);
      const session = new module.WorkSession('balance', text);
      while (!JSON.parse(session.step(sliceMs)).finished) { /* the next slice */ }
      const inSlices = session.result(false);
      session.delete();
      return { once, warm, inSlices };
    }, { text, sliceMs });
    for (const c of cases) {
      const got = await run(c.text, 1);
      assert.equal(resultOf(got.once), native.get(c.name), `${c.name}, cold`);
      assert.equal(resultOf(got.warm), native.get(c.name), `${c.name}, warm`);
      assert.equal(resultOf(got.inSlices), native.get(c.name), `${c.name}, in slices`);
    }
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 3 });
    for (const c of cases) {
      const got = await run(c.text, 1);
      assert.equal(resultOf(got.once), native.get(c.name), `${c.name}, throttled, cold`);
      assert.equal(resultOf(got.inSlices), native.get(c.name), `${c.name}, throttled, in slices`);
    }
  } finally {
    await context.close();
  }
});
