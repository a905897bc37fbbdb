// Long engine work is visible and interruptible: a balance that runs for seconds shows a progress line with a
// Cancel button; Cancel stops it and keeps the previous result, marked; a new input cancels the call in flight
// rather than waiting for it; the views are marked out of date at once. A model crosses to the worker once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startSite, openPage, load, lastResponse, waitForState, upload, cspViolations, examplesDir } from './helpers.mjs';
import { workloads } from '../../bench/workloads.mjs';
import { largeRequest } from '../../bench/page-budgets.mjs';

/** @type {Awaited<ReturnType<typeof startSite>>} */
let site;

before(async () => {
  site = await startSite();
});

after(async () => {
  await site?.close();
});

/**
 * A balance that runs for seconds: bench/workloads.mjs's 1000 decoders over 64 stages, whose search stops at its
 * node budget, not at a proof (about 1.6 s in node on its first call; more in a page under test load).
 * @returns {{model: any, device: any, pipeline: any}}
 */
function longBalance() {
  const w = workloads().find((x) => x.name === 'balance 1000 layers pp 64');
  if (!w) throw new Error('bench/workloads.mjs has no "balance 1000 layers pp 64"');
  const { model, device, pipeline } = /** @type {any} */ (w.request);
  return { model, device, pipeline };
}

