// Safety of the page (issue 10): markup and script in layer names, the model name and recompute option names are
// shown as text and nothing runs (no dialog, no console error, no CSP violation, no injected element); a dying
// worker is reported, replaced, and the inputs survive.
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, openPage, load, lastResponse, waitForState, upload, setField, choose, cspViolations, crashWorker } from './helpers.mjs';

/** @type {Awaited<ReturnType<typeof startSite>>} */
let site;

before(async () => {
  site = await startSite();
});

after(async () => {
  await site?.close();
});

const MODEL_NAME = '<img src=x onerror=alert(1)><script>alert(2)</script> model';
const FIRST = '<script>alert("first")</script>';
const BODY = '<img src=x onerror="alert(3)">body';
const LAST = '"><svg onload=alert(4)>';
const OPTION = '<b onmouseover=alert(5)>full</b>';
const OPTION2 = "'); alert(6); //";

const hostile = {
  format: 'ppb.model.v1',
  name: MODEL_NAME,
  layers: [
    { name: FIRST, kind: '<i>embedding</i>', pin: 'first', forward_ms: 1, backward_ms: 2, static_mib: 100 },
    { name: BODY, kind: '<u>decoder</u>', count: 6, forward_ms: 4, backward_ms: 8, static_mib: 500, activation_mib: 300, send_mib: 8,
      recompute: { [OPTION]: { activation_mib: 10, extra_ms: 4 }, [OPTION2]: { activation_mib: 100, extra_ms: 1 } } },
    { name: LAST, pin: 'last', forward_ms: 2, backward_ms: 4, static_mib: 200 },
  ],
};

test('markup and script in names are shown as text and nothing runs', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  const baseline = await page.evaluate(() => ({ scripts: document.scripts.length, images: document.images.length }));
  await setField(page, '#pp-degree', '2');
  await upload(page, 'hostile.json', JSON.stringify(hostile));
  await setField(page, '#memory-limit', '3000');
  assert.equal(await page.locator('#model-name').textContent(), MODEL_NAME);
  // Option names in the PPB checkboxes and the per-stage recompute fields.
  const options = await page.locator('#recompute-option-list label').allTextContents();
  assert.deepEqual(options.map((o) => o.trim()).sort(), [OPTION, OPTION2].sort());
  await choose(page, 'partition', 'explicit');
  assert.deepEqual((await page.locator('#recompute-count-list label').allTextContents()).sort(), [OPTION, OPTION2].sort());
  // Layer names in the partition strip's tooltip.
  await page.locator('svg#stage-loads [data-virtual-stage="0"]').hover();
  const tip = page.locator('.tooltip');
  await tip.waitFor({ state: 'visible' });
  assert.match(await tip.textContent() ?? '', /<script>alert\("first"\)<\/script>/);
  await page.locator('svg#stage-loads [data-virtual-stage="1"]').hover();
  assert.ok((await tip.textContent() ?? '').includes(LAST));
  // Exports carry the names as text too. The Chrome trace always writes the plan shown; a launcher's
  // export may refuse a plan whose recompute options it has no name for (EXPORT_PLAN_DOES_NOT_FIT).
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-export="chrome-trace"]')]);
  const tracePath = await download.path();
  assert.ok(tracePath);
  // The names travel inside the trace's JSON strings, escaped, not as markup.
  assert.ok(Array.isArray(JSON.parse(readFileSync(tracePath, 'utf8')).traceEvents));
  // Nothing was injected and nothing ran.
  const after = await page.evaluate(() => ({ scripts: document.scripts.length, images: document.images.length }));
  assert.deepEqual(after, baseline);
  assert.equal(await page.locator('b, i, u, img, iframe, object').count(), 0);
  assert.equal(await page.locator('svg svg').count(), 0);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(problems, []);

  // The same names through a share link.
  await page.click('#share-button');
  await page.waitForFunction(() => /** @type {HTMLInputElement} */ (document.getElementById('share-link')).value.includes('#ppb1.'));
  const link = await page.inputValue('#share-link');
  const second = await openPage(site.browser);
  await load(second.page, link);
  assert.equal(await second.page.locator('#model-name').textContent(), MODEL_NAME);
  assert.equal(await second.page.locator('b, i, u, img, iframe, object').count(), 0);
  assert.deepEqual(await cspViolations(second.page), []);
  assert.deepEqual(second.problems, []);
  await second.context.close();
  await page.context().close();
});

test('a dead worker is reported and replaced, and the inputs are kept', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  await setField(page, '#pp-degree', '4');
  await setField(page, '#micro-batch-num', '12');
  const before = (await lastResponse(page)).result;
  for (const how of ['throw', 'abort']) {
    await crashWorker(page, /** @type {'throw' | 'abort'} */ (how));
    const banner = page.locator('.banner[data-banner="engine-died"][role="alert"]');
    await banner.waitFor();
    assert.match(await banner.textContent() ?? '', /engine stopped.*restarted.*inputs are kept/, how);
    await waitForState(page);
    assert.equal(await page.inputValue('#pp-degree'), '4', how);
    assert.equal(await page.inputValue('#micro-batch-num'), '12', how);
    const afterResult = (await lastResponse(page)).result;
    assert.equal(afterResult.pp_degree, 4, how);
    assert.equal(afterResult.step_time_ms, before.step_time_ms, how);
    await page.locator('.banner[data-banner="engine-died"] .banner-close').click();
  }
  // The new worker answers new requests.
  await setField(page, '#micro-batch-num', '16');
  assert.equal((await lastResponse(page)).result.micro_batch_num, 16);
  // The uncaught error in the old worker is the only problem, and it was expected.
  assert.deepEqual(problems.filter((p) => !/crash injected by the test/.test(p)), []);
  await page.context().close();
});
