// Browser test of the PPB page: serves build/site, opens it in headless Chromium and checks the first
// end-to-end slice (example model -> estimate in the WASM worker -> per-stage table).
// Needs the built site (build/site with ppb_engine.js/.wasm) and /usr/bin/chromium.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../tools/serve.mjs';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const siteDir = join(repoRoot, 'build', 'site');
const PP_DEGREE = 4; // the page estimates the example with pp_degree 4, vpp_degree 1

/** @type {import('node:http').Server} */
let server;
/** @type {string} */
let siteUrl;
/** @type {import('playwright-core').Browser} */
let browser;

before(async () => {
  await access(join(siteDir, 'ppb_engine.js')).catch(() => {
    throw new Error(`${siteDir} has no ppb_engine.js: build the site (WASM build) first`);
  });
  ({ server, url: siteUrl } = await startServer(siteDir, { port: 0 }));
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
});

/**
 * Layers per stage of the contract's even split (interface.md, "Partition: none"): B body layers over V
 * virtual stages, floor(B / V) each, the B mod V extra ones on the first stages; pinned-first layers join
 * stage 0 and pinned-last layers stage V-1.
 * @param {{layers: {count?: number, pin?: string}[]}} model
 * @param {number} stages
 * @returns {number[]}
 */
function evenSplit(model, stages) {
  const count = (/** @type {string | undefined} */ pin) =>
    model.layers.filter((layer) => layer.pin === pin).reduce((sum, layer) => sum + (layer.count ?? 1), 0);
  const body = count(undefined);
  const split = Array.from({ length: stages }, (_, s) => Math.floor(body / stages) + (s < body % stages ? 1 : 0));
  split[0] += count('first');
  split[stages - 1] += count('last');
  return split;
}

test('the page estimates the example and shows one row per stage with the even split', async () => {
  const model = JSON.parse(await readFile(join(repoRoot, 'examples', 'dense-8l.json'), 'utf8'));
  const expectedLayers = evenSplit(model, PP_DEGREE);
  assert.deepEqual(expectedLayers, [3, 2, 2, 3]); // by hand: 8 body layers / 4 = 2, plus embedding and lm_head

  const page = await browser.newPage();
  /** @type {string[]} */
  const problems = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  try {
    await page.goto(siteUrl);
    await page.waitForSelector('body[data-state="ready"]', { timeout: 30_000 }).catch(async (error) => {
      const state = await page.evaluate(() => document.body.dataset.state);
      const alerts = await page.locator('[role="alert"]').allTextContents();
      throw new Error(`page state ${state}, alerts ${JSON.stringify(alerts)}, problems ${JSON.stringify(problems)}`,
        { cause: error });
    });

    const rows = page.locator('#stage-table tr[data-stage]');
    assert.equal(await rows.count(), PP_DEGREE);
    const shownLayers = await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.children[1].textContent)));
    assert.deepEqual(shownLayers, expectedLayers);
    assert.match(await page.locator('#step-time').innerText(), /^\d+(\.\d+)? ms$/);
    assert.equal(await page.locator('[role="alert"]').count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});
