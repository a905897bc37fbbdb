// The page's main path: it loads, balances the default example in the WASM worker and draws it. The charts hold
// one bar per stage and one box per operation, and the numbers on screen are the engine's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedPage, lastResponse, cspViolations, waitForState, choose, setField, asTable } from './helpers.mjs';
import { num, percent } from '../../web/js/format.js';

const shared = sharedPage();

test('the default view balances the example with PPB and draws every chart', async () => {
  const { page } = shared.open;
  const response = await lastResponse(page);
  assert.equal(response.ok, true);
  assert.equal(response.command, 'balance');
  const result = response.result;
  const pp = result.stages.length;
  assert.equal(pp, 8);
  for (const id of ['stage-loads', 'timeline', 'memory', 'compare']) {
    assert.equal(await page.locator(`svg#${id}`).count(), 1, `svg#${id}`);
  }
  assert.equal(await page.locator('[role="alert"]').count(), 0);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(shared.open.problems, []);
});

test('stage loads: one bar group per stage, and a strip segment per virtual stage with the engine\'s layer counts', async () => {
  const { page } = shared.open;
  const result = (await lastResponse(page)).result;
  const stages = page.locator('svg#stage-loads g.stage[data-stage]');
  assert.equal(await stages.count(), result.stages.length);
  const shown = await stages.evaluateAll((groups) => groups.map((g) => Number(g.getAttribute('data-stage'))));
  assert.deepEqual(shown, result.stages.map((/** @type {any} */ s) => s.stage));
  // The partition strip: one segment per virtual stage, layer counts as the engine's stage_layers.
  const segments = page.locator('svg#stage-loads [data-virtual-stage]');
  assert.equal(await segments.count(), result.stage_layers.length);
  const boundaries = page.locator('svg#stage-loads .boundary');
  assert.equal(await boundaries.count(), result.stage_layers.length - 1);
  const ends = await boundaries.evaluateAll((nodes) => nodes.map((n) => Number(n.getAttribute('aria-valuenow'))));
  let sum = 0;
  assert.deepEqual(ends, result.stage_layers.slice(0, -1).map((/** @type {number} */ n) => (sum += n)));
});

test('the per-stage table and the summary show the engine\'s numbers', async () => {
  const { page } = shared.open;
  const result = (await lastResponse(page)).result;
  const rows = page.locator('#stage-table tbody tr[data-stage]');
  assert.equal(await rows.count(), result.stages.length);
  const cells = await rows.evaluateAll((trs) => trs.map((tr) => Object.fromEntries(
    [...tr.querySelectorAll('td[data-field]')].map((td) => [td.getAttribute('data-field'), { text: td.textContent, value: td.getAttribute('data-value') }]))));
  result.stages.forEach((/** @type {any} */ stage, /** @type {number} */ i) => {
    for (const [field, value] of [['forward_ms', stage.time.forward_ms], ['backward_ms', stage.time.backward_ms],
      ['recompute_ms', stage.time.recompute_ms], ['busy_ms', stage.time.busy_ms], ['peak_mib', stage.memory.peak_mib]]) {
      assert.equal(cells[i][field].text, num(value), `stage ${i} ${field}`);
      assert.equal(Number(cells[i][field].value), value, `stage ${i} ${field} exact`);
    }
    const layers = stage.layers.reduce((/** @type {number} */ a, /** @type {number[]} */ [b, e]) => a + e - b, 0);
    assert.equal(Number(cells[i].layers.value), layers);
  });
  const step = page.locator('[data-field="step_time_ms"] output');
  assert.equal(await step.textContent(), `${num(result.step_time_ms)} ms`);
  assert.equal(Number(await step.getAttribute('data-value')), result.step_time_ms);
  assert.equal(await page.locator('[data-field="bubble_fraction"] output').textContent(), percent(result.bubble.fraction));
  const peak = Math.max(...result.stages.map((/** @type {any} */ s) => s.memory.peak_mib));
  assert.equal(Number(await page.locator('[data-field="peak_mib"] output').getAttribute('data-value')), peak);
  assert.equal(await page.locator('#offset-value').textContent(), `[${result.layer_offset.join(', ')}]`);
});

