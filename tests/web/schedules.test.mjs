// Schedules side by side (issue 16 point 4): the page runs the plan shown under every schedule in one `compare`
// call and shows each schedule's figures as the engine gives them; a schedule that cannot run says why; a row
// that runs switches the page to that schedule, at the chunk count it ran with. The engine's own answer for the
// same request is computed here, in node, from the module the site copies (build/wasm/wasm/, which node reads as
// CommonJS).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { startSite, openPage, load, lastResponse, setField, waitForState, textProblems, cspViolations, repoRoot } from './helpers.mjs';

/** @type {Awaited<ReturnType<typeof startSite>>} */
let site;
/** @type {any} */
let engine;

before(async () => {
  site = await startSite();
  const dir = join(repoRoot, 'build', 'wasm', 'wasm');
  const createPpbEngine = createRequire(import.meta.url)(join(dir, 'ppb_engine.js'));
  engine = await createPpbEngine({ wasmBinary: await readFile(join(dir, 'ppb_engine.wasm')) });
});

after(async () => {
  await site?.close();
});

/**
 * The comparison the page shows, with the request it sent (the model is the page's).
 * @param {import('playwright-core').Page} page
 */
const shownComparison = (page) => page.evaluate(() => {
  const ppb = /** @type {any} */ (window).__ppb;
  return { ...ppb.schedules, model: ppb.state.model };
});

/**
 * The table's rows: schedule, chunk count, the exact value behind each figure, and the text of a reason.
 * @param {import('playwright-core').Page} page
 */
const tableRows = (page) => page.locator('#schedule-table tbody tr').evaluateAll((trs) => trs.map((tr) => {
  /** @param {string} field */
  const value = (field) => {
    const raw = tr.querySelector(`td[data-field="${field}"]`)?.getAttribute('data-value');
    return raw === null || raw === undefined ? null : Number(raw);
  };
  return {
    schedule: tr.getAttribute('data-schedule'), vpp: Number(tr.getAttribute('data-vpp')),
    step: value('step_time_ms'), span: value('span_ms'), bubble: value('bubble_fraction'), spanBubble: value('bubble_span_fraction'),
    peak: value('peak_mib'), fits: tr.querySelector('td[data-field="feasible"]')?.textContent ?? null,
    problems: tr.querySelector('td[data-field="problems"]')?.textContent ?? null,
  };
}));

