// Share links, state files and embedding: a link restores the same plan; broken links of every kind give a
// message and the page still works; a state too large for a link becomes a file the page opens again; embed mode
// shows the chosen views alone, and the iframe snippet works.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync, gunzipSync } from 'node:zlib';
import { readFile } from 'node:fs/promises';
import { startSite, openPage, load, lastResponse, waitForState, setField, choose, upload, cspViolations, recordWorkerRequests,
  workerRequests } from './helpers.mjs';

/** @type {Awaited<ReturnType<typeof startSite>>} */
let site;

before(async () => {
  site = await startSite();
});

after(async () => {
  await site?.close();
});

/**
 * The parts of a result that say which plan it is.
 * @param {any} result
 */
const planOf = (result) => ({
  pp: result.pp_degree, vpp: result.vpp_degree, m: result.micro_batch_num, schedule: result.schedule,
  stage_layers: result.stage_layers, layer_recompute: result.layer_recompute, step_time_ms: result.step_time_ms,
});

/**
 * Opens the share dialog and returns the link.
 * @param {import('playwright-core').Page} page
 */
async function shareLink(page) {
  await page.click('#share-button');
  await page.locator('#share-dialog[open]').waitFor();
  await page.waitForFunction(() => /** @type {HTMLInputElement} */ (document.getElementById('share-link')).value.includes('#ppb1.'));
  return page.inputValue('#share-link');
}

/** @param {string} text */
const base64url = (text) => Buffer.from(text).toString('base64url');

test('a share link restores the same plan, inputs and theme', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  await setField(page, '#pp-degree', '4');
  await setField(page, '#micro-batch-num', '16');
  await setField(page, '#memory-limit', '50000');
  await page.click('#theme-button'); // auto -> light
  await page.click('#theme-button'); // light -> dark
  const original = planOf((await lastResponse(page)).result);
  const link = await shareLink(page);
  assert.ok(link.startsWith(site.url), link);
  await page.click('#share-dialog button[value=close]');

  const second = await openPage(site.browser);
  await load(second.page, link);
  assert.deepEqual(planOf((await lastResponse(second.page)).result), original);
  assert.equal(await second.page.inputValue('#pp-degree'), '4');
  assert.equal(await second.page.inputValue('#memory-limit'), '50000');
  assert.equal(await second.page.evaluate(() => document.documentElement.dataset.theme), 'dark');
  assert.deepEqual(second.problems, []);

  // An explicit plan from a drag or a search travels too.
  await choose(page, 'partition', 'explicit');
  await setField(page, '#layer-offset', '1, 0, 0, -1');
  const explicit = planOf((await lastResponse(page)).result);
  const link2 = await shareLink(page);
  await load(second.page, link2);
  assert.deepEqual(planOf((await lastResponse(second.page)).result), explicit);
  assert.deepEqual(problems, []);
  await second.context.close();
});

/**
 * The state a link holds, read as the page writes it (base64url of gzip of JSON).
 * @param {string} link
 */
const linkState = (link) => JSON.parse(gunzipSync(Buffer.from(link.slice(link.indexOf('#ppb1.') + 6), 'base64url')).toString('utf8'));

/**
 * The figures the summary shows: the step time and the largest peak, as their exact values.
 * @param {import('playwright-core').Page} page
 */
const shownFigures = async (page) => ({
  step: await page.getAttribute('[data-field="step_time_ms"] output', 'data-value'),
  peak: await page.getAttribute('[data-field="peak_mib"] output', 'data-value'),
});

