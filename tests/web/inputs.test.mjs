// Inputs: every example file uploads (the SAPP file is imported), a broken file shows its error beside the file input
// while the last result stays current, an invalid offset its error beside the field while the last result stays
// (marked stale), the transformer form and pasted JSON
// make models, a request file sets the controls, dragging a boundary re-partitions live, and the exports download.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sharedPage, lastResponse, waitForState, upload, setField, choose, examplesDir, cspViolations, showTransformerForm } from './helpers.mjs';

const shared = sharedPage();

/**
 * Layers of a ppb.model.v1 document, expanded.
 * @param {any} model
 */
const layerCount = (model) => model.layers.reduce((/** @type {number} */ a, /** @type {any} */ l) => a + (l.count ?? 1), 0);

test('each example file uploads and is planned; the SAPP file is imported', async () => {
  const { page } = shared.open;
  const files = (await readdir(examplesDir)).filter((f) => f.endsWith('.json')).sort();
  assert.ok(files.length >= 5);
  const offered = await page.locator('#example-select option').evaluateAll((options) => options.map((o) => /** @type {HTMLOptionElement} */ (o).value).filter(Boolean));
  assert.deepEqual([...offered].sort(), files, 'the example picker (web/js/model-input.js EXAMPLES) lists every file in examples/');
  for (const file of files) {
    const text = await readFile(join(examplesDir, file), 'utf8');
    await upload(page, file, text);
    const response = await lastResponse(page);
    assert.equal(response.ok, true, file);
    const doc = JSON.parse(text);
    const model = await page.evaluate(() => /** @type {any} */ (window).__ppb.state.model);
    if (doc.layers_description) {
      assert.equal(model.format, 'ppb.model.v1', `${file} imported`);
      assert.match(await page.locator('#model-name').textContent() ?? '', /SAPP/);
      const body = doc.layers_description.filter((/** @type {any} */ l) => l.type === 'BODY').reduce((/** @type {number} */ a, /** @type {any} */ l) => a + l.nb_layer, 0);
      assert.equal(layerCount(model), body + 2, `${file}: HEAD + BODY + TAIL`);
    } else {
      assert.deepEqual(model, doc, `${file} used as given`);
    }
    const stageLayers = response.result.stage_layers.reduce((/** @type {number} */ a, /** @type {number} */ b) => a + b, 0);
    assert.equal(stageLayers, layerCount(model), `${file}: every layer on a stage`);
    assert.equal(await page.locator('svg#stage-loads g.stage[data-stage]').count(), response.result.stages.length, file);
    assert.equal(await page.locator('svg#timeline rect[data-op]').count(), response.result.timeline.length, file);
    assert.equal(await page.locator('[role="alert"]').count(), 0, file);
  }
  assert.deepEqual(shared.open.problems, []);
});

test('the example picker and a file dropped on the page load models', async () => {
  const { page } = shared.open;
  await page.selectOption('#example-select', 'moe-16x.json');
  await waitForState(page);
  const moe = JSON.parse(await readFile(join(examplesDir, 'moe-16x.json'), 'utf8'));
  assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__ppb.state.model), moe);
  const dense = await readFile(join(examplesDir, 'dense-8l.json'), 'utf8');
  await page.evaluate((text) => {
    const data = new DataTransfer();
    data.items.add(new File([text], 'dropped.json', { type: 'application/json' }));
    window.dispatchEvent(new DragEvent('dragenter', { dataTransfer: data, cancelable: true }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: data, cancelable: true }));
  }, dense);
  await waitForState(page);
  assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__ppb.state.model), JSON.parse(dense));
  assert.equal(await page.locator('#drop-overlay').isVisible(), false);
});

