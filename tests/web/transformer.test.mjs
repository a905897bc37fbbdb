// The transformer path: the Model panel's choice between a layer cost file and a transformer description (a radio
// group, by keyboard too, kept in the state and its links; older links open on the file inputs), the presets of
// today's models (their sizes as the published configs and request files state them, their parameter counts as
// published), and the cluster a built model brings to the search: world size, tp, cp, ep and sharding reach the
// search request, and each candidate's dp follows world_size / (pp x tp x cp) under ep's constraint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sharedPage, load, waitForState, repoRoot, cspViolations, showTransformerForm, buildPreset, recordWorkerRequests, asTable,
  workerRequests, lastResponse } from './helpers.mjs';

const shared = sharedPage(async (page, url) => {
  await recordWorkerRequests(page);
  await load(page, url);
});

/** @param {string} name */
const requestFile = async (name) => JSON.parse(await readFile(join(repoRoot, 'examples', 'requests', name), 'utf8'));

/**
 * Which source the Model panel shows: the checked radio, and whether each part is visible.
 * @param {import('playwright-core').Page} page
 */
const shownSource = async (page) => ({
  checked: await page.locator('input[name="model_source"]:checked').getAttribute('value'),
  file: await page.locator('#model-file').isVisible(),
  form: await page.locator('#transformer-form').isVisible(),
  state: await page.evaluate(() => /** @type {any} */ (window).__ppb.state.ui.modelSource),
});

/**
 * The import request the form's values make, as the page sends it (the module's own function, run in the page).
 * @param {import('playwright-core').Page} page
 * @returns {Promise<any>}
 */
const formRequest = (page) => page.evaluate(async () => {
  const form = await import(new URL('js/transformer-form.js', location.href).href);
  const box = /** @type {HTMLElement} */ (document.getElementById('transformer-form'));
  return form.transformerRequest(form.transformerValues(box));
});

test('the Model panel switches between a file and a transformer, by keyboard too, and links keep the choice', async () => {
  const { page, problems } = shared.open;
  assert.deepEqual(await shownSource(page), { checked: 'file', file: true, form: false, state: 'file' });
  // A radio group: one tab stop, the arrows move the choice.
  await page.focus('input[name="model_source"][value="file"]');
  await page.keyboard.press('ArrowRight');
  assert.deepEqual(await shownSource(page), { checked: 'transformer', file: false, form: true, state: 'transformer' });
  // The form is whole, not folded: its Build button and last field are on screen without opening anything.
  assert.equal(await page.locator('#tf-build').isVisible(), true);
  assert.equal(await page.locator('#tf-device-compute_efficiency').isVisible(), true);
  // The address follows (a share link), and a reload opens on the form.
  await page.waitForFunction(() => location.hash.startsWith('#ppb1.'));
  await page.waitForTimeout(600);
  await page.reload();
  await waitForState(page);
  assert.deepEqual(await shownSource(page), { checked: 'transformer', file: false, form: true, state: 'transformer' });
  await page.focus('input[name="model_source"][value="transformer"]');
  await page.keyboard.press('ArrowLeft');
  assert.deepEqual(await shownSource(page), { checked: 'file', file: true, form: false, state: 'file' });
  assert.deepEqual(problems, []);
});

test('an older link without the choice opens on the file inputs, its distributed optimizer as sharding "optimizer"', async () => {
  const { page, problems } = shared.open;
  // A state as the page wrote it before: no ui.modelSource, and the form's "distributed optimizer" box ticked.
  const hash = await page.evaluate(async () => {
    const { encodeState } = await import(new URL('js/share.js', location.href).href);
    const state = structuredClone(/** @type {any} */ (window).__ppb.state);
    delete state.ui.modelSource;
    state.transformer = { '/transformer/name': 'old-form', '/transformer/num_layers': '4', '/training/distributed_optimizer': true };
    return encodeState(state);
  });
  await load(page, `${shared.site.url}${hash}`);
  assert.deepEqual(await shownSource(page), { checked: 'file', file: true, form: false, state: 'file' });
  assert.equal(await page.inputValue('#tf-transformer-name'), 'old-form');
  assert.equal(await page.inputValue('#tf-training-sharding'), 'optimizer');
  const kept = await page.evaluate(() => /** @type {any} */ (window).__ppb.state.transformer);
  assert.equal(kept['/training/sharding'], 'optimizer');
  assert.equal('/training/distributed_optimizer' in kept, false);
  assert.deepEqual(problems, []);
});

