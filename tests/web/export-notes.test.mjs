// Exports never change the plan silently: beside the download the page shows what the export does not carry over
// from the plan shown, in the engine's words, or that it states the whole plan; where the engine gives the written
// plan's own estimate (result.exported), that and every change; a refusal says why. The PyTorch schedule CSV is
// offered with the others.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, openPage, load, lastResponse, setField, cspViolations } from './helpers.mjs';
import { num } from '../../web/js/format.js';

/** @type {Awaited<ReturnType<typeof startSite>>} */
let site;

before(async () => {
  site = await startSite();
});

after(async () => {
  await site?.close();
});

/**
 * Clicks an export button and waits for its download.
 * @param {import('playwright-core').Page} page
 * @param {string} what
 */
async function exportOf(page, what) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(`[data-export="${what}"]`)]);
  return download.suggestedFilename();
}

test('a plan with selective recompute on some layers: the Megatron export says visibly what it does not carry over', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  // Llama-2 70B on pp 8 with 40 GiB: PPB fits it by recomputing some layers selectively, not all of them.
  await setField(page, '#memory-limit', '40960');
  const plan = (await lastResponse(page)).result;
  const selective = plan.layer_recompute.selective ?? [];
  assert.ok(selective.length > 0 && selective.length < 80, `selective recompute on ${selective.length} of 80 layers`);
  assert.match(await exportOf(page, 'megatron'), /megatron-args\.txt$/);
  const notes = page.locator('#export-notes');
  await notes.waitFor({ state: 'visible' });
  // Megatron-LM applies selective recompute to every layer or none (its --recompute-granularity selective), so a
  // plan that recomputes some layers cannot be written as it is: the engine says so and the page shows it.
  const megatron = (await page.evaluate(() => /** @type {any} */ (window).__ppb.lastExport));
  const engineNotes = megatron.result.json.notes;
  assert.ok(engineNotes.some((/** @type {string} */ n) => /selective/.test(n)), JSON.stringify(engineNotes));
  assert.deepEqual(await notes.locator('.export-note-list li').allTextContents(), engineNotes);
  const exported = megatron.result.exported;
  if (exported) {
    // The written plan's own estimate and every change, beside the download.
    assert.equal(await notes.locator('.export-notes-title').getAttribute('data-plan-kept'), String(exported.plan_kept));
    assert.deepEqual(await notes.locator('.export-changes li').allTextContents(), exported.changes);
    assert.equal(exported.plan_kept, exported.changes.length === 0);
    const estimate = await notes.locator('.export-estimate').textContent() ?? '';
    assert.ok(estimate.includes(`largest peak ${num(exported.peak_mib)} MiB on stage ${exported.peak_stage}`), estimate);
    assert.ok(estimate.includes(`step time ${num(exported.step_time_ms)} ms`), estimate);
    assert.match(estimate, exported.feasible ? /it fits\.$/ : /it does not fit\.$/);
  } else {
    assert.match(await notes.locator('.export-notes-title').textContent() ?? '', /does not run exactly the plan shown/);
  }
  assert.equal(await notes.evaluate((node) => node.classList.contains('warn')), true);

  // MindFormers states recompute as the first N layers of each stage, which is what PPB chose here.
  await exportOf(page, 'mindformers');
  const mindformers = (await page.evaluate(() => /** @type {any} */ (window).__ppb.lastExport)).result.json.notes;
  assert.deepEqual(await notes.locator('.export-note-list li').allTextContents(), mindformers);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('the PyTorch schedule CSV of the plan shown: one row per rank, the program the simulation ran', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  // The even split on 1f1b, pp 8, 32 micro batches (the default example's shape).
  await page.click('label:has(> input[name="partition"][value="even"])');
  await page.waitForFunction(() => document.body.dataset.state === 'ready');
  const plan = (await lastResponse(page)).result;
  assert.deepEqual([plan.schedule, plan.pp_degree, plan.micro_batch_num], ['1f1b', 8, 32]);
  assert.match(await exportOf(page, 'pytorch'), /-pytorch-schedule\.csv$/);
  const result = (await page.evaluate(() => /** @type {any} */ (window).__ppb.lastExport)).result;
  assert.equal(await page.locator('#export-preview').textContent(), result.text);
  // By hand (docs/interop.md): 1F1B runs on rank r the forward and the full backward of every micro batch of its
  // one stage r, so each row holds 32 "rF" and 32 "rB" actions, in the timeline's order.
  /** @type {string[]} */
  const rows = result.text.trim().split('\n');
  assert.equal(rows.length, 8);
  rows.forEach((row, r) => {
    const cells = row.split(',');
    assert.equal(cells.filter((cell) => cell.startsWith(`${r}F`)).length, 32, `rank ${r} forwards`);
    assert.equal(cells.filter((cell) => cell.startsWith(`${r}B`)).length, 32, `rank ${r} backwards`);
    const order = plan.timeline.filter((/** @type {any} */ op) => op.stage === r).sort((/** @type {any} */ a, /** @type {any} */ b) => a.start_ms - b.start_ms)
      .map((/** @type {any} */ op) => `${op.virtual_stage}${op.op}${op.micro_batch}`);
    assert.deepEqual(cells, order, `rank ${r} runs the simulated order`);
  });
  assert.match(await page.locator('#export-notes .export-notes-title').textContent() ?? '', /^PyTorch schedule CSV: downloaded/);
  assert.deepEqual(problems, []);
  await page.context().close();
});
