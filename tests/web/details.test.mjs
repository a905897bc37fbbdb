// The smaller things a new user trips on: the example menu after an upload, export file names and chart titles,
// numbers JSON cannot carry, where a JSON error is, an old file error after later success, a field's error
// moving its neighbour, and the search scatter's crowded points and axis.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sharedPage, waitForState, upload, setField, examplesDir, load } from './helpers.mjs';

const shared = sharedPage();

const dense = () => readFile(join(examplesDir, 'dense-8l.json'), 'utf8');

test('the example menu names no example once an uploaded model replaced it', async () => {
  const { page } = shared.open;
  await page.selectOption('#example-select', 'moe-16x.json');
  await waitForState(page);
  assert.equal(await page.inputValue('#example-select'), 'moe-16x.json');
  await upload(page, 'mine.json', await dense());
  assert.equal(await page.inputValue('#example-select'), '');
});

test('exported file names end at a word, and exported charts carry their title', async () => {
  const { page } = shared.open;
  const model = JSON.parse(await dense());
  model.name = 'A very long model name with many words that goes on beyond sixty characters for sure';
  await upload(page, 'long.json', JSON.stringify(model));
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('.view-tools[data-chart="stage-loads"] [data-download="svg"]')]);
  // Lower case with dashes, cut at the last dash within 60 characters (by hand: "…-on-beyond" ends at 58).
  assert.equal(download.suggestedFilename(), 'a-very-long-model-name-with-many-words-that-goes-on-beyond-stage-loads.svg');
  const svg = await readFile(/** @type {string} */ (await download.path()), 'utf8');
  const title = `Stage loads · ${model.name}`;
  assert.ok(svg.includes(`<title>${title}</title>`), 'an SVG title');
  assert.ok(svg.includes(`>${title}</text>`), 'a visible title line');
  const [png] = await Promise.all([page.waitForEvent('download'), page.click('.view-tools[data-chart="timeline"] [data-download="png"]')]);
  assert.match(png.suggestedFilename(), /^a-very-long-model-name-with-many-words-that-goes-on-beyond-timeline\.png$/);
});

test('a number too large for JSON is named by its path, and a JSON error by its line and column', async () => {
  const { page } = shared.open;
  const alert = page.locator('#drop-target [role="alert"]');
  const model = (await dense()).replace('"forward_ms":', '"forward_ms": 1e999, "unused_ms":');
  await upload(page, 'huge.json', model, ['error']);
  const huge = await alert.first().textContent() ?? '';
  assert.match(huge, /huge\.json: the number at \/layers\/0\/forward_ms is too large/);
  assert.doesNotMatch(huge, /null/);
  // Line 4 is `    {"name": "a",}`: the property name expected at column 18, where the brace is.
  await upload(page, 'comma.json', '{\n  "format": "ppb.model.v1",\n  "layers": [\n    {"name": "a",}\n  ]\n}', ['error']);
  assert.match(await alert.first().textContent() ?? '', /comma\.json is not valid JSON: line 4, column 18: /);
  // A double comma: the second comma is the first character that is not JSON, at column 18 (16 characters of
  // `{"layers": [1, 2` and the first comma before it); not the end of the text, where the browser's parser points.
  await upload(page, 'double.json', '{"layers": [1, 2,, 3]}', ['error']);
  assert.match(await alert.first().textContent() ?? '', /double\.json is not valid JSON: line 1, column 18: a value is missing before this comma/);
  // Cut short: where the text ends.
  await upload(page, 'short.json', '{\n  "layers": [', ['error']);
  assert.match(await alert.first().textContent() ?? '', /short\.json is not valid JSON: line 2, column 14: the text ends before the JSON does/);
});

test('an old file error goes once later inputs give a plan', async () => {
  const { page } = shared.open;
  await upload(page, 'broken.json', '{"format": "ppb.model.v1", "layers": [', ['error']);
  assert.equal(await page.locator('#drop-target [role="alert"]').count(), 1);
  await setField(page, '#pp-degree', '2');
  assert.equal(await page.locator('#drop-target [role="alert"]').count(), 0);
  assert.equal(await page.evaluate(() => document.body.dataset.state), 'ready');
  assert.equal(await page.getAttribute('#results', 'data-stale'), 'false');
});