test('a broken file shows its error beside the file input and keeps the last result, current', async () => {
  const { page } = shared.open;
  // An example in place: the menu names it, and goes on naming it while files fail.
  await page.selectOption('#example-select', 'dense-8l.json');
  await waitForState(page);
  const before = await lastResponse(page);
  /** Nothing says the results are out of date: they are still the plan of the model in place. */
  const current = async () => {
    assert.equal(await page.locator('#results').getAttribute('data-stale'), 'false');
    assert.equal(await page.locator('.banner[data-banner="stale"]').count(), 0, 'no banner about fields');
    assert.equal(await page.inputValue('#example-select'), 'dense-8l.json');
    assert.deepEqual(await lastResponse(page), before);
  };
  await upload(page, 'broken.json', '{"format": "ppb.model.v1", "layers": [', ['error']);
  const alert = page.locator('#drop-target [role="alert"]');
  assert.equal(await alert.count(), 1);
  assert.match(await alert.textContent() ?? '', /broken\.json is not valid JSON/);
  await current();
  assert.equal(await page.locator('svg#stage-loads g.stage[data-stage]').count(), before.result.stages.length);

  // A model the engine rejects (read with its first plan, then taken back): the error names the field inside the file.
  const bad = { format: 'ppb.model.v1', name: 'bad', layers: [{ name: 'l', count: 4, forward_ms: -1 }] };
  await upload(page, 'bad.json', JSON.stringify(bad), ['error']);
  assert.match(await page.locator('#drop-target [role="alert"]').first().textContent() ?? '', /forward_ms/);
  await current();

  // Bytes that are not UTF-8 are refused as the engine refuses them, naming the first bad byte
  // (here the 0xFF after `{"name": "`, at offset 10), not turned into U+FFFD and read.
  const latin1 = Buffer.concat([Buffer.from('{"name": "'), Buffer.from([0xff]), Buffer.from('", "layers": []}')]);
  await upload(page, 'latin1.json', latin1, ['error']);
  assert.match(await page.locator('#drop-target [role="alert"]').first().textContent() ?? '',
               /latin1\.json could not be read \(it is not UTF-8 text at byte 10 \(0xFF\)/);
  assert.deepEqual(await lastResponse(page), before);

  // A good file clears the error and the stale mark.
  await upload(page, 'dense-8l.json', await readFile(join(examplesDir, 'dense-8l.json'), 'utf8'));
  assert.equal(await page.locator('[role="alert"]').count(), 0);
  assert.equal(await page.locator('#results').getAttribute('data-stale'), 'false');
});

test('an invalid offset is reported beside the layer_offset field; the last result stays', async () => {
  const { page } = shared.open;
  await setField(page, '#pp-degree', '4');
  await choose(page, 'partition', 'explicit');
  const before = await lastResponse(page);
  await setField(page, '#layer-offset', '1, 0, 0, 0', ['error']);
  const alert = page.locator('.field:has(#layer-offset) [role="alert"]');
  assert.equal(await alert.count(), 1);
  assert.match(await alert.textContent() ?? '', /layer_offset sums to 1/);
  assert.match(await alert.textContent() ?? '', /\/pipeline\/layer_offset/);
  assert.equal(await page.locator('#layer-offset').getAttribute('aria-invalid'), 'true');
  assert.equal(await page.locator('#results').getAttribute('data-stale'), 'true');
  assert.deepEqual(await lastResponse(page), before);
  // Text where a number belongs is the engine's to judge, and lands on that field.
  await setField(page, '#pp-degree', 'four', ['error']);
  assert.equal(await page.locator('.field:has(#pp-degree) [role="alert"]').count(), 1);
  await setField(page, '#pp-degree', '4', ['error']);
  await setField(page, '#layer-offset', '1, 0, 0, -1');
  assert.equal(await page.locator('[role="alert"]').count(), 0);
  assert.deepEqual((await lastResponse(page)).result.layer_offset, [1, 0, 0, -1]);
});

test('dragging a stage boundary re-partitions live and shows the layer_offset', async () => {
  const { page } = shared.open;
  await setField(page, '#layer-offset', '');
  const before = (await lastResponse(page)).result;
  const handle = page.locator('svg#stage-loads .boundary[data-boundary="0"] .boundary-handle');
  const box = await handle.boundingBox();
  const strip = await page.locator('svg#stage-loads [data-virtual-stage="0"]').boundingBox();
  assert.ok(box && strip);
  const total = before.stage_layers.reduce((/** @type {number} */ a, /** @type {number} */ b) => a + b, 0);
  const perLayer = (strip.width / before.stage_layers[0]);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + perLayer * 1.1, box.y + box.height / 2, { steps: 4 });
  await page.mouse.up();
  await waitForState(page);
  const after = (await lastResponse(page)).result;
  assert.equal(after.stage_layers[0], before.stage_layers[0] + 1, `stage 0 took a layer (${total} layers)`);
  assert.equal(after.stage_layers[1], before.stage_layers[1] - 1);
  // The page converts no partition form: the drag went as stage_layers, and the layer_offset shown is the engine's.
  const sent = (await page.evaluate(() => /** @type {any} */ (window).__ppb.lastRequest)).pipeline;
  assert.deepEqual(sent.stage_layers, after.stage_layers);
  assert.equal(sent.layer_offset, undefined);
  assert.equal(await page.locator('#offset-value').textContent(), `[${after.layer_offset.join(', ')}]`);
  assert.equal(await page.inputValue('#layer-offset'), after.layer_offset.join(', '));
  // Keyboard: the focused boundary moves back with the left arrow.
  await page.locator('svg#stage-loads .boundary[data-boundary="0"]').focus();
  await page.keyboard.press('ArrowLeft');
  await waitForState(page);
  assert.deepEqual((await lastResponse(page)).result.stage_layers, before.stage_layers);
});