test('timeline: one box per operation, carrying its op, stage and micro batch', async () => {
  const { page } = shared.open;
  const result = (await lastResponse(page)).result;
  const boxes = await page.locator('svg#timeline rect[data-op]').evaluateAll((rects) => rects.map((r) =>
    `${r.getAttribute('data-op')}:${r.getAttribute('data-stage')}:${r.getAttribute('data-micro-batch')}:${r.getAttribute('data-virtual-stage')}`));
  const expected = result.timeline.map((/** @type {any} */ op) => `${op.op}:${op.stage}:${op.micro_batch}:${op.virtual_stage}`);
  assert.equal(boxes.length, expected.length);
  assert.deepEqual([...boxes].sort(), [...expected].sort());
  // The step time is marked and labelled with the engine's value.
  assert.equal(await page.locator('svg#timeline .step-marker').count(), 1);
  assert.equal(await page.locator('svg#timeline .step-label').textContent(), `step ${num(result.step_time_ms)} ms`);
  // One memory line per stage.
  assert.equal(await page.locator('svg#memory path.memory-line').count(), result.stages.length);
});

test('timeline zoom draws only what is visible and the whole step comes back', async () => {
  const { page } = shared.open;
  const all = await page.locator('svg#timeline rect[data-op]').count();
  const step = (await lastResponse(page)).result.step_time_ms;
  await page.click('#zoom-in');
  await page.click('#zoom-in');
  // Each click redraws; wait for the second one (a quarter of the step) rather than the first.
  await page.waitForFunction((quarter) => {
    const [a, b] = String(document.querySelector('svg#timeline')?.getAttribute('data-window')).split(',').map(Number);
    return Math.abs((b - a) - quarter) < 1e-6 * quarter * 4;
  }, step / 4);
  await page.waitForFunction((n) => document.querySelectorAll('svg#timeline rect[data-op]').length < n, all);
  const windowAttr = await page.locator('svg#timeline').getAttribute('data-window');
  const [t0, t1] = String(windowAttr).split(',').map(Number);
  assert.ok(Math.abs((t1 - t0) - step / 4) < 1e-6 * step, `window ${t0}..${t1} is a quarter of ${step}`);
  // Dragging pans the window (the box in view first: the summary's caveats above it may push it below the fold).
  await page.locator('#timeline-box').scrollIntoViewIfNeeded();
  const box = await page.locator('#timeline-box').boundingBox();
  assert.ok(box);
  await page.mouse.move(box.x + box.width / 2, box.y + 80);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 - 200, box.y + 80, { steps: 5 });
  await page.mouse.up();
  await page.waitForFunction((start) => Number(String(document.querySelector('svg#timeline')?.getAttribute('data-window')).split(',')[0]) > start, t0);
  const panned = String(await page.locator('svg#timeline').getAttribute('data-window')).split(',').map(Number);
  assert.ok(panned[0] > t0, `panned from ${t0} to ${panned[0]}`);
  await page.click('#zoom-reset');
  await page.waitForFunction((n) => document.querySelectorAll('svg#timeline rect[data-op]').length === n, all);
});

test('a tooltip explains the box under the pointer', async () => {
  const { page } = shared.open;
  await page.click('#zoom-reset');  // the whole step, whatever an earlier test left
  await page.waitForFunction(() => Number(String(document.querySelector('svg#timeline')?.getAttribute('data-window')).split(',')[0]) === 0);
  const rect = page.locator('svg#timeline rect[data-op="B"][data-stage="0"][data-micro-batch="3"]');
  await rect.waitFor({ state: 'visible' });
  await page.waitForTimeout(200);  // let a redraw scheduled by the reset settle before measuring
  const box = await rect.boundingBox();
  assert.ok(box);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const tip = page.locator('.tooltip');
  await tip.waitFor({ state: 'visible' });
  assert.match(await tip.textContent() ?? '', /B3 · backward of micro batch 3/);
  await page.mouse.move(5, 5);
});