test('a link made after a balance opens on the same plan at once, by an estimate, and offers to re-balance', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  // The bundled examples, each as PPB balanced it (PPB is the default partition).
  for (const file of ['llama2-70b.json', 'moe-16x.json', 'dense-profiled-24l.json']) {
    if (file !== 'llama2-70b.json') {
      await page.selectOption('#example-select', file);
      await waitForState(page);
    }
    const balanced = (await lastResponse(page)).result;
    assert.ok(balanced.method, `${file}: the plan shown is a balance's`);
    const original = planOf(balanced);
    const figures = await shownFigures(page);
    const link = await shareLink(page);
    await page.click('#share-dialog button[value=close]');
    // The link states the plan: layers per virtual stage and the pipeline's shape as the balance ran them.
    const carried = linkState(link).plan;
    assert.deepEqual(carried.layers, balanced.stage_layers, file);
    assert.deepEqual([carried.pp, carried.vpp, carried.m, carried.schedule],
      [balanced.pp_degree, balanced.vpp_degree, balanced.micro_batch_num, balanced.schedule], file);

    const fresh = await openPage(site.browser);
    await recordWorkerRequests(fresh.page);
    await load(fresh.page, link);
    // No balance ran: one estimate of exactly that plan, and the same plan and figures on screen.
    assert.deepEqual(await workerRequests(fresh.page, 'balance'), [], `${file}: no balance`);
    const estimates = await workerRequests(fresh.page, 'estimate');
    assert.deepEqual(estimates[0].pipeline.stage_layers, balanced.stage_layers, file);
    assert.deepEqual(planOf((await lastResponse(fresh.page)).result), original, file);
    assert.deepEqual(await shownFigures(fresh.page), figures, file);
    // Drawn within a second of being asked for (the link is read while the engine loads; the plan is asked for as
    // soon as it is ready). A reload opens the address, which keeps the plan: again no balance, and the better of the
    // two openings counts, so that a moment of a busy machine does not decide.
    const drawnAfter = () => fresh.page.evaluate(() => {
      const at = (/** @type {string} */ name) => performance.getEntriesByName(name)[0]?.startTime ?? NaN;
      return at('ppb:drawn') - at('ppb:plan-sent');
    });
    const first = await drawnAfter();
    await fresh.page.waitForFunction(() => location.hash.startsWith('#ppb1.'));
    await fresh.page.reload();
    await waitForState(fresh.page);
    assert.deepEqual(await workerRequests(fresh.page, 'balance'), [], `${file}: no balance after a reload`);
    assert.deepEqual(await shownFigures(fresh.page), figures, `${file}: after a reload`);
    const waited = Math.min(first, await drawnAfter());
    assert.ok(waited >= 0 && waited < 1000, `${file}: drawn ${first} ms and after a reload ${waited} ms after it was asked for`);
    // It says where the plan came from, and offers to balance again, which runs PPB on the same inputs.
    assert.equal(await fresh.page.locator('#linked-plan').isVisible(), true, file);
    await fresh.page.click('#rebalance');
    await waitForState(fresh.page);
    assert.equal((await workerRequests(fresh.page, 'balance')).length, 1, `${file}: re-balanced`);
    assert.equal(await fresh.page.locator('#linked-plan').isVisible(), false, file);
    // The balance counts work, not time: the same plan again.
    assert.deepEqual(planOf((await lastResponse(fresh.page)).result), original, file);
    assert.deepEqual(fresh.problems, [], file);
    await fresh.context.close();
  }

  // A link adds little for its plan: llama2-70b's 8 stages and a few recompute runs, a hundred or so characters
  // compressed, where the model is thousands.
  await page.selectOption('#example-select', 'llama2-70b.json');
  await waitForState(page);
  const withPlan = await shareLink(page);
  await page.click('#share-dialog button[value=close]');
  const state = linkState(withPlan);
  delete state.plan;
  const oldLink = withPlan.slice(0, withPlan.indexOf('#')) + '#ppb1.' + gzipSync(Buffer.from(JSON.stringify(state))).toString('base64url');
  assert.ok(withPlan.length - oldLink.length < 300, `the plan costs ${withPlan.length - oldLink.length} characters`);

  // A link without a plan (an older page's) balances, as it always did.
  const old = await openPage(site.browser);
  await recordWorkerRequests(old.page);
  await load(old.page, oldLink);
  assert.equal((await workerRequests(old.page, 'balance')).length, 1, 'an old link balances');
  assert.equal(await old.page.locator('#linked-plan').isVisible(), false);
  assert.deepEqual(old.problems, []);
  await old.context.close();
  assert.deepEqual(problems, []);
});

test('corrupt, cut off, unknown-version and hand-edited links give a message, never a blank page', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  const good = await shareLink(page);
  await page.click('#share-dialog button[value=close]');
  const fragment = good.slice(good.indexOf('#'));
  /** @type {[hash: string, message: RegExp][]} */
  const cases = [
    ['#ppb1.!!not*base64!!', /damaged/],
    [fragment.slice(0, Math.floor(fragment.length / 2)), /cut off|damaged/],
    ['#ppb9.' + fragment.slice(6), /newer version of PPB/],
    ['#ppb1.' + base64url('hello, not gzip'), /damaged or cut off/],
    ['#ppb1.' + gzipSync(Buffer.from('{"not": "json"')).toString('base64url'), /not to the JSON/],
    ['#ppb1.' + gzipSync(Buffer.from('{"settings": {}}')).toString('base64url'), /no model/],
    ['#ppb1.', /no data/],
    ['#ppb', /version tag/],
  ];
  // Opening such a link fresh, and following one on an open page (hashchange), both end in a message.
  for (const [index, [hash, message]] of cases.entries()) {
    const fresh = index < 2;
    const visit = fresh ? await openPage(site.browser) : { page, problems, context: null };
    if (fresh) await visit.page.goto(site.url + hash);
    else await visit.page.evaluate((h) => { location.hash = /** @type {string} */ (h); }, hash);
    await waitForState(visit.page, ['ready']);
    const alert = visit.page.locator('.banner[data-banner="link"][role="alert"]');
    await alert.waitFor();
    assert.equal(await alert.count(), 1, `${hash.slice(0, 30)}: one message`);
    assert.match(await alert.textContent() ?? '', message, hash.slice(0, 30));
    // The page still works: a plan is shown.
    assert.equal(await visit.page.locator('svg#timeline').count(), 1);
    assert.deepEqual(visit.problems, [], hash.slice(0, 30));
    assert.deepEqual(await cspViolations(visit.page), []);
    if (fresh) await visit.context?.close();
    else await page.locator('.banner[data-banner="link"] .banner-close').click();
  }
  assert.deepEqual(problems, []);
});

