// Keyboard use: the focus follows a search to its results and an opened result to its plan; the stage boundaries
// are one widget with one tab stop (arrows, Page Up/Down, Home/End); timeline operations are selected and inspected
// from the keyboard, and by click, in a details panel.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, openPage, load, lastResponse, waitForState, setField, choose } from './helpers.mjs';

/** @type {Awaited<ReturnType<typeof startSite>>} */
let site;

before(async () => {
  site = await startSite();
});

after(async () => {
  await site?.close();
});

/**
 * Where the focus is: the element's id, or the data-view of its section, or its data-boundary.
 * @param {import('playwright-core').Page} page
 */
const focused = (page) => page.evaluate(() => {
  const node = document.activeElement;
  return {
    id: node?.id ?? '',
    view: node?.closest('[data-view]')?.getAttribute('data-view') ?? '',
    boundary: node?.getAttribute('data-boundary') ?? null,
  };
});

test('focus moves to the results after a search and to the plan after opening a row', async () => {
  const { page, problems, context } = await openPage(site.browser);
  await load(page, site.url);
  await page.focus('#search-run');
  await page.keyboard.press('Enter');
  await waitForState(page, ['ready'], 60_000);
  await page.waitForFunction(() => document.activeElement?.id === 'search-results-title');
  assert.equal((await focused(page)).view, 'search');
  // The focused heading is in sight, wholly below the sticky top bar (scrolling is instant: no smooth behaviour).
  const place = await page.evaluate(() => ({
    heading: /** @type {HTMLElement} */ (document.getElementById('search-results-title')).getBoundingClientRect().top,
    bar: /** @type {HTMLElement} */ (document.querySelector('.topbar')).getBoundingClientRect().bottom,
  }));
  assert.ok(place.heading >= place.bar, `the heading's top ${place.heading} px is under the top bar's bottom ${place.bar} px`);
  // A row opened with Enter: the focus goes to the plan's summary, and the plan is that candidate's.
  const row = page.locator('#search-table tbody tr').nth(1);
  const index = Number(await row.getAttribute('data-index'));
  await row.focus();
  await page.keyboard.press('Enter');
  await waitForState(page);
  assert.equal((await focused(page)).view, 'summary');
  const candidate = await page.evaluate((i) => /** @type {any} */ (window).__ppb.search.candidates[i], index);
  const shown = (await lastResponse(page)).result;
  assert.deepEqual([shown.pp_degree, shown.vpp_degree, shown.micro_batch_num, shown.schedule],
    [candidate.pp_degree, candidate.vpp_degree, candidate.micro_batch_num, candidate.schedule]);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the stage boundaries are one tab stop; arrows, Page Up/Down and Home/End move them', async () => {
  const { page, problems, context } = await openPage(site.browser);
  await load(page, site.url);
  await setField(page, '#pp-degree', '4');
  await page.selectOption('#schedule', 'interleaved_1f1b');
  await setField(page, '#vpp-degree', '2');
  const boundaries = page.locator('svg#stage-loads .boundary');
  assert.equal(await boundaries.count(), 7, 'pp 4 x vpp 2: 8 virtual stages, 7 boundaries');
  assert.equal(await page.locator('svg#stage-loads .boundary[tabindex="0"]').count(), 1, 'one tab stop');

  // Tab from the control before the chart lands on the strip's one boundary; one more Tab leaves the strip.
  await page.focus('#stage-loads-title + .view-tools button:last-child');
  await page.keyboard.press('Tab');
  assert.equal((await focused(page)).boundary, '0');
  await page.keyboard.press('ArrowDown');
  assert.equal((await focused(page)).boundary, '1', 'down arrow: next boundary');
  assert.equal(await page.locator('svg#stage-loads .boundary[tabindex="0"]').getAttribute('data-boundary'), '1');

  const layers = /** @type {number[]} */ ((await lastResponse(page)).result.stage_layers);
  // End: boundary 1 as far right as it goes, virtual stage 2 keeps one layer.
  await page.keyboard.press('End');
  await waitForState(page);
  let now = (await lastResponse(page)).result.stage_layers;
  assert.deepEqual(now.slice(0, 3), [layers[0], layers[1] + layers[2] - 1, 1]);
  assert.equal((await focused(page)).boundary, '1', 'the focus stays on the boundary after the redraw');
  // Home: as far left as it goes, virtual stage 1 keeps one layer.
  await page.keyboard.press('Home');
  await waitForState(page);
  now = (await lastResponse(page)).result.stage_layers;
  assert.deepEqual(now.slice(0, 3), [layers[0], 1, layers[1] + layers[2] - 1]);
  // Page Up: ten layers more before it; left arrow: one fewer.
  await page.keyboard.press('PageUp');
  await waitForState(page);
  await page.keyboard.press('ArrowLeft');
  await waitForState(page);
  now = (await lastResponse(page)).result.stage_layers;
  assert.deepEqual(now.slice(0, 3), [layers[0], 10, layers[1] + layers[2] - 10]);
  const handle = page.locator('svg#stage-loads .boundary[data-boundary="1"]');
  assert.equal(await handle.getAttribute('aria-valuenow'), String(layers[0] + 10));
  assert.equal(await handle.getAttribute('aria-valuemin'), String(layers[0] + 1));

  // Leaving and coming back: the boundary used last is the tab stop.
  await page.keyboard.press('Tab');
  assert.equal((await focused(page)).boundary, null);
  await page.keyboard.press('Shift+Tab');
  assert.equal((await focused(page)).boundary, '1');
  assert.deepEqual(problems, []);
  await context.close();
});