test('the presets of Llama-3.1-405B, DeepSeek-V3 and Qwen3-235B-A22B state what their example requests state', async () => {
  const { page, problems } = shared.open;
  await showTransformerForm(page);
  for (const [preset, file] of [['Llama-3.1-405B', 'llama31-405b.json'], ['DeepSeek-V3', 'deepseek-v3.json'], ['Qwen3-235B-A22B', 'qwen3-235b-a22b.json']]) {
    const expected = await requestFile(file);
    await page.selectOption('#tf-preset', preset);
    const request = await formRequest(page);
    // Every field the request file states, the preset states alike (the form sends a few defaults more: flash
    // attention, a box unticked). The file's bytes_per_param and recompute_options have no field in the form.
    for (const section of ['transformer', 'parallel', 'device']) {
      for (const [key, value] of Object.entries(expected[section])) assert.deepEqual(request[section][key], value, `${preset}: ${section}.${key}`);
    }
    for (const key of ['micro_batch_size', 'global_batch_size', 'precision', 'sharding', 'world_size']) {
      assert.deepEqual(request.training[key], expected.training[key], `${preset}: training.${key}`);
    }
    assert.equal(request.pipeline.pp_degree, expected.pipeline.pp_degree, `${preset}: pipeline.pp_degree`);
  }
  // The others of today's models, and the old ones, are offered too.
  const offered = await page.locator('#tf-preset option').evaluateAll((options) => options.map((o) => /** @type {HTMLOptionElement} */ (o).value));
  for (const name of ['Llama-3.1-8B', 'Llama-3.1-70B', 'Mixtral-8x7B', 'Llama-2 7B', 'Llama-2 70B', 'GPT-3 175B']) assert.ok(offered.includes(name), name);
  assert.deepEqual(problems, []);
});

test('the DeepSeek-V3 preset builds the 671B model and its cluster: the search sees ep 64 and sharding', async () => {
  const { page, problems } = shared.open;
  await buildPreset(page, 'DeepSeek-V3');
  // DeepSeek-V3's README: 671B parameters in the main model, the MTP module apart. By hand from its config.json
  // (tests/engine/transformer_architectures_test.cpp): 671,026,404,352, and the MTP module 11,610,067,968. Its
  // vocabulary, 129,280 = 1,010 x 128, needs no padding at tp 1.
  const meta = page.locator('#model-meta');
  assert.equal(await meta.getAttribute('data-total-params'), '671026404352');
  assert.equal(await meta.getAttribute('data-mtp-params'), '11610067968');
  assert.match(await meta.textContent() ?? '', /671,026,404,352 parameters \+ 11,610,067,968 in MTP modules/);
  // The report's run: 2,048 H800, PP 16, EP 64, no TP; the global batch 15,360; ZeRO-1.
  assert.deepEqual({
    world: await page.inputValue('#search-world'), gbs: await page.inputValue('#search-gbs'), mbs: await page.inputValue('#search-mbs'),
    tp: await page.inputValue('#search-tp'), cp: await page.inputValue('#search-cp'), ep: await page.inputValue('#search-ep'),
    sharding: await page.inputValue('#search-sharding'), pp: await page.inputValue('#pp-degree'), device: await page.inputValue('#device-preset'),
  }, { world: '2048', gbs: '15360', mbs: '1', tp: '1', cp: '1', ep: '64', sharding: 'optimizer', pp: '16', device: 'h800' });
  // dp = 2,048 / (16 x 1 x 1) = 128, a multiple of ep 64; 15,360 / (1 x 128) = 120 micro batches.
  await page.locator('#search-cluster-hint').filter({ hasText: /ep 64.*at pp 16: dp 128, 120 micro batches of 1/ }).waitFor();
  // The H800's memory comes from the preset: the Device panel's figure is left to it, and the engine fills 80 GiB.
  assert.equal(await page.inputValue('#memory-limit'), '');
  assert.equal((await lastResponse(page)).result.stages[0].memory.limit_mib, 80 * 1024);
  // The search over pp 8, 16 and 64: pp 64 leaves dp = 2,048 / 64 = 32 ranks a stage, which ep 64 does not divide:
  // skipped, as Megatron-LM cannot place those experts.
  await page.fill('#search-pp', '8, 16, 64');
  for (const box of await page.locator('#search-schedules input').all()) await box.setChecked(await box.getAttribute('value') === '1f1b');
  await page.click('#search-run');
  await waitForState(page, ['ready'], 120_000);
  await page.locator('#search-table tbody tr').first().waitFor();
  const request = (await workerRequests(page, 'search')).at(-1);
  assert.deepEqual(request.training, { world_size: 2048, global_batch_size: 15360, micro_batch_size: 1, tp_degree: 1, cp_degree: 1,
    ep_degree: 64, sharding: 'optimizer', precision: 'fp8' });
  assert.equal(request.device.preset, 'h800');
  const result = await page.evaluate(() => /** @type {any} */ (window).__ppb.search);
  // Each candidate's dp is the cluster's: 2,048 / (pp x 1 x 1).
  const shapes = result.candidates.map((/** @type {any} */ c) => [c.pp_degree, c.dp_degree]);
  assert.deepEqual(shapes.sort((/** @type {number[]} */ a, /** @type {number[]} */ b) => a[0] - b[0]), [[8, 256], [16, 128]]);
  assert.deepEqual(result.skipped_groups, [{ reason: 'dp_degree is not divisible by ep_degree', count: 1 }]);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(problems, []);
});