test('an error under vpp_degree leaves pp_degree in its place', async () => {
  const { page } = shared.open;
  const before = await page.locator('#pp-degree').boundingBox();
  await setField(page, '#vpp-degree', 'x', ['error']);
  assert.equal(await page.locator('.field:has(#vpp-degree) [role="alert"]').count(), 1);
  const pp = await page.locator('#pp-degree').boundingBox();
  const vpp = await page.locator('#vpp-degree').boundingBox();
  assert.ok(before && pp && vpp);
  assert.equal(pp.y, before.y);
  assert.equal(pp.y, vpp.y);
  await setField(page, '#vpp-degree', '1');
});

test('the search scatter starts its memory axis near the candidates, and a click opens the nearest point', async () => {
  const { page } = shared.open;
  await load(page, shared.site.url);
  await page.click('#search-run');
  await waitForState(page, ['ready'], 60_000);
  const result = await page.evaluate(() => /** @type {any} */ (window).__ppb.search);
  const peaks = result.candidates.map((/** @type {any} */ c) => c.peak_mib).filter((/** @type {any} */ v) => Number.isFinite(v));
  const first = Number((await page.locator('svg#pareto .axis-x > text').first().textContent() ?? '').replace(/,/g, ''));
  assert.ok(first > 0 && first <= Math.min(...peaks), `the axis starts at ${first}, the lowest peak is ${Math.min(...peaks)}`);
  // The two closest points: a click on each opens that one.
  const centres = await page.locator('svg#pareto .point').evaluateAll((nodes) => nodes.map((node) => {
    const circle = /** @type {SVGCircleElement} */ (node.querySelector('circle'));
    const box = circle.getBoundingClientRect();
    return { index: Number(node.getAttribute('data-index')), x: box.x + box.width / 2, y: box.y + box.height / 2 };
  }));
  // Points with another within 2 px (two candidates of nearly the same time and memory) are one spot on screen:
  // a click there opens either, so they are left out.
  const apart = centres.filter((a) => centres.every((b) => a === b || Math.hypot(a.x - b.x, a.y - b.y) > 2));
  assert.ok(apart.length >= 2, `${apart.length} points stand apart`);
  let pair = [apart[0], apart[1]];
  for (const a of apart) for (const b of apart) {
    const d = Math.hypot(a.x - b.x, a.y - b.y);
    if (a !== b && d > 2 && d < Math.hypot(pair[0].x - pair[1].x, pair[0].y - pair[1].y)) pair = [a, b];
  }
  for (const point of pair) {
    // Opening a plan scrolls to it: find the point where it is now.
    const circle = page.locator(`svg#pareto .point[data-index="${point.index}"] circle`).first();
    await circle.scrollIntoViewIfNeeded();
    await page.waitForTimeout(400); // the smooth scroll of the previous opening settles
    const box = await circle.boundingBox();
    assert.ok(box);
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await waitForState(page);
    assert.match(await page.evaluate(() => /** @type {any} */ (window).__ppb.state.ui.openPlan), new RegExp(`^search #${point.index + 1}:`));
  }
  assert.deepEqual(shared.open.problems, []);
});

test('numbers in the page\'s and the engine\'s sentences read as the tables write them', async () => {
  const { page } = shared.open;
  const said = await page.evaluate(async () => {
    // The page's own modules, as the page loads them (paths in variables: they are the page's, not the test's).
    const [formatPath, workPath] = ['./js/format.js', './js/work-status.js'];
    const { tidyNumbers } = await import(formatPath);
    const { describeBalance } = await import(workPath);
    const progress = { command: 'balance', phase: 'counts', done: 12, total: null, simulations: 3, incumbent_ms: 24949.5, finished: false };
    return {
      note: tidyNumbers('its answers may exceed the least recompute time by up to 1.4e+05 ms, so the bound holds to within 2.5e-05 ms'),
      reason: tidyNumbers('stage 3 needs 388477.5 MiB, limit 81920 MiB (306558 MiB over) on 1F1B and H100'),
      start: describeBalance({ ...progress, lower_bound_ms: 0 }),
      later: describeBalance({ ...progress, lower_bound_ms: 1234.5 }),
    };
  });
  // By hand: 1.4e+05 = 140,000 and 2.5e-05 = 0.000025; 388477.5 rounds to 388,478; names with digits stay.
  assert.equal(said.note, 'its answers may exceed the least recompute time by up to 140,000 ms, so the bound holds to within 0.000025 ms');
  assert.equal(said.reason, 'stage 3 needs 388,478 MiB, limit 81,920 MiB (306,558 MiB over) on 1F1B and H100');
  // A lower bound of 0 proves nothing yet: not "no plan below 0 ms".
  assert.doesNotMatch(said.start, /below/);
  assert.match(said.start, /best so far 24,950 ms/);
  assert.match(said.later, /no plan below 1,235 ms/);
});
