// Infeasibility explained (issue 17 point 6): with a memory limit no partition can meet, the page says why with the
// numbers and names what would fit, and its button runs the search that finds it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, openPage, load, lastResponse, setField, waitForState, cspViolations, asTable } from './helpers.mjs';

/** @type {Awaited<ReturnType<typeof startSite>>} */
let site;

before(async () => {
  site = await startSite();
});

after(async () => {
  await site?.close();
});

test('an impossible limit names what would fit, and its button runs that search', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  // Llama-2 70B on pp 8 (the default): 2048 MiB reserved and a 6,000 MiB limit.
  assert.equal(await page.inputValue('#reserved'), '2048');
  await setField(page, '#memory-limit', '6000');
  const result = (await lastResponse(page)).result;
  assert.equal(result.feasible, false);
  const inf = result.infeasibility;
  // By hand: the example holds 2 + 4 + 3 bytes per parameter (its document's bytes_per_param: the optimizer
  // sharded over dp 4), half of 18, so 74,027 MiB of static memory in all (148,055 at 18 bytes,
  // docs/search.md), 9,253 MiB a stage; with the reserved memory over the limit, no partition fits...
  assert.ok(inf.static_total_mib / 8 + 2048 > 6000);
  assert.equal(inf.proven, true);
  // ... and a plan needs at least 74,027 / pp + 2048 <= 6,000, so pp >= 19: the smallest pp that fits is no less.
  assert.ok(inf.min_pp_degree >= 19, `min_pp_degree ${inf.min_pp_degree}`);
  const box = page.locator('#infeasibility');
  await box.waitFor();
  assert.match(await box.locator('.infeasibility-title').textContent() ?? '', /^No plan of this shape fits: every plan needs at least [\d,]+ MiB on its largest stage, over the 6,000 MiB limit\.$/);
  assert.equal(await box.locator('.infeasibility-message').textContent(), asTable(inf.message));
  assert.match(inf.message, /static memory alone/);
  assert.equal(await box.locator('li[data-suggests="pp_degree"]').textContent(),
    `pp_degree ${inf.min_pp_degree} is the smallest larger pp_degree at which a plan fits (same schedule and recompute options).`);
  assert.match(await box.locator('li[data-suggests="memory"]').textContent() ?? '', /^A memory limit of [\d,]+ MiB fits/);
  // The search it suggests: on the cluster of 256 devices at tp 8 (32 pipelines of one stage), the pp_degrees from
  // the smallest that fits up that divide 32. With min_pp_degree between 17 and 32 that is 32 alone.
  assert.ok(inf.min_pp_degree > 16 && inf.min_pp_degree <= 32);
  const button = page.locator('#infeasibility-search');
  assert.equal(await button.textContent(), 'Search pp_degree 32 with 1f1b');
  await button.click();
  await waitForState(page, ['ready'], 120_000);
  assert.equal(await page.inputValue('#search-pp'), '32');
  const search = await page.evaluate(() => /** @type {any} */ (window).__ppb.search);
  const top = search.candidates[0];
  assert.equal(top.pp_degree, 32);
  assert.equal(top.schedule, '1f1b');
  assert.equal(top.feasible, true, JSON.stringify(top.reasons));
  assert.ok(top.peak_mib <= 6000);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a search in which nothing fits says why for the candidate closest to fitting, and names what would fit', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  await setField(page, '#memory-limit', '12000');
  // Only pp 8 on the default cluster, 1f1b: by hand as above, static memory alone is over the limit.
  await page.fill('#search-pp', '8');
  for (const schedule of ['interleaved_1f1b', 'zb_h1']) await page.setChecked(`#search-schedules input[value="${schedule}"]`, false);
  await page.setChecked('#search-schedules input[value="1f1b"]', true);
  await page.click('#search-run');
  await waitForState(page, ['ready'], 120_000);
  const search = await page.evaluate(() => /** @type {any} */ (window).__ppb.search);
  assert.equal(search.candidates.filter((/** @type {any} */ c) => c.feasible).length, 0);
  const inf = search.infeasibility;
  assert.ok(inf, 'the search explains why nothing fits');
  const box = page.locator('#search-verdict-box #infeasibility');
  await box.waitFor();
  assert.equal(await box.locator('.infeasibility-message').textContent(), asTable(inf.message));
  // A larger pp fits on this cluster (pp 32 does, the test above), so the smallest is named: above 8, at most 32.
  assert.ok(inf.min_pp_degree > 8 && inf.min_pp_degree <= 32, `min_pp_degree ${inf.min_pp_degree}`);
  assert.match(await box.locator('li[data-suggests="pp_degree"]').textContent() ?? '', new RegExp(`^pp_degree ${inf.min_pp_degree} `));
  assert.equal(await box.locator('#infeasibility-search').count(), 1);
  assert.match(await box.locator('li[data-suggests="memory"]').textContent() ?? '', /^A memory limit of [\d,]+ MiB fits/);
  assert.deepEqual(problems, []);
  await page.context().close();
});