test('the table shows the engine\'s compare answer for the plan shown, and a schedule that cannot run says why', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  // pp 8 with 8 micro batches: DualPipeV needs at least 2 x pp = 16 (docs/schedules.md), so it cannot run; the
  // others can.
  await setField(page, '#micro-batch-num', '8');
  await page.locator('#schedule-table tbody tr').first().waitFor();
  const shown = await shownComparison(page);
  assert.equal(shown.request.pipeline.micro_batch_num, 8);
  // The engine's answer to the same request, computed here.
  const expected = JSON.parse(engine.compare(JSON.stringify({ model: shown.model, ...shown.request })));
  assert.equal(expected.ok, true);
  assert.deepEqual(shown.result, expected.result);
  const rows = await tableRows(page);
  // Every schedule the engine compares, in its order (docs/contract.md "Compare result").
  assert.deepEqual(rows.map((r) => r.schedule), ['gpipe', '1f1b', 'interleaved_1f1b', 'zb_h1', 'zb_h2', 'zbv', 'dualpipev', 'zb_auto',
    'interleaved_1f1b_overlap', 'v_half', 'v_min', 'interleaved_zero_bubble', 'looped_bfs']);
  for (const [i, row] of rows.entries()) {
    const e = expected.result.schedules[i];
    assert.equal(row.vpp, e.vpp_degree, `${e.schedule} vpp`);
    if (!e.runs) {
      assert.equal(row.step, null);
      assert.equal(row.problems, `cannot run: ${e.problems.map((/** @type {any} */ p) => p.message).join(' ')}`);
      continue;
    }
    assert.deepEqual([row.step, row.span, row.bubble, row.spanBubble, row.peak], [e.step_time_ms, e.span_ms, e.bubble_fraction,
      e.bubble_span_fraction, e.peak_mib], e.schedule);
    assert.equal(row.fits, e.feasible ? 'yes' : 'no', `${e.schedule} fits`);
  }
  const dualpipev = rows.find((r) => r.schedule === 'dualpipev');
  assert.match(dualpipev?.problems ?? '', /^cannot run: .*micro/i);
  // The plan shown (PPB's, 1f1b) is the row marked; the small multiples draw a bar per measure for each schedule
  // that runs, and name the one that does not.
  assert.equal(await page.locator('#schedule-table tbody tr.selected').getAttribute('data-schedule'), '1f1b');
  const running = expected.result.schedules.filter((/** @type {any} */ e) => e.runs).length;
  assert.equal(await page.locator('svg#schedules rect.bar').count(), 3 * running);
  assert.deepEqual(await textProblems(page, ['schedules']), []);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a row that runs switches the page to its schedule, at the chunk count it ran with', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  const zbv = page.locator('#schedule-table tbody tr[data-schedule="zbv"]');
  await zbv.waitFor();
  const row = (await shownComparison(page)).result.schedules.find((/** @type {any} */ r) => r.schedule === 'zbv');
  assert.equal(row.runs, true);
  await zbv.click();
  await waitForState(page);
  assert.equal(await page.inputValue('#schedule'), 'zbv');
  assert.equal(await page.inputValue('#vpp-degree'), '2');
  const plan = (await lastResponse(page)).result;
  assert.equal(plan.schedule, 'zbv');
  assert.equal(plan.vpp_degree, 2);
  await page.locator('#schedule-table tbody tr.selected[data-schedule="zbv"]').waitFor();
  // With the keyboard too: Enter on the 1f1b row goes back.
  await page.locator('#schedule-table tbody tr[data-schedule="1f1b"]').press('Enter');
  await waitForState(page);
  assert.equal(await page.inputValue('#schedule'), '1f1b');
  assert.equal(await page.inputValue('#vpp-degree'), '1');
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('each schedule at its best: the rows are the engine\'s balanced compare, and a row opens its own plan', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  await page.locator('#schedule-table tbody tr').first().waitFor();
  await page.locator('#schedule-plans label').filter({ hasText: 'Each at its best' }).click();
  await page.waitForFunction(() => /** @type {any} */ (window).__ppb.schedules.result?.plans === 'balanced', null, { timeout: 60_000 });
  const shown = await shownComparison(page);
  assert.deepEqual(shown.request.compare, { plans: 'balanced' });
  // No partition is sent: each schedule's shape is balanced.
  assert.equal(shown.request.pipeline.stage_layers, undefined);
  const expected = JSON.parse(engine.compare(JSON.stringify({ model: shown.model, ...shown.request })));
  assert.equal(expected.ok, true);
  assert.deepEqual(shown.result, expected.result);
  assert.match(await page.locator('#schedule-table caption').textContent() ?? '', /Each schedule at its best/);
  // zbv's row opens zbv's own balanced plan: its layer_offset, and the row's step time.
  const zbv = expected.result.schedules.find((/** @type {any} */ r) => r.schedule === 'zbv');
  assert.equal(zbv.runs, true);
  await page.locator('#schedule-table tbody tr[data-schedule="zbv"]').click();
  await waitForState(page);
  assert.equal(await page.inputValue('#schedule'), 'zbv');
  const plan = (await lastResponse(page)).result;
  assert.deepEqual(plan.stage_layers, zbv.plan.stage_layers);
  assert.equal(plan.step_time_ms, zbv.step_time_ms);
  assert.deepEqual(problems, []);
  await page.context().close();
});