test('partition modes: even split and an explicit layer_offset estimate; PPB balances', async () => {
  const { page } = shared.open;
  // 40 GiB rather than the example's H100 80 GB: the even split of Llama-2 70B on pp 8 does not fit then.
  await setField(page, '#memory-limit', '40960');
  await choose(page, 'partition', 'even');
  let response = await lastResponse(page);
  assert.equal(response.command, 'estimate');
  assert.deepEqual(response.result.layer_offset, [0, 0, 0, 0, 0, 0, 0, 0]);
  // The even split does not fit: the stages over the limit stand out and say by how much.
  const violations = response.result.violations;
  assert.ok(violations.length > 0);
  const over = await page.locator('svg#stage-loads g.stage.over-limit').evaluateAll((groups) => groups.map((g) => Number(g.getAttribute('data-stage'))));
  assert.deepEqual(over, violations.map((/** @type {any} */ v) => v.stage));
  for (const v of violations) {
    const label = await page.locator(`svg#stage-loads g.stage[data-stage="${v.stage}"] text`).allTextContents();
    assert.ok(label.includes(`+${num(v.over_mib)}`), `stage ${v.stage} says +${num(v.over_mib)}: ${label}`);
  }
  assert.equal(await page.locator('[data-field="feasible"] output').textContent(), `no, ${violations.length} stage${violations.length === 1 ? '' : 's'} over`);
  await choose(page, 'partition', 'explicit');
  await page.fill('#layer-offset', '1, 0, 0, 0, 0, 0, 0, -1');
  await waitForState(page);
  response = await lastResponse(page);
  assert.equal(response.command, 'estimate');
  assert.deepEqual(response.result.layer_offset, [1, 0, 0, 0, 0, 0, 0, -1]);
  // The comparison shows the even split beside it.
  assert.equal(await page.locator('svg#compare').count(), 1);
  await choose(page, 'partition', 'ppb');
  assert.equal((await lastResponse(page)).command, 'balance');
  // A proven plan has no notes, an unproven one lists them. Under interleaved 1F1B (two chunks a stage) the
  // count search can prove this plan (its 80 decoders are alike), in about the command's 2 s on a loaded
  // machine; under DualPipeV, whose F&B pairs it does not read, the plan is not proven and the engine's
  // reasons are listed.
  const notes = page.locator('#method-notes');
  assert.equal(await notes.isHidden(), (await lastResponse(page)).result.method.proven_optimal);
  await page.selectOption('#schedule', 'interleaved_1f1b');
  await waitForState(page);
  response = await lastResponse(page);
  assert.equal(response.result.schedule, 'interleaved_1f1b');
  assert.equal(await notes.isHidden(), response.result.method.proven_optimal);
  await page.selectOption('#schedule', 'dualpipev');
  await waitForState(page);
  response = await lastResponse(page);
  assert.equal(response.result.schedule, 'dualpipev');
  assert.equal(response.result.method.proven_optimal, false);
  assert.ok(response.result.method.notes.length > 0);
  assert.equal(await notes.isVisible(), true);
  assert.deepEqual(await notes.locator('li').allTextContents(), response.result.method.notes.map(asTable));
  await page.selectOption('#schedule', '1f1b');
  await waitForState(page);
  assert.deepEqual(shared.open.problems, []);
});

test('thousands of operations: a density view per pixel column, boxes once zoomed in, and the engine\'s cap said', async () => {
  const { page } = shared.open;
  await choose(page, 'partition', 'even');
  await page.fill('#pp-degree', '8');
  await setField(page, '#micro-batch-num', '8192');
  // (Only a few fields come back from the page: 100,000 operations through the debugging protocol are slow.)
  const result = await page.evaluate(() => {
    const r = /** @type {any} */ (window).__ppb.last.result;
    return { truncated: r.timeline_truncated, returned: r.timeline.length, limit: r.timeline_limit };
  });
  assert.equal(result.truncated, true, 'pp 8 x 8192 micro batches x (F + B) is above the 100,000-operation cap');
  assert.equal(result.returned, result.limit);
  // Whole step: no element per operation, one path per stage and kind.
  assert.equal(await page.locator('svg#timeline rect[data-op]').count(), 0);
  assert.equal(await page.locator('svg#timeline path.op-path').count(), 8 * 2);
  assert.equal(await page.locator('svg#timeline .not-returned').count(), 1);
  assert.match(await page.locator('svg#timeline').textContent() ?? '', /100,000 of 131,072 operations returned/);
  // Zoomed far in, single boxes come back, and the redraw stays quick.
  const started = Date.now();
  for (let i = 0; i < 9; ++i) await page.click('#zoom-in');
  await page.waitForFunction(() => document.querySelectorAll('svg#timeline rect[data-op]').length > 0);
  const boxes = await page.locator('svg#timeline rect[data-op]').count();
  assert.ok(boxes > 0 && boxes <= 2500, `${boxes} boxes in view`);
  assert.ok(Date.now() - started < 10_000, `9 zoom steps took ${Date.now() - started} ms`);
  await page.click('#zoom-reset');
  await setField(page, '#micro-batch-num', '32');
  await choose(page, 'partition', 'ppb');
});
