// A Hugging Face config.json dropped on the page, picked as a file or pasted (the Model panel's third way in): the
// engine's import turns it into a
// transformer description, which fills the transformer form (shown); description fields the form has no input for
// are kept beside it and named under it; the form then builds the model with its own parallelism and device. The
// configs are the published ones of tests/fixtures/hf/ (README.md there names each source).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sharedPage, waitForState, upload, repoRoot, cspViolations } from './helpers.mjs';

const shared = sharedPage();

/** @param {string} file */
const fixture = (file) => readFile(join(repoRoot, 'tests', 'fixtures', 'hf', file), 'utf8');

/**
 * The transformer form's inputs, by description path: text as typed, checkboxes as booleans.
 * @param {import('playwright-core').Page} page
 * @returns {Promise<Record<string, string | boolean>>}
 */
const formValues = (page) => page.evaluate(() => Object.fromEntries([...document.querySelectorAll('#transformer-form [data-path]')]
  .map((node) => {
    const input = /** @type {HTMLInputElement} */ (node);
    return [input.dataset.path ?? '', input.type === 'checkbox' ? input.checked : input.value];
  })));

test('a dropped Llama config.json fills the transformer form and builds its model', async () => {
  const { page } = shared.open;
  const text = await fixture('llama-3.1-8b.json');
  await page.evaluate((content) => {
    const data = new DataTransfer();
    data.items.add(new File([content], 'config.json', { type: 'application/json' }));
    window.dispatchEvent(new DragEvent('dragenter', { dataTransfer: data, cancelable: true }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: data, cancelable: true }));
  }, text);
  await waitForState(page);
  // The Model panel shows the form the config filled, with the transformer chosen as the source.
  assert.equal(await page.locator('input[name="model_source"][value="transformer"]').isChecked(), true);
  assert.equal(await page.locator('#transformer-form').isVisible(), true);
  const form = await formValues(page);
  // The sizes of the published file; the name is its model_type ("config.json" names nothing); the sequence length
  // is the form's own (the Llama-2 7B preset's 4096), the length trained at; RMSNorm and a gated MLP, no dropout,
  // untied embeddings as the file says, and no MoE.
  assert.deepEqual(
    Object.fromEntries(Object.entries(form).filter(([path]) => path.startsWith('/transformer/') || path === 'extra')), {
      '/transformer/name': 'llama', '/transformer/num_layers': '32', '/transformer/hidden_size': '4096',
      '/transformer/num_attention_heads': '32', '/transformer/num_query_groups': '8', '/transformer/ffn_hidden_size': '14336',
      '/transformer/vocab_size': '128256', '/transformer/seq_length': '4096', '/transformer/normalization': 'rmsnorm',
      '/transformer/attention': 'flash',
      '/transformer/gated_mlp': true, '/transformer/dropout': false, '/transformer/tied_embeddings': false,
      '/transformer/moe/num_experts': '0', '/transformer/moe/top_k': '', '/transformer/moe/expert_ffn_hidden_size': '',
      '/transformer/moe/first_dense_layers': '', '/transformer/moe/shared_experts': '', extra: '',
    });
  // The form's parallelism stays (the preset's tp 2), and the model is the generator's: embedding, 32 decoders, head.
  assert.equal(form['/parallel/tp_degree'], '2');
  const model = await page.evaluate(() => /** @type {any} */ (window).__ppb.state.model);
  assert.equal(model.name, 'llama');
  assert.deepEqual(model.layers.map((/** @type {any} */ l) => [l.name, l.count ?? 1]),
    [['embedding', 1], ['decoder', 32], ['final_norm_lm_head', 1]]);
  assert.match(await page.locator('#model-name').textContent() ?? '', /config\.json/);
  assert.equal(await page.locator('#tf-extra-note').isVisible(), false);
  assert.equal(await page.locator('[role="alert"]').count(), 0);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(shared.open.problems, []);
});