test('a state too large for a link is offered as a file, and the page opens that file again', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  // 2500 layers with names that do not compress.
  const layers = [];
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648).toString(36).slice(2, 14);
  for (let i = 0; i < 2500; ++i) layers.push({ name: `layer-${random()}${random()}${random()}`, forward_ms: 1, backward_ms: 2, static_mib: 10, activation_mib: 5 });
  const model = { format: 'ppb.model.v1', name: 'big', layers };
  await choose(page, 'partition', 'even'); // PPB over 2500 layers would spend its time budget
  await upload(page, 'big.json', JSON.stringify(model));
  await setField(page, '#pp-degree', '4');
  const plan = planOf((await lastResponse(page)).result);
  await page.click('#share-button');
  const notice = page.locator('#share-too-large');
  await notice.waitFor({ state: 'visible' });
  assert.match(await notice.textContent() ?? '', /too large for a link/);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#share-download')]);
  const stateText = await readFile(await download.path(), 'utf8');
  assert.equal(JSON.parse(stateText).format, 'ppb.state.v1');
  await page.click('#share-dialog button[value=close]');

  const other = await openPage(site.browser);
  await load(other.page, site.url);
  await upload(other.page, 'state.json', stateText);
  assert.deepEqual(planOf((await lastResponse(other.page)).result), plan);
  assert.equal(await other.page.inputValue('#pp-degree'), '4');
  assert.deepEqual(other.problems, []);
  assert.deepEqual(problems, []);
  await other.context.close();
});

test('embed mode shows only the chosen views, without controls', async () => {
  const { page, problems } = await openPage(site.browser, { viewport: { width: 900, height: 420 } });
  await load(page, `${site.url}?embed=1&view=timeline`);
  assert.equal(await page.locator('svg#timeline').isVisible(), true);
  for (const hidden of ['svg#stage-loads', 'svg#memory', '#controls', '.topbar', '#summary']) {
    assert.equal(await page.locator(hidden).isVisible(), false, `${hidden} hidden`);
  }
  // Sized to the frame: the chart fits the viewport without scrolling.
  const box = await page.locator('svg#timeline').boundingBox();
  assert.ok(box && box.width <= 900 && box.y + box.height <= 420, JSON.stringify(box));
  await load(page, `${site.url}?embed=1&view=stage-loads,memory`);
  assert.equal(await page.locator('svg#stage-loads').isVisible(), true);
  assert.equal(await page.locator('svg#memory').isVisible(), true);
  assert.equal(await page.locator('svg#timeline').isVisible(), false);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('the iframe snippet embeds the current state', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  await setField(page, '#pp-degree', '4');
  const expected = planOf((await lastResponse(page)).result);
  await shareLink(page);
  await page.uncheck('#embed-views input[value=timeline]');
  await page.check('#embed-views input[value=stage-loads]');
  await page.waitForFunction(() => /** @type {HTMLTextAreaElement} */ (document.getElementById('embed-snippet')).value.includes('view=stage-loads'));
  const snippet = await page.inputValue('#embed-snippet');
  assert.match(snippet, /^<iframe id="ppb-embed-[0-9a-f]{8}" src="[^"]+\?embed=1&amp;view=stage-loads&amp;height=auto&amp;lang=en#ppb1\.[A-Za-z0-9_-]+"/);
  // Served pages have no note about links that work only on this computer (the single file has).
  assert.equal(await page.locator('#share-local').isVisible(), false);

  const host = await openPage(site.browser);
  await host.page.setContent(`<!doctype html><title>docs</title><h1>Our plan</h1>${snippet}`);
  const frame = await (await host.page.waitForSelector('iframe')).contentFrame();
  assert.ok(frame);
  await frame.waitForFunction(() => document.body.dataset.state === 'ready', undefined, { timeout: 30_000 });
  assert.equal(await frame.locator('svg#stage-loads').isVisible(), true);
  assert.equal(await frame.locator('#controls').isVisible(), false);
  const shown = await frame.evaluate(() => /** @type {any} */ (window).__ppb.last.result);
  assert.deepEqual(planOf(shown), expected);
  assert.deepEqual(host.problems, []);
  assert.deepEqual(problems, []);
});
