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
  assert.ok(megatron.result.exported.changes.some((/** @type {string} */ n) => /selective/.test(n)),
    JSON.stringify(megatron.result.exported.changes));
  // Every note, and the changes apart (the engine says each once).
  assert.deepEqual(await notes.locator('.export-note-list li').allTextContents(), engineNotes);
  // The written plan's own estimate and every change, beside the download: Megatron-LM cannot recompute some layers
  // selectively, so the plan written is another one, which must fit (the engine never writes a changed plan over
  // the limit).
  const exported = megatron.result.exported;
  assert.equal(exported.plan_kept, false);
  assert.equal(exported.feasible, true);
  assert.ok(exported.changes.length > 0);
  assert.equal(await notes.locator('.export-notes-title').getAttribute('data-plan-kept'), 'false');
  assert.match(await notes.locator('.export-notes-title').textContent() ?? '', /runs a different plan from the one shown/);
  assert.deepEqual(await notes.locator('.export-changes li').allTextContents(), exported.changes);
  const estimate = await notes.locator('.export-estimate').textContent() ?? '';
  assert.equal(estimate, `The written plan: step time ${num(exported.step_time_ms)} ms, largest peak ${num(exported.peak_mib)} MiB on stage ` +
    `${exported.peak_stage} against the 40,960 MiB limit: it fits.`);
  assert.ok(exported.peak_mib <= 40960);
  assert.equal(await notes.evaluate((node) => node.classList.contains('warn')), true);

  // MindFormers states recompute as the first N layers of each stage: the page shows whether that is the plan shown.
  await exportOf(page, 'mindformers');
  const mindformers = (await page.evaluate(() => /** @type {any} */ (window).__ppb.lastExport)).result;
  assert.deepEqual(await notes.locator('.export-note-list li').allTextContents(), mindformers.json.notes);
  assert.equal(await notes.locator('.export-notes-title').getAttribute('data-plan-kept'), String(mindformers.exported.plan_kept));
  assert.deepEqual(await notes.locator('.export-changes li').allTextContents(), mindformers.exported.changes);
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
  // torchtitan's settings name the same CSV: pp 8, 1F1B (one stage a rank), 32 micro batches.
  assert.match(await exportOf(page, 'torchtitan'), /-torchtitan\.toml$/);
  const titan = (await page.evaluate(() => /** @type {any} */ (window).__ppb.lastExport)).result;
  assert.equal(titan.json.csv, result.text);
  assert.match(titan.text, /^pipeline_parallel_degree = 8$/m);
  assert.match(titan.text, /^pipeline_parallel_schedule = "1F1B"$/m);
  assert.match(titan.text, /^num_pp_microbatches = 32$/m);
  assert.equal(await page.locator('#export-preview').textContent(), titan.text);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('an export the launcher cannot run within the limit is refused, and the page says why, writing nothing', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  // docs/interop.md's example: 8 decoders of 100 MiB static and 10 MiB activation, whose "offload" recompute keeps
  // 0 MiB; on pp 2, 4 micro batches, no reserved memory and a 405 MiB limit, PPB fits with offload (400 MiB a stage).
  const model = { format: 'ppb.model.v1', name: 'fit', layers: [{ name: 'decoder', count: 8, forward_ms: 1, backward_ms: 2, static_mib: 100,
    activation_mib: 10, recompute: { full: { activation_mib: 1, extra_ms: 1 }, selective: { activation_mib: 4, extra_ms: 0.75 },
      offload: { activation_mib: 0, extra_ms: 0.5 } } }] };
  await page.setInputFiles('input#model-file', { name: 'fit.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(model)) });
  await page.waitForFunction(() => /** @type {any} */ (window).__ppb.state.model?.name === 'fit');
  await setField(page, '#pp-degree', '2');
  await setField(page, '#micro-batch-num', '4');
  await setField(page, '#reserved', '0');
  await setField(page, '#memory-limit', '405');
  const plan = (await lastResponse(page)).result;
  assert.equal(plan.feasible, true);
  assert.ok((plan.layer_recompute.offload ?? []).length > 0, 'PPB recomputes with offload');
  // Megatron-LM has no offload; the nearest it runs is full recompute on every layer, whose stage 0 holds two
  // micro batches of 4 layers x 1 MiB: 400 + 8 = 408 MiB > 405 MiB. Nothing fits, so nothing is written.
  let downloaded = false;
  page.on('download', () => { downloaded = true; });
  await page.click('[data-export="megatron"]');
  const notes = page.locator('#export-notes');
  await notes.locator('[data-refused="true"]').waitFor();
  const response = await page.evaluate(() => /** @type {any} */ (window).__ppb.lastExport);
  assert.equal(response.ok, false);
  assert.equal(response.errors[0].code, 'EXPORT_PLAN_DOES_NOT_FIT');
  assert.equal(await notes.locator('.export-notes-title').textContent(), 'Megatron arguments: not written.');
  assert.deepEqual(await notes.locator('.export-refusal li').allTextContents(), response.errors.map((/** @type {any} */ e) => e.message));
  assert.equal(await notes.evaluate((node) => node.classList.contains('warn')), true);
  assert.equal(downloaded, false);
  assert.deepEqual(problems, []);
  await page.context().close();
});