test('the Llama-3.1-405B preset builds 405.85B parameters on TP 8, PP 16 and 16,384 H100, with MFU', async () => {
  const { page, problems } = shared.open;
  await buildPreset(page, 'Llama-3.1-405B');
  // Meta's 405,853,388,800 (tests/engine/transformer_architectures_test.cpp), with the vocabulary padded as
  // Megatron-LM pads it at tp 8: 128,256 up to a multiple of 128 x 8, 129,024, adds 768 rows to the embedding and
  // the untied head, 2 x 768 x 16,384 = 25,165,824: 405,878,554,624.
  assert.equal(await page.locator('#model-meta').getAttribute('data-total-params'), String(405_853_388_800 + 2 * 768 * 16_384));
  assert.equal(await page.locator('#model-meta').getAttribute('data-mtp-params'), '');
  assert.match(await page.locator('#model-meta').textContent() ?? '', /405,878,554,624 parameters$/);
  // 16,384 / (16 x 8 x 1) = dp 128; 2,048 / (1 x 128) = 16 micro batches; the plan runs the same batch.
  await page.locator('#search-cluster-hint').filter({ hasText: /at pp 16: dp 128, 16 micro batches of 1/ }).waitFor();
  assert.deepEqual({ mode: await page.locator('input[name="batch_mode"]:checked').getAttribute('value'), dp: await page.inputValue('#dp-degree'),
    gbs: await page.inputValue('#global-batch-size') }, { mode: 'global', dp: '128', gbs: '2048' });
  const result = (await lastResponse(page)).result;
  assert.equal(result.micro_batch_num, 16);
  // MFU as Narayanan et al. 2021 (Section 5.1) define it: 3 x the forward FLOPs a device runs per micro batch
  // (forward once, backward twice) x 16 micro batches over pp 16 devices at the H100's 989.4 dense bf16 TFLOP/s
  // (NVIDIA's datasheet: 1,979 with sparsity) for one step. Tokens per second per device: a micro batch is
  // 1 x 8,192 tokens over tp 8 x cp 1 devices, 1,024 each, 16 of them a step over the 16 stages' devices.
  const model = await page.evaluate(() => /** @type {any} */ (window).__ppb.state.model);
  const flops = model.layers.reduce((/** @type {number} */ sum, /** @type {any} */ l) => sum + l.flops * (l.count ?? 1), 0);
  const seconds = result.step_time_ms / 1000;
  const mfu = Number(await page.locator('[data-field="mfu"] .metric-value').getAttribute('data-value'));
  assert.ok(Math.abs(mfu - (3 * flops * 16) / (16 * 989.4e12 * seconds)) < 1e-9, `MFU ${mfu}`);
  assert.match(await page.locator('[data-field="mfu"] .metric-value').textContent() ?? '', /^\d+\.\d %$/);
  const tokens = Number(await page.locator('[data-field="mfu"] [data-field="tokens_per_s_per_device"]').getAttribute('data-value'));
  assert.ok(Math.abs(tokens - (1024 * 16) / (16 * seconds)) < 1e-6 * tokens, `tokens/s per device ${tokens}`);
  // What the estimate leaves out, under the summary: the engine's sentences, their numbers as the tables write them.
  assert.ok(result.caveats.length > 0);
  assert.deepEqual(await page.locator('#plan-caveats li').allTextContents(), result.caveats.map(asTable));
  assert.deepEqual(problems, []);
});

test('the pickers offer the engine\'s device presets, which it accepts, and the Device panel leaves their figures to it', async () => {
  const { page, problems } = shared.open;
  const ids = await page.locator('#device-preset option').evaluateAll((options) => options.map((o) => /** @type {HTMLOptionElement} */ (o).value));
  // The seven parts of docs/devices.md, in the engine's order, named as the engine names them (the B200 as HGX B200).
  assert.deepEqual(ids, ['', 'h100_sxm', 'h200', 'h800', 'b200', 'a100_80gb', 'mi300x', 'ascend_910b']);
  assert.equal(await page.locator('#device-preset option[value="b200"]').textContent(), 'b200 · NVIDIA B200 180 GB (HGX B200)');
  // The transformer form's picker offers the same.
  const formIds = await page.locator('#tf-device-preset option').evaluateAll((options) => options.map((o) => /** @type {HTMLOptionElement} */ (o).value));
  assert.deepEqual(formIds, ids);
  await page.fill('#memory-limit', '');
  for (const id of ids.slice(1)) {
    await page.selectOption('#device-preset', id);
    await waitForState(page);
    const response = await lastResponse(page);
    assert.equal(response.ok, true, id);
    assert.equal((await workerRequests(page, 'balance')).at(-1).device.preset, id);
    assert.ok(response.result.stages[0].memory.limit_mib > 0, `${id} gives a memory limit`);
  }
  assert.equal(await page.getAttribute('#memory-limit', 'placeholder'), 'the preset\'s');
  assert.equal(await page.locator('[role="alert"]').count(), 0);
  assert.deepEqual(problems, []);
});