test('a Gemma 2 config.json keeps what the form has no field for and shows the import notes', async () => {
  const { page } = shared.open;
  await upload(page, 'gemma-2-9b.json', await fixture('gemma-2-9b.json'));
  const form = await formValues(page);
  assert.equal(form['/transformer/name'], 'gemma-2-9b');  // named for the file
  assert.equal(form['/transformer/num_layers'], '42');
  assert.equal(form['/transformer/tied_embeddings'], true);  // Gemma2Config's default: the file does not say
  // head_dim (256, not 3584 / 16) and the four norms a layer have no input: kept as JSON and named under the form.
  assert.deepEqual(JSON.parse(String(form.extra)), { head_dim: 256, norms_per_layer: 4 });
  assert.equal(await page.locator('#tf-extra-note').isVisible(), true);
  assert.match(await page.locator('#tf-extra-note').textContent() ?? '', /head_dim 256, norms_per_layer 4/);
  // The soft caps the description leaves out are named in the import notes.
  const notes = page.locator('#model-panel .import-warnings');
  assert.equal(await notes.count(), 1);
  assert.match(await notes.textContent() ?? '', /attn_logit_softcapping 50/);
  assert.equal((await page.evaluate(() => /** @type {any} */ (window).__ppb.state.model)).name, 'gemma-2-9b');
  // A preset clears what the imported description kept.
  await page.selectOption('#tf-preset', 'Llama-2 7B');
  assert.equal((await formValues(page)).extra, '');
  assert.equal(await page.locator('#tf-extra-note').isVisible(), false);
  assert.deepEqual(shared.open.problems, []);
});

test('the Model panel offers three equal ways in, and a pasted config.json gives the model the same file dropped gives', async () => {
  const { page } = shared.open;
  // Three choices of one segmented control, side by side and of one width (none a link or folded away).
  const choices = page.locator('#model-source label');
  assert.deepEqual(await choices.allTextContents().then((texts) => texts.map((x) => x.trim())), ['File', 'Describe', 'Paste config']);
  const boxes = await choices.evaluateAll((labels) => labels.map((l) => l.getBoundingClientRect().toJSON()));
  assert.equal(new Set(boxes.map((b) => Math.round(b.top))).size, 1);
  assert.ok(Math.max(...boxes.map((b) => b.width)) - Math.min(...boxes.map((b) => b.width)) <= 1, `equal widths: ${boxes.map((b) => b.width)}`);
  // Each shows its own part of the panel, whole.
  await page.click('label:has(> input[name="model_source"][value="paste"])');
  assert.equal(await page.locator('#model-paste').isVisible(), true);
  assert.equal(await page.locator('#paste-button').isVisible(), true);
  assert.equal(await page.locator('#model-file').isVisible(), false);
  assert.equal(await page.locator('#transformer-form').isVisible(), false);
  assert.equal(await page.evaluate(() => /** @type {any} */ (window).__ppb.state.ui.modelSource), 'paste');

  // The same published config, dropped and then pasted: the same description in the form and the same model.
  const text = await fixture('llama-3.1-8b.json');
  await page.evaluate((content) => {
    const data = new DataTransfer();
    data.items.add(new File([content], 'config.json', { type: 'application/json' }));
    window.dispatchEvent(new DragEvent('dragenter', { dataTransfer: data, cancelable: true }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: data, cancelable: true }));
  }, text);
  await waitForState(page);
  const dropped = { form: await formValues(page), model: await page.evaluate(() => /** @type {any} */ (window).__ppb.state.model) };
  // Another model in between, so the paste has something to replace.
  await page.click('label:has(> input[name="model_source"][value="file"])');
  await page.selectOption('#example-select', 'dense-8l.json');
  await waitForState(page);
  assert.notDeepEqual(await page.evaluate(() => /** @type {any} */ (window).__ppb.state.model), dropped.model);
  // By keyboard: the choice is one radio group (one tab stop, the arrows move it).
  await page.focus('input[name="model_source"][value="file"]');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.locator('#model-paste').isVisible(), true);
  await page.fill('#model-paste', text);
  await page.click('#paste-button');
  await waitForState(page);
  // The config's description fills the form, shown, as a dropped one does.
  assert.equal(await page.locator('input[name="model_source"][value="transformer"]').isChecked(), true);
  assert.deepEqual(await formValues(page), dropped.form);
  assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__ppb.state.model), dropped.model);
  assert.equal(dropped.model.layers.length, 3);
  assert.equal(await page.locator('[role="alert"]').count(), 0);
  // Nothing pasted: said beside the box, nothing else changes.
  await page.click('label:has(> input[name="model_source"][value="paste"])');
  await page.fill('#model-paste', '');
  await page.click('#paste-button');
  await page.locator('#model-source-paste [role="alert"]').waitFor();
  assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__ppb.state.model), dropped.model);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(shared.open.problems, []);
});