test('timeline operations are selected and inspected by keyboard and by click', async () => {
  const { page, problems, context } = await openPage(site.browser);
  await load(page, site.url);
  await setField(page, '#pp-degree', '4');
  await setField(page, '#micro-batch-num', '8');
  await choose(page, 'partition', 'even');
  const result = (await lastResponse(page)).result;
  /** @type {any[][]} each stage's operations in time order */
  const rows = Array.from({ length: 4 }, () => []);
  for (const op of result.timeline) rows[op.stage].push(op);
  for (const row of rows) row.sort((a, b) => a.start_ms - b.start_ms);
  const title = () => page.locator('#op-details .op-title').textContent();
  /** @param {any} op */
  const named = (op) => new RegExp(`^${op.op}${op.micro_batch} `);

  await page.focus('#timeline-box');
  await page.keyboard.press('Enter');
  // Enter picks the operation of stage 0 nearest the middle of the view (the whole step).
  const middle = result.step_time_ms / 2;
  const distance = (/** @type {any} */ op) => (op.start_ms <= middle && op.end_ms > middle ? 0 : Math.min(Math.abs(op.start_ms - middle), Math.abs(op.end_ms - middle)));
  let i = rows[0].reduce((best, op, k) => (distance(op) < distance(rows[0][best]) ? k : best), 0);
  assert.match(await title() ?? '', named(rows[0][i]));
  // The highlight is drawn with the chart's next frame, after the details panel: wait for it, then
  // require exactly one.
  await page.waitForFunction(() => document.querySelectorAll('svg#timeline .selected-op').length > 0);
  assert.equal(await page.locator('svg#timeline .selected-op').count(), 1);
  await page.keyboard.press('ArrowRight');
  i = Math.min(i + 1, rows[0].length - 1);
  assert.match(await title() ?? '', named(rows[0][i]), 'right arrow: the next operation of the stage');
  await page.keyboard.press('Home');
  assert.match(await title() ?? '', named(rows[0][0]), 'Home: the stage\'s first operation');
  assert.match(await page.locator('#op-details').textContent() ?? '', /stage 0, virtual stage 0 · operation 1 of 16/);
  await page.keyboard.press('ArrowDown');
  // Nearest in time to the middle of the operation left: running then, else the closest by its start or end.
  const t = (rows[0][0].start_ms + rows[0][0].end_ms) / 2;
  const gap = (/** @type {any} */ op) => (op.start_ms <= t && op.end_ms > t ? 0 : Math.min(Math.abs(op.start_ms - t), Math.abs(op.end_ms - t)));
  const below = rows[1].reduce((best, op) => (gap(op) < gap(best) ? op : best));
  assert.match(await title() ?? '', named(below), 'down arrow: the nearest operation of the next stage');
  assert.match(await page.locator('#op-details').textContent() ?? '', /stage 1/);
  // The window does not move while an operation is selected (the arrows are the selection's).
  const window = await page.getAttribute('svg#timeline', 'data-window');
  await page.keyboard.press('Escape');
  assert.equal(await page.locator('#op-details').isVisible(), false);
  assert.equal(await page.getAttribute('svg#timeline', 'data-window'), window);
  // Without a selection the keys zoom and pan again.
  const windowAfter = async (/** @type {string} */ key, /** @type {string | null} */ from) => {
    await page.keyboard.press(key);
    await page.waitForFunction((w) => document.querySelector('svg#timeline')?.getAttribute('data-window') !== w, from);
    return page.getAttribute('svg#timeline', 'data-window');
  };
  const zoomed = await windowAfter('+', window);
  await windowAfter('ArrowRight', zoomed);

  // A click (or tap) on a box shows its operation.
  await page.keyboard.press('0');
  await page.waitForFunction((w) => document.querySelector('svg#timeline')?.getAttribute('data-window') === w, window);
  const box = page.locator('svg#timeline rect[data-op="B"][data-stage="2"]').nth(3);
  const micro = await box.getAttribute('data-micro-batch');
  await box.click();
  assert.match(await title() ?? '', new RegExp(`^B${micro} · backward of micro batch ${micro}`));
  await page.click('#op-details .op-close');
  assert.equal(await page.locator('#op-details').isVisible(), false);
  assert.deepEqual(problems, []);
  await context.close();
});
