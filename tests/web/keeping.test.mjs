// The page keeps the work: mode switches keep the plan (PPB -> layer_offset starts from the PPB plan, a schedule
// that needs two chunks gets them), and the address bar always holds the current state, so a reload keeps the
// settings and an uploaded model (by link, or by this tab when the model is too large for a link).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, openPage, load, lastResponse, waitForState, setField, choose, upload, cspViolations, example } from './helpers.mjs';

/** @type {Awaited<ReturnType<typeof startSite>>} */
let site;

before(async () => {
  site = await startSite();
});

after(async () => {
  await site?.close();
});

/**
 * Waits until the address has followed the state: a fragment other than `previous` of the given kind.
 * @param {import('playwright-core').Page} page
 * @param {string} prefix '#ppb1.' or '#ppbtab.'
 * @param {string} [previous]
 */
async function addressFollows(page, prefix, previous = '') {
  await page.waitForFunction(([p, before]) => location.hash.startsWith(p) && location.hash !== before, [prefix, previous], { timeout: 10_000 });
  return page.evaluate(() => location.hash);
}

test('PPB -> layer_offset starts from the PPB plan: the same offsets, recompute and step time', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  // 40 GiB rather than the example's H100 80 GB: PPB then fits Llama-2 70B on pp 8 by recomputing some layers.
  await setField(page, '#memory-limit', '40960');
  const ppb = (await lastResponse(page)).result;
  assert.equal((await lastResponse(page)).command, 'balance');
  // The default example needs recompute to fit (PPB recomputes some layers), so a plan that dropped it would differ.
  assert.ok(Object.values(ppb.layer_recompute).some((layers) => /** @type {number[]} */ (layers).length > 0), 'the PPB plan recomputes');
  await choose(page, 'partition', 'explicit');
  const response = await lastResponse(page);
  assert.equal(response.command, 'estimate');
  const kept = response.result;
  assert.deepEqual(kept.layer_offset, ppb.layer_offset);
  assert.deepEqual(kept.layer_recompute, ppb.layer_recompute);
  assert.equal(kept.step_time_ms, ppb.step_time_ms);
  assert.equal(kept.feasible, ppb.feasible);
  assert.equal(await page.inputValue('#layer-offset'), ppb.layer_offset.join(', '));
  // The counts of the options used are shown per virtual stage.
  for (const [option, layers] of Object.entries(ppb.layer_recompute)) {
    if (/** @type {number[]} */ (layers).length === 0) continue;
    const field = page.locator(`input[name="recompute_count"][data-option="${option}"]`);
    const counts = (await field.inputValue()).split(',').map((t) => Number(t));
    assert.equal(counts.reduce((a, b) => a + b, 0), /** @type {number[]} */ (layers).length, `${option} counts`);
  }
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a schedule that needs two chunks sets vpp_degree 2, and one that runs one chunk sets it back', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  assert.equal(await page.inputValue('#vpp-degree'), '1');
  await page.selectOption('#schedule', 'interleaved_1f1b');
  await waitForState(page);
  assert.equal(await page.inputValue('#vpp-degree'), '2');
  const result = (await lastResponse(page)).result;
  assert.equal(result.schedule, 'interleaved_1f1b');
  assert.equal(result.vpp_degree, 2);
  assert.equal(await page.locator('[role="alert"]').count(), 0);
  assert.match(await page.locator('#schedule-hint').textContent() ?? '', /vpp_degree ≥ 2/);
  await page.selectOption('#schedule', '1f1b');
  await waitForState(page);
  assert.equal(await page.inputValue('#vpp-degree'), '1');
  assert.equal((await lastResponse(page)).result.vpp_degree, 1);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('the address follows every change without adding history, and a reload keeps the settings and the plan', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  let hash = await addressFollows(page, '#ppb1.');
  const entries = await page.evaluate(() => history.length);
  await setField(page, '#pp-degree', '4');
  hash = await addressFollows(page, '#ppb1.', hash);
  await setField(page, '#memory-limit', '50000');
  hash = await addressFollows(page, '#ppb1.', hash);
  await page.fill('#search-pp', '2, 4');
  await addressFollows(page, '#ppb1.', hash);
  assert.equal(await page.evaluate(() => history.length), entries, 'replaced, not pushed');
  const plan = (await lastResponse(page)).result;
  await page.reload();
  await waitForState(page);
  assert.equal(await page.inputValue('#pp-degree'), '4');
  assert.equal(await page.inputValue('#memory-limit'), '50000');
  assert.equal(await page.inputValue('#search-pp'), '2, 4');
  const again = (await lastResponse(page)).result;
  assert.deepEqual(again.stage_layers, plan.stage_layers);
  assert.equal(again.step_time_ms, plan.step_time_ms);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a reload keeps an uploaded model: in the link when it fits, by the tab when it is too large', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  let hash = await addressFollows(page, '#ppb1.');
  const small = await example('dense-8l.json');
  small.name = 'my uploaded model';
  await upload(page, 'mine.json', JSON.stringify(small));
  hash = await addressFollows(page, '#ppb1.', hash);
  await page.reload();
  await waitForState(page);
  assert.equal(await page.locator('#model-name').textContent(), 'my uploaded model');
  assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__ppb.state.model), small);

  // 2500 layers with names that do not compress: too large for a link (32,000 characters).
  const layers = [];
  let seed = 11;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648).toString(36).slice(2, 14);
  for (let i = 0; i < 2500; ++i) layers.push({ name: `layer-${random()}${random()}${random()}`, forward_ms: 1, backward_ms: 2, static_mib: 10, activation_mib: 5 });
  const big = { format: 'ppb.model.v1', name: 'big uploaded model', layers };
  await choose(page, 'partition', 'even');
  await upload(page, 'big.json', JSON.stringify(big));
  hash = await addressFollows(page, '#ppbtab.', hash);
  // Every write takes a new key, so the address after this change is another one.
  await setField(page, '#pp-degree', '4');
  hash = await addressFollows(page, '#ppbtab.', hash);
  const banner = page.locator('[data-banner="kept"]');
  assert.match(await banner.textContent() ?? '', /too large for a share link.*Reload and Back in this tab keep your work/s);
  const plan = (await lastResponse(page)).result;
  await page.reload();
  await waitForState(page);
  assert.equal(await page.locator('#model-name').textContent(), 'big uploaded model');
  assert.equal(await page.inputValue('#pp-degree'), '4');
  const again = (await lastResponse(page)).result;
  assert.deepEqual(again.stage_layers, plan.stage_layers);
  assert.equal(again.step_time_ms, plan.step_time_ms);

  // Elsewhere (another tab has no such state) the address says what it is, and the default example is shown.
  const other = await openPage(site.browser);
  await load(other.page, site.url + hash);
  const alerts = await other.page.locator('[role="alert"]').allTextContents();
  assert.ok(alerts.some((text) => /kept only by the browser tab where it was made/.test(text)), JSON.stringify(alerts));
  assert.equal((await lastResponse(other.page)).ok, true);
  assert.deepEqual(other.problems, []);
  await other.context.close();
  assert.deepEqual(problems, []);
  await page.context().close();
});
