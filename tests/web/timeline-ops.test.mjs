// B, W and F&B drawn apart (issue 16 point 3): ZB-H1's W operations get boxes of their own fill, and the memory
// chart says it holds what W still needs; DualPipeV's F&B operations are drawn split, and the details of one name
// both its micro batches and both chunks; the summary shows span and span bubble where B and W run apart.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, openPage, load, lastResponse, waitForState, textProblems, cspViolations } from './helpers.mjs';

/** @type {Awaited<ReturnType<typeof startSite>>} */
let site;

before(async () => {
  site = await startSite();
});

after(async () => {
  await site?.close();
});

/**
 * Picks a schedule in the plan's picker and waits for its plan.
 * @param {import('playwright-core').Page} page
 * @param {string} schedule
 */
async function pick(page, schedule) {
  await page.selectOption('#schedule', schedule);
  await waitForState(page);
  const result = (await lastResponse(page)).result;
  assert.equal(result.schedule, schedule);
  return result;
}

test('zb_h1: every W is a box of its own fill, the memory chart says it holds what W needs, the summary shows the span', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  // The default example's settings: pp 8, 32 micro batches, one chunk.
  const result = await pick(page, 'zb_h1');
  assert.equal(result.pp_degree, 8);
  assert.equal(result.micro_batch_num, 32);
  // One W per (stage, micro batch) with one chunk: 8 x 32 = 256, each drawn.
  assert.equal(result.timeline.filter((/** @type {any} */ op) => op.op === 'W').length, 256);
  const w = page.locator('svg#timeline rect[data-op="W"]');
  assert.equal(await w.count(), 256);
  const fills = await page.locator('svg#timeline rect[data-op]').evaluateAll((boxes) => {
    /** @type {Record<string, Set<string>>} */
    const byKind = {};
    for (const box of boxes) (byKind[box.getAttribute('data-op') ?? ''] ??= new Set()).add(box.getAttribute('fill') ?? '');
    return Object.fromEntries(Object.entries(byKind).map(([kind, set]) => [kind, [...set]]));
  });
  // W is drawn with the striped weight fill, which neither F nor B uses.
  assert.ok(fills.W.includes('url(#timeline-w)'), JSON.stringify(fills));
  assert.ok(!fills.B.includes('url(#timeline-w)') && !fills.F.includes('url(#timeline-w)'));
  const legend = await page.locator('svg#timeline .legend').textContent() ?? '';
  assert.match(legend, /W weight gradient/);
  assert.match(legend, /B backward \(input gradient where its W runs apart\)/);
  assert.match(await page.locator('#memory-w-note').textContent() ?? '', /activation a W still needs after its B/);
  // Every B of zb_h1 computes the input gradient only: its tooltip and details say so.
  const b = result.timeline.find((/** @type {any} */ op) => op.op === 'B' && op.stage === 0);
  assert.equal(b.weight_apart, true);
  await page.locator(`svg#timeline rect[data-op="B"][data-stage="0"][data-micro-batch="${b.micro_batch}"]`).first().click();
  await page.locator('#op-details').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#op-details .op-title').textContent(), `B${b.micro_batch} · input-gradient backward of micro batch ${b.micro_batch} (its W runs later)`);
  // The span and the span bubble beside step time and bubble, as the engine gives them.
  assert.equal(Number(await page.getAttribute('#summary [data-field="span_ms"] output', 'data-value')), result.span_ms);
  assert.equal(Number(await page.getAttribute('#summary [data-field="bubble_span_fraction"] output', 'data-value')), result.bubble.span_fraction);
  assert.deepEqual(await textProblems(page, ['timeline', 'memory']), []);
  // 1F1B runs B and W together: no W box, no span metric, no note.
  await pick(page, '1f1b');
  assert.equal(await page.locator('svg#timeline rect[data-op="W"]').count(), 0);
  assert.equal(await page.locator('#summary [data-field="span_ms"]').count(), 0);
  assert.equal(await page.locator('#memory-w-note').count(), 0);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('dualpipev: F&B operations are drawn split, and the details name both micro batches and both chunks', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  const result = await pick(page, 'dualpipev');
  assert.equal(result.vpp_degree, 2);
  const pairs = result.timeline.filter((/** @type {any} */ op) => op.op === 'F&B');
  assert.ok(pairs.length > 0, 'DualPipeV overlaps some forwards with backwards');
  const boxes = page.locator('svg#timeline rect[data-op="F&B"]');
  assert.equal(await boxes.count(), pairs.length);
  assert.deepEqual([...new Set(await boxes.evaluateAll((nodes) => nodes.map((n) => n.getAttribute('fill'))))], ['url(#timeline-fb)']);
  assert.match(await page.locator('svg#timeline .legend').textContent() ?? '', /F&B forward and backward of two micro batches, overlapped/);
  // The first F&B of stage 0: select it with a click and read its details.
  const first = pairs.filter((/** @type {any} */ op) => op.stage === 0).sort((/** @type {any} */ a, /** @type {any} */ b) => a.start_ms - b.start_ms)[0];
  assert.notEqual(first.backward_micro_batch, undefined);
  const box = page.locator(`svg#timeline rect[data-op="F&B"][data-stage="0"][data-micro-batch="${first.micro_batch}"][data-backward-micro-batch="${first.backward_micro_batch}"]`);
  await box.first().click();
  const details = page.locator('#op-details');
  await details.waitFor({ state: 'visible' });
  const text = await details.textContent() ?? '';
  assert.ok(text.includes(`F${first.micro_batch}&B${first.backward_micro_batch}`), text);
  assert.ok(text.includes(`forward of micro batch ${first.micro_batch} on virtual stage ${first.virtual_stage}`), text);
  assert.ok(text.includes(`backward of micro batch ${first.backward_micro_batch} on virtual stage ${first.backward_virtual_stage}`), text);
  assert.deepEqual(await textProblems(page, ['timeline']), []);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(problems, []);
  await page.context().close();
});