test('the transformer form builds a model through the import command and shows its errors by field', async () => {
  const { page } = shared.open;
  await showTransformerForm(page);
  await page.selectOption('#tf-preset', 'Llama-2 7B');
  await page.fill('#tf-transformer-hidden_size', '-5');
  await page.click('#tf-build');
  await waitForState(page, ['error']);
  const alert = page.locator('.field:has(#tf-transformer-hidden_size) [role="alert"]');
  assert.equal(await alert.count(), 1);
  await page.fill('#tf-transformer-hidden_size', '4096');
  await page.click('#tf-build');
  await waitForState(page);
  const model = await page.evaluate(() => /** @type {any} */ (window).__ppb.state.model);
  assert.equal(model.name, 'llama2-7b');
  assert.equal(layerCount(model), 34);
  assert.equal(await page.locator('[role="alert"]').count(), 0);
  await page.click('label:has(> input[name="model_source"][value="file"])');
});

test('pasted JSON and a request file are read; a request sets the controls', async () => {
  const { page } = shared.open;
  await page.click('label:has(> input[name="model_source"][value="paste"])');
  const model = JSON.parse(await readFile(join(examplesDir, 'dense-8l.json'), 'utf8'));
  await page.fill('#model-paste', JSON.stringify(model));
  await page.click('#paste-button');
  await waitForState(page);
  assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__ppb.state.model), model);
  await page.fill('#model-paste', '{"layers": 7');
  await page.click('#paste-button');
  await waitForState(page, ['error']);
  assert.equal(await page.locator('#model-source-paste [role="alert"]').count(), 1);
  // A pasted model leaves the panel on the paste box.
  assert.equal(await page.evaluate(() => /** @type {any} */ (window).__ppb.state.ui.modelSource), 'paste');
  await page.click('label:has(> input[name="model_source"][value="file"])');

  const request = { model, pipeline: { pp_degree: 2, micro_batch_num: 6, schedule: 'gpipe' }, device: { memory_limit_mib: 9000 } };
  await upload(page, 'request.json', JSON.stringify(request));
  assert.equal(await page.inputValue('#pp-degree'), '2');
  assert.equal(await page.inputValue('#micro-batch-num'), '6');
  assert.equal(await page.inputValue('#schedule'), 'gpipe');
  assert.equal(await page.inputValue('#memory-limit'), '9000');
  const result = (await lastResponse(page)).result;
  assert.equal(result.pp_degree, 2);
  assert.equal(result.schedule, 'gpipe');
});

