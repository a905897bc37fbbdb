// The transformer path: the Model panel's choice between a layer cost file and a transformer description (a radio
// group, by keyboard too, kept in the state and its links; older links open on the file inputs), and the presets of
// today's models (their sizes as the published configs and request files state them, their parameter counts as
// published).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sharedPage, load, waitForState, repoRoot, cspViolations, showTransformerForm, buildPreset } from './helpers.mjs';

const shared = sharedPage();

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

test('the DeepSeek-V3 and Llama-3.1-405B presets build their published parameter counts', async () => {
  const { page, problems } = shared.open;
  await buildPreset(page, 'DeepSeek-V3');
  // DeepSeek-V3's README: 671B parameters in the main model, the MTP module apart. By hand from its config.json
  // (tests/engine/transformer_architectures_test.cpp): 671,026,404,352, and the MTP module 11,610,067,968. Its
  // vocabulary, 129,280 = 1,010 x 128, needs no padding at tp 1.
  const meta = page.locator('#model-meta');
  assert.equal(await meta.getAttribute('data-total-params'), '671026404352');
  assert.equal(await meta.getAttribute('data-mtp-params'), '11610067968');
  assert.match(await meta.textContent() ?? '', /671,026,404,352 parameters \+ 11,610,067,968 in MTP modules/);
  await buildPreset(page, 'Llama-3.1-405B');
  // Meta's 405,853,388,800 (tests/engine/transformer_architectures_test.cpp), with the vocabulary padded as
  // Megatron-LM pads it at tp 8: 128,256 up to a multiple of 128 x 8, 129,024, adds 768 rows to the embedding and
  // the untied head, 2 x 768 x 16,384 = 25,165,824: 405,878,554,624.
  assert.equal(await meta.getAttribute('data-total-params'), String(405_853_388_800 + 2 * 768 * 16_384));
  assert.equal(await meta.getAttribute('data-mtp-params'), '');
  assert.match(await meta.textContent() ?? '', /405,878,554,624 parameters$/);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(problems, []);
});