test('a long balance shows its progress and can be cancelled; the previous result stays, marked', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  // The request sets pp 64 and 256 micro batches; PPB (the default partition) balances it.
  await page.setInputFiles('input#model-file', { name: 'long.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(longBalance())) });
  const line = page.locator('#work .work-line[data-work="balance"]');
  await line.waitFor({ state: 'visible', timeout: 20_000 });
  assert.match(await line.textContent() ?? '', /Balancing \(PPB\)/);
  // What is on screen when Cancel is pressed, read in the same task as the click: the previous plan, marked out of
  // date, or (on a slow machine) the balance's best plan so far, already drawn as the answer to these inputs.
  const atCancel = await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    const shown = { stageLayers: w.__ppb.last.result.stage_layers, interim: w.__ppb.interim,
      stale: document.getElementById('results')?.dataset.stale };
    /** @type {HTMLButtonElement} */ (document.querySelector('#work .work-line[data-work="balance"] button[data-cancel]')).click();
    return shown;
  });
  assert.equal(atCancel.stale, atCancel.interim ? 'false' : 'true');
  await waitForState(page, ['ready'], 10_000);
  assert.equal(await page.locator('#work').isHidden(), true);
  // That plan stays on screen, marked, with a way to compute again.
  assert.deepEqual((await lastResponse(page)).result.stage_layers, atCancel.stageLayers);
  assert.equal(await page.getAttribute('#results', 'data-stale'), 'true');
  const banner = page.locator('[data-banner="stopped"]');
  assert.match(await banner.textContent() ?? '', /Stopped/);
  // The engine still answers: a small change computes a plan of the new model.
  await page.fill('#pp-degree', '4');
  await waitForState(page, ['ready'], 30_000);
  const after = (await lastResponse(page)).result;
  assert.equal(after.pp_degree, 4);
  assert.equal(after.stage_layers.reduce((/** @type {number} */ a, /** @type {number} */ b) => a + b, 0), 1002);
  assert.equal(await page.getAttribute('#results', 'data-stale'), 'false');
  assert.equal(await banner.count(), 0);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('the worker warms the engine up after loading, and the page answers while it does', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  // A change at once, while the warm-up may still run: its plan comes as usual.
  await page.fill('#pp-degree', '4');
  await waitForState(page, ['ready'], 30_000);
  assert.equal((await lastResponse(page)).result.pp_degree, 4);
  const ms = await (await page.waitForFunction(() => /** @type {any} */ (window).__ppb.warmUpMs, null, { timeout: 60_000 })).jsonValue();
  assert.ok(typeof ms === 'number' && ms > 0, `warm-up ${ms} ms`);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a balance that runs a while draws its best plan so far at once, marked as still balancing, then its final plan', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  // 10,000 decoders on pp 8: the balance runs to its 2 s budget without a proof (docs/benchmarks.md), so its best
  // plan so far comes long before its answer.
  const body = 10_000;
  await page.evaluate((n) => {
    const w = /** @type {any} */ (window);
    w.__seen = [];
    // Every frame, what the page shows for this model: its best plan so far or the final plan, with the plan's line.
    const watch = () => {
      const result = w.__ppb.last?.result;
      if (result && result.stage_layers.reduce((/** @type {number} */ a, /** @type {number} */ b) => a + b, 0) === n) {
        const kind = w.__ppb.interim ? 'interim' : 'final';
        if (w.__seen.at(-1)?.kind !== kind) {
          w.__seen.push({ kind, note: document.getElementById('offset-note')?.textContent ?? '',
            state: document.body.dataset.state, stale: document.getElementById('results')?.dataset.stale,
            notes: result.method.notes, proven: result.method.proven_optimal });
        }
        if (!w.__ppb.interim) return;
      }
      requestAnimationFrame(watch);
    };
    requestAnimationFrame(watch);
  }, body + 2);
  await upload(page, 'large.json', JSON.stringify(largeRequest(body, 40_960)), ['ready']);
  await page.waitForFunction(() => /** @type {any} */ (window).__seen.at(-1)?.kind === 'final', null, { timeout: 30_000 });
  const seen = await page.evaluate(() => /** @type {any} */ (window).__seen);
  assert.equal(seen[0].kind, 'interim', JSON.stringify(seen));
  // Shown as the answer to these inputs (not dimmed), while the page is still busy balancing.
  assert.equal(seen[0].state, 'busy');
  assert.equal(seen[0].stale, 'false');
  assert.match(seen[0].note, /best plan so far, still balancing/);
  assert.equal(seen[0].proven, false);
  assert.equal(seen[0].notes.at(-1), 'the balance is still running; this is the best plan so far');
  const last = seen.at(-1);
  assert.equal(last.kind, 'final');
  assert.doesNotMatch(last.note, /still balancing/);
  assert.ok(!last.notes.includes('the balance is still running; this is the best plan so far'));
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a new input cancels the long call in flight instead of waiting for it', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  const long = longBalance();
  // The even split first (quick), then PPB over the long request.
  await page.click('label:has(> input[name="partition"][value="even"])');
  await waitForState(page);
  await upload(page, 'long.json', JSON.stringify(long));
  await page.click('label:has(> input[name="partition"][value="ppb"])');
  const line = page.locator('#work .work-line[data-work="balance"]');
  await line.waitFor({ state: 'visible', timeout: 20_000 });
  const started = Date.now();
  // A new input while it runs: back to the even split, which needs no balance.
  await page.click('label:has(> input[name="partition"][value="even"])');
  await waitForState(page, ['ready'], 30_000);
  const waited = Date.now() - started;
  const shown = await lastResponse(page);
  assert.equal(shown.command, 'estimate');
  assert.equal(shown.result.pp_degree, 64);
  assert.equal(await page.getAttribute('#results', 'data-stale'), 'false');
  // Not a timing test: the proof that the balance was not waited for is that its answer never arrived, which the
  // worker client says by having cancelled it.
  const cancelled = await page.evaluate(() => /** @type {any} */ (window).__ppb.cancelledCalls);
  assert.ok(cancelled >= 1, `calls cancelled: ${cancelled} (the even split came after ${waited} ms)`);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a model crosses to the worker once: later plans, a search, an export and the engine\'s refusal of a model send no model again', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  const sent = () => page.evaluate(() => /** @type {any} */ (window).__ppb.modelsSent);
  const dense = await readFile(join(examplesDir, 'dense-8l.json'), 'utf8');
  const before = await sent();
  await upload(page, 'dense-8l.json', dense);
  assert.equal(await sent(), before + 1, 'the uploaded model is sent once');
  // The file's bytes went to the engine as they arrived and were adopted as the model: none left pending.
  assert.equal(await page.evaluate(() => /** @type {any} */ (window).__ppb.offersPending), 0);
  await page.fill('#pp-degree', '4');
  await waitForState(page);
  await page.fill('#memory-limit', '9000');
  await waitForState(page);
  await page.click('label:has(> input[name="partition"][value="even"])');
  await waitForState(page);
  await Promise.all([page.waitForEvent('download'), page.click('[data-export="megatron"]')]);
  await page.fill('#search-world', '');
  await page.fill('#search-pp', '2, 4');
  await page.click('#search-run');
  await waitForState(page, ['ready'], 60_000);
  assert.equal(await sent(), before + 1, 'plans, an export and a search refer to the kept model');
  // A model document is read by the engine with its first plan (no separate import); one the engine refuses is
  // taken back and the model before it stays, still kept by the worker.
  const shown = await lastResponse(page);
  await upload(page, 'bad.json', JSON.stringify({ format: 'ppb.model.v1', name: 'bad', layers: [{ name: 'l', count: 4, forward_ms: -1 }] }), ['error']);
  assert.match(await page.locator('#drop-target [role="alert"]').first().textContent() ?? '', /bad\.json: .*forward_ms/);
  assert.equal(await page.locator('#model-name').textContent(), 'dense 8-layer example');
  assert.deepEqual(await lastResponse(page), shown);
  await page.fill('#pp-degree', '2');
  await waitForState(page, ['ready', 'error']);
  assert.equal((await lastResponse(page)).result.pp_degree, 2);
  assert.equal(await sent(), before + 2, 'the refused model was sent once, the kept one not again');
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a dropped file over the engine\'s cap on layers shows it is being read, then is refused beside the file input', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  const before = await page.evaluate(() => ({ model: /** @type {any} */ (window).__ppb.state.model, sent: /** @type {any} */ (window).__ppb.modelsSent }));
  // 100,000 decoders and the pinned embedding and head: 100,002 entries, two over the engine's cap (limits::max_layers).
  const text = JSON.stringify(largeRequest(100_000, null));
  await page.evaluate((content) => { /** @type {any} */ (window).__file = new File([content], 'too-large.json', { type: 'application/json' }); }, text);
  // What the page shows, in order: the reading line, then the refusal.
  await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    w.__order = [];
    const observer = new MutationObserver(() => {
      const seen = (/** @type {string} */ what) => w.__order.includes(what);
      const line = document.querySelector('#work .work-line[data-work="read"]');
      if (line && !seen('reading')) w.__order.push('reading', line.textContent);
      if (document.querySelector('#drop-target [role="alert"]') && !seen('refused')) w.__order.push('refused');
    });
    observer.observe(document.body, { childList: true, subtree: true });
    const data = new DataTransfer();
    data.items.add(w.__file);
    window.dispatchEvent(new DragEvent('dragenter', { dataTransfer: data, cancelable: true }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: data, cancelable: true }));
  });
  const alert = page.locator('#drop-target [role="alert"]');
  await alert.waitFor({ timeout: 30_000 });
  await waitForState(page, ['error']);
  const order = await page.evaluate(() => /** @type {any} */ (window).__order);
  assert.deepEqual([order[0], order[2]], ['reading', 'refused']);
  assert.match(order[1], /^Reading too-large\.json \(15\.\d+ MiB\)…/);
  // The engine's code and path, and its cap in the sentence.
  assert.equal(await alert.getAttribute('data-code'), 'LAYER_LIMIT');
  assert.equal(await alert.getAttribute('data-error-path'), '/model/layers');
  assert.match(await alert.textContent() ?? '', /too-large\.json: the model has 100,002 entries, above the cap of 100,000\./);
  // Refused by the page's own check: the model in place stays, current, and is the only one kept; the file's bytes,
  // which went to the engine as they arrived, are dropped, not kept as a model.
  const after = await page.evaluate(() => ({ model: /** @type {any} */ (window).__ppb.state.model, sent: /** @type {any} */ (window).__ppb.modelsSent }));
  assert.deepEqual(after, before);
  assert.equal(await page.evaluate(() => /** @type {any} */ (window).__ppb.offersPending), 0);
  assert.equal(await page.locator('#results').getAttribute('data-stale'), 'false');
  assert.equal(await page.locator('#work .work-line').count(), 0);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(problems, []);
  await page.context().close();
});