test('micro batches from batch sizes; a schedule that needs vpp sets it, and a vpp it cannot run is reported beside the field', async () => {
  const { page } = shared.open;
  await choose(page, 'batch_mode', 'global');
  await page.fill('#global-batch-size', '64');
  await page.fill('#micro-batch-size', '2');
  await setField(page, '#dp-degree', '4');
  assert.equal((await lastResponse(page)).result.micro_batch_num, 8);
  await setField(page, '#dp-degree', '5', ['error']);
  assert.ok(await page.locator('#batch-fields [role="alert"], [data-error-for^="/training"] [role="alert"]').count() >= 1);
  await setField(page, '#dp-degree', '4');
  await choose(page, 'batch_mode', 'micro_batch_num');
  await setField(page, '#micro-batch-num', '8');
  await page.selectOption('#schedule', 'interleaved_1f1b');
  await waitForState(page);
  assert.equal(await page.inputValue('#vpp-degree'), '2');
  await setField(page, '#vpp-degree', '1', ['error']);
  assert.ok(await page.locator('.field:has(#schedule) [role="alert"], .field:has(#vpp-degree) [role="alert"]').count() >= 1);
  await setField(page, '#vpp-degree', '2');
  const result = (await lastResponse(page)).result;
  assert.equal(result.vpp_degree, 2);
  assert.equal(await page.locator('svg#timeline rect[data-op]').count(), result.timeline.length);
  await page.selectOption('#schedule', '1f1b');
  await setField(page, '#vpp-degree', '1');
});

test('exports: chart SVG and PNG, result JSON, Chrome trace, MindFormers YAML, Megatron arguments', async () => {
  const { page } = shared.open;
  /** @param {() => Promise<unknown>} action */
  const downloaded = async (action) => {
    const [download] = await Promise.all([page.waitForEvent('download'), action()]);
    const path = await download.path();
    return { name: download.suggestedFilename(), bytes: await readFile(path) };
  };
  const svg = await downloaded(() => page.click('.view-tools[data-chart="timeline"] [data-download="svg"]'));
  assert.match(svg.name, /timeline\.svg$/);
  const svgText = svg.bytes.toString('utf8');
  assert.match(svgText, /^<\?xml/);
  assert.match(svgText, /<svg[^>]*id="timeline"/);
  assert.doesNotMatch(svgText, /data-tip/);
  const png = await downloaded(() => page.click('.view-tools[data-chart="stage-loads"] [data-download="png"]'));
  assert.deepEqual([...png.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  const result = await downloaded(() => page.click('[data-export="result"]'));
  assert.deepEqual(JSON.parse(result.bytes.toString('utf8')), await lastResponse(page));
  const trace = await downloaded(() => page.click('[data-export="chrome-trace"]'));
  const events = JSON.parse(trace.bytes.toString('utf8')).traceEvents;
  const ops = (await lastResponse(page)).result.timeline.length;
  assert.equal(events.filter((/** @type {any} */ e) => e.ph === 'X').length, ops);
  const yaml = await downloaded(() => page.click('[data-export="mindformers"]'));
  assert.match(yaml.bytes.toString('utf8'), /offset:/);
  assert.match(await page.locator('#export-preview').textContent() ?? '', /pipeline_stage/);
  const megatron = await downloaded(() => page.click('[data-export="megatron"]'));
  assert.match(megatron.bytes.toString('utf8'), /--pipeline-model-parallel-size/);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(shared.open.problems, []);
});
