// Search in the browser: progress moves and cancel stops it with a partial result; a finished search fills the
// ranked table (sortable), the scatter with its Pareto front and the grouped reasons; a row opens its plan; an
// engine module without WorkSession (the binding long work runs through) is refused, not half used.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedPage, lastResponse, waitForState, cspViolations, openPage, load, setField, asTable } from './helpers.mjs';
import { num } from '../../web/js/format.js';

const shared = sharedPage();

/**
 * @param {import('playwright-core').Page} page
 * @param {{pp: string, vpp: string, m: string, schedules: string[]}} lists
 */
async function setLists(page, { pp, vpp, m, schedules }) {
  // No cluster: the micro batch counts are a free list.
  await page.fill('#search-world', '');
  await page.fill('#search-pp', pp);
  await page.fill('#search-m', m);
  for (const schedule of ['gpipe', '1f1b', 'interleaved_1f1b', 'zb_h1']) {
    await page.setChecked(`#search-schedules input[value="${schedule}"]`, schedules.includes(schedule));
  }
  // The chunk list is interleaving's: it takes input only while interleaved_1f1b is searched.
  if (schedules.includes('interleaved_1f1b')) await page.fill('#search-vpp', vpp);
}

/**
 * The rows of the ranked table as shown, with the exact values of their cells.
 * @param {import('playwright-core').Page} page
 */
const tableRows = (page) => page.locator('#search-table tbody tr[data-index]').evaluateAll((trs) => trs.map((tr) => {
  /** @param {string} field */
  const cell = (field) => tr.querySelector(`td[data-field="${field}"]`);
  /** @param {string} field */
  const value = (field) => {
    const raw = cell(field)?.getAttribute('data-value');
    return raw === null || raw === undefined ? null : Number(raw);
  };
  return { index: Number(tr.getAttribute('data-index')), fits: cell('feasible')?.textContent?.startsWith('yes') === true, throughput: value('throughput_samples_per_s'),
    perSample: value('time_per_sample_ms'), gain: cell('gain_ms')?.textContent ?? '', pp: value('pp_degree'), dp: value('dp_degree') };
}));

test('the default search starts from the cluster and its top row has the highest throughput, and says why', async () => {
  const { page, problems } = await openPage(shared.site.browser);
  await load(page, shared.site.url);
  // The default example's cluster: 256 devices, tp 8, a global batch of 256.
  assert.equal(await page.inputValue('#search-world'), '256');
  assert.equal(await page.inputValue('#search-tp'), '8');
  assert.equal(await page.locator('#search-m').isDisabled(), true);
  // The cluster line is the engine's `cluster` answer, shown when it comes: 256 / (8 x 8 x 1) = dp 4, 256 / (1 x 4) = 64.
  const cluster = page.locator('#search-cluster-hint');
  await cluster.filter({ hasText: /at pp 8: dp 4, 64 micro batches/ }).waitFor();
  assert.equal(await page.locator('#search-dp').textContent(), '4 at pp 8');
  // tp 3: pipelines of 8 x 3 x 1 = 24 devices, which 256 is not a multiple of; then back.
  await page.fill('#search-tp', '3');
  await cluster.filter({ hasText: 'At pp 8: 256 devices do not divide into pipelines of pp 8 × tp 3 × cp 1 = 24.' }).waitFor();
  assert.equal(await page.locator('#search-dp').textContent(), '–');
  await page.fill('#search-tp', '8');
  await cluster.filter({ hasText: /at pp 8: dp 4, 64 micro batches/ }).waitFor();
  await page.click('#search-run');
  await waitForState(page, ['ready'], 120_000);
  const result = await page.evaluate(() => /** @type {any} */ (window).__ppb.search);
  assert.equal(result.rank_by, 'throughput');
  const rows = await tableRows(page);
  const fitting = rows.filter((r) => r.fits);
  assert.ok(fitting.length >= 2, `at least two candidates fit: ${fitting.length}`);
  // Every candidate uses the whole cluster: pp x dp x tp (8) = 256 devices, on the same global batch.
  for (const r of rows) if (r.dp !== null) assert.equal(/** @type {number} */ (r.pp) * r.dp * 8, 256, `row ${r.index}`);
  // The top row is the best by the ranked measure: on one cluster and one global batch, throughput; in a tie (the
  // engine's: within search.tie_fraction, 1% by default, of the fastest) the simpler plan, at most 1% slower.
  assert.equal(rows[0].fits, true);
  for (const r of fitting) assert.ok(typeof r.throughput === 'number' && r.throughput > 0, `row ${r.index + 1} has a throughput`);
  // The top row is the engine's winner, and by hand the best by throughput among all that fit (or within 1% of it).
  assert.equal(result.best.candidate, rows[0].index);
  const most = Math.max(...result.candidates.filter((/** @type {any} */ c) => c.feasible).map((/** @type {any} */ c) => c.throughput_samples_per_s));
  if (result.best.tie) assert.ok(/** @type {number} */ (rows[0].throughput) * 1.01 >= most, `row 1 ${rows[0].throughput}, the most ${most}`);
  else assert.equal(rows[0].throughput, most);
  // The gain over the even split only where the even split fits; elsewhere the engine's note says why not.
  for (const r of rows) {
    const c = result.candidates[r.index];
    if (typeof c.gain_ms === 'number') assert.notEqual(r.gain, 'even split does not fit');
    else if (c.even_split && c.even_split.feasible === false) {
      assert.equal(r.gain, 'even split does not fit');
      assert.match(c.gain_note, /^the even split does not fit/);
      // The engine's note, its MiB written as the table writes them (thousands separated: 123456 -> 123,456).
      assert.equal(await page.getAttribute(`#search-table tr[data-index="${r.index}"] td[data-field="gain_ms"]`, 'title'), asTable(c.gain_note));
    }
  }
  const verdict = await page.locator('#search-verdict').textContent() ?? '';
  if (result.best.tie) {
    assert.match(verdict, new RegExp(`^#1 \\(pp \\d+.*is listed first of ${result.best.tied} candidates tied by throughput`));
    assert.match(verdict, /A tie: #1 and #\d+ differ by \d+\.\d %/);
  } else {
    assert.match(verdict, /^#1 \(pp \d+.*ranks first by throughput/);
    assert.match(verdict, /Next: #\d+ \(pp \d+.*behind/);
  }
  // Why it wins, in the engine's words, its figures written as the table writes them (3640.828 ms -> 3,641 ms).
  assert.ok(result.best.reasons.length > 0);
  assert.deepEqual(await page.locator('#search-best-reasons li').allTextContents(), result.best.reasons.map(asTable));
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('without a cluster the search ranks by time per sample, and the top row is the best by it', async () => {
  const { page, problems } = await openPage(shared.site.browser);
  await load(page, shared.site.url);
  await setLists(page, { pp: '4, 8', vpp: '2', m: '16, 32, 64', schedules: ['1f1b', 'zb_h1'] });
  await page.click('#search-run');
  await waitForState(page, ['ready'], 120_000);
  const result = await page.evaluate(() => /** @type {any} */ (window).__ppb.search);
  assert.equal(result.rank_by, 'time_per_sample');
  const fitting = (await tableRows(page)).filter((r) => r.fits);
  assert.ok(fitting.length >= 2);
  for (const r of fitting) assert.ok(/** @type {number} */ (fitting[0].perSample) <= /** @type {number} */ (r.perSample));
  assert.match(await page.locator('#search-verdict').textContent() ?? '', /ranks first by time per sample/);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a tie is said in the verdict\'s words, a tight candidate is marked, and what the estimate leaves out follows', async () => {
  const { page, problems } = await openPage(shared.site.browser);
  await load(page, shared.site.url);
  await page.selectOption('#example-select', 'dense-8l.json');
  await waitForState(page);
  // GPipe and 1F1B run the same forwards and backwards with the same bubble, (p - 1) / (m + p - 1): on the same
  // partition their steps are equally long, a tie well inside the engine's 1%. GPipe holds all 8 micro batches'
  // activations where 1F1B holds at most pp = 2, so its peak is the higher: a limit at that peak / 0.97 leaves it 3%
  // free, less than the 5% memory margin: tight. 1F1B, leaving the margin free, is listed first.
  const search = async () => {
    await setLists(page, { pp: '2', vpp: '', m: '8', schedules: ['gpipe', '1f1b'] });
    await page.click('#search-run');
    await waitForState(page, ['ready'], 60_000);
    return page.evaluate(() => /** @type {any} */ (window).__ppb.search);
  };
  await setField(page, '#memory-limit', '');
  const free = await search();
  const gpipe = free.candidates.find((/** @type {any} */ c) => c.schedule === 'gpipe');
  const onefb = free.candidates.find((/** @type {any} */ c) => c.schedule === '1f1b');
  assert.ok(gpipe.peak_mib > onefb.peak_mib, `GPipe ${gpipe.peak_mib} MiB, 1F1B ${onefb.peak_mib} MiB`);
  await setField(page, '#memory-limit', String(Math.ceil(gpipe.peak_mib / 0.97)));
  const result = await search();
  assert.equal(result.best.tie, true);
  assert.deepEqual(result.candidates.map((/** @type {any} */ c) => [c.schedule, c.tight]), [['1f1b', false], ['gpipe', true]]);
  const verdict = page.locator('#search-verdict');
  assert.match(await verdict.textContent() ?? '', /#1 \(pp 2, 1f1b, 8 micro batches\) is listed first of 2 candidates tied by time per sample/);
  assert.match(await verdict.textContent() ?? '', /A tie: #1 and #2 differ by 0\.0 %, within the estimate's uncertainty/);
  assert.doesNotMatch(await verdict.textContent() ?? '', /behind/);
  assert.equal(await verdict.getAttribute('class'), 'search-verdict tie');
  // The tight one is marked in its row, with why on the cell.
  const fits = await page.locator('#search-table tbody tr td[data-field="feasible"]').allTextContents();
  assert.deepEqual(fits, ['yes', 'yes, tight']);
  assert.equal(await page.locator('#search-table tbody tr.tight').getAttribute('data-index'), '1');
  assert.match(await page.getAttribute('#search-table tr.tight td[data-field="feasible"]', 'title') ?? '', /memory margin/);
  // What the estimate leaves out, under the verdict: the engine's sentences, the tight count among them.
  assert.deepEqual(await page.locator('#search-caveats li').allTextContents(), result.caveats.map(asTable));
  assert.ok(result.caveats.some((/** @type {string} */ c) => /1 candidate shown is tight/.test(c)), result.caveats.join(' | '));
  // The figures the engine does not know (a profiled model has no FLOPs) show as a dash.
  assert.deepEqual(await page.locator('#search-table tbody td[data-field="mfu"]').allTextContents(), ['–', '–']);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('search progress moves and cancel stops it with a partial result', async () => {
  const { page } = shared.open;
  await setLists(page, { pp: '2, 4, 8, 16', vpp: '1, 2, 3, 4', m: '16, 32, 48, 64, 96, 128, 192, 256', schedules: ['gpipe', '1f1b', 'interleaved_1f1b', 'zb_h1'] });
  await page.click('#search-run');
  await waitForState(page, ['busy']);
  /** @type {number[]} */
  const seen = [];
  for (let i = 0; i < 200 && seen.length < 3; ++i) {
    const value = await page.evaluate(() => /** @type {HTMLProgressElement} */ (document.getElementById('search-progress')).value);
    if (value > 0 && value !== seen[seen.length - 1]) seen.push(value);
    await page.waitForTimeout(25);
  }
  assert.ok(seen.length >= 2, `progress moved: ${seen.join(' -> ')}`);
  assert.ok(seen.every((v, i) => i === 0 || v > seen[i - 1]), `progress only grows: ${seen.join(' -> ')}`);
  await page.click('#search-cancel');
  await waitForState(page, ['ready'], 10_000);
  const result = await page.evaluate(() => /** @type {any} */ (window).__ppb.search);
  assert.equal(result.partial, true);
  assert.ok(result.counts.evaluated < result.counts.space - result.counts.skipped, 'stopped before the end');
  assert.match(await page.locator('#search-progress-text').textContent() ?? '', /partial result/);
  assert.equal(await page.locator('#search-run').isDisabled(), false);
});

test('a finished search fills the table, the scatter with its Pareto front, and the grouped reasons', async () => {
  const { page } = shared.open;
  await setLists(page, { pp: '2, 4, 8', vpp: '1, 2', m: '16, 32', schedules: ['1f1b', 'interleaved_1f1b'] });
  await page.click('#search-run');
  await waitForState(page, ['ready'], 60_000);
  const result = await page.evaluate(() => /** @type {any} */ (window).__ppb.search);
  assert.equal(result.partial, false);
  const rows = page.locator('#search-table tbody tr[data-index]');
  assert.equal(await rows.count(), result.candidates.length);
  const plotted = result.candidates.filter((/** @type {any} */ c) => Number.isFinite(c.step_time_ms) && Number.isFinite(c.peak_mib)).length;
  assert.equal(await page.locator('svg#pareto .point').count(), plotted);
  assert.equal(await page.locator('svg#pareto .point.front').count(), result.pareto.length);
  const groups = (result.infeasible_groups?.length ?? 0) + (result.skipped_groups?.length ?? 0);
  assert.equal(await page.locator('#infeasible-groups li').count(), groups);
  // The table shows the engine's ranking: feasible first, by step time.
  const shown = await rows.evaluateAll((trs) => trs.map((tr) => ({
    index: Number(tr.getAttribute('data-index')),
    time: tr.querySelector('td[data-field="step_time_ms"]')?.textContent,
    peak: tr.querySelector('td[data-field="peak_mib"]')?.textContent,
  })));
  assert.deepEqual(shown.map((row) => row.index), result.candidates.map((/** @type {any} */ _, /** @type {number} */ i) => i));
  shown.forEach((row) => {
    const c = result.candidates[row.index];
    assert.equal(row.time, c.step_time_ms === null ? '–' : num(c.step_time_ms), `candidate ${row.index} step time`);
    assert.equal(row.peak, c.peak_mib === null ? '–' : num(c.peak_mib), `candidate ${row.index} peak`);
  });

  // Sorting by peak memory, both ways.
  await page.click('#search-table th button:text-is("peak MiB")');
  let indices = await page.locator('#search-table tbody tr[data-index]').evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-index'))));
  const peaks = indices.map((i) => result.candidates[i].peak_mib ?? Infinity);
  assert.deepEqual(peaks, [...peaks].sort((a, b) => a - b));
  await page.click('#search-table th button:has-text("peak MiB")');
  indices = await page.locator('#search-table tbody tr[data-index]').evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-index'))));
  const descending = indices.map((i) => result.candidates[i].peak_mib).filter((v) => v !== null && v !== undefined);
  assert.deepEqual(descending, [...descending].sort((a, b) => b - a));
  assert.equal(await page.locator('#search-table th[aria-sort="descending"]').count(), 1);
});

test('a row of the table opens its plan in the views', async () => {
  const { page } = shared.open;
  const result = await page.evaluate(() => /** @type {any} */ (window).__ppb.search);
  const index = result.candidates.findIndex((/** @type {any} */ c, /** @type {number} */ i) => c.feasible && i > 0) ;
  assert.ok(index > 0);
  const candidate = result.candidates[index];
  await page.click(`#search-table tbody tr[data-index="${index}"]`);
  await waitForState(page);
  assert.equal(await page.inputValue('#pp-degree'), String(candidate.pp_degree));
  assert.equal(await page.inputValue('#vpp-degree'), String(candidate.vpp_degree));
  assert.equal(await page.inputValue('#micro-batch-num'), String(candidate.micro_batch_num));
  const shown = (await lastResponse(page)).result;
  assert.deepEqual(shown.stage_layers, candidate.plan.stage_layers);
  assert.deepEqual(shown.layer_recompute, candidate.plan.layer_recompute);
  assert.ok(Math.abs(shown.step_time_ms - candidate.step_time_ms) <= 1e-9 * candidate.step_time_ms,
    `step time ${shown.step_time_ms} vs the search's ${candidate.step_time_ms}`);
  assert.equal(await page.locator(`#search-table tbody tr.selected[data-index="${index}"]`).count(), 1);
  assert.equal(await page.locator('svg#pareto .selected').count(), 1);
  // A click on a scatter point opens that plan too.
  const first = result.candidates.findIndex((/** @type {any} */ c) => c.feasible);
  await page.locator(`svg#pareto .point[data-index="${first}"]`).click();
  await waitForState(page);
  assert.deepEqual((await lastResponse(page)).result.stage_layers, result.candidates[first].plan.stage_layers);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(shared.open.problems, []);
});

test('an engine module without WorkSession is refused at load: the page says so and runs nothing', async () => {
  const { page, context, problems } = await openPage(shared.site.browser);
  // The same module with its WorkSession binding (long work in slices) removed, as a build that lost it would be.
  await context.route('**/ppb_engine.js', async (route) => {
    const response = await route.fetch();
    const patch = '\nconst __ppbCreate = createPpbEngine;\n' +
      'createPpbEngine = (options) => __ppbCreate(options).then((module) => { delete module.WorkSession; return module; });\n';
    await route.fulfill({ response, body: `${await response.text()}${patch}` });
  });
  await load(page, shared.site.url, ['error']);
  assert.equal(await page.locator('#engine-status').textContent(), 'Engine not loaded');
  const alerts = await page.locator('[role="alert"]').allTextContents();
  assert.ok(alerts.some((text) => /WorkSession/.test(text)), `an alert names WorkSession: ${JSON.stringify(alerts)}`);
  assert.equal(await lastResponse(page), null);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(problems, []);
  await context.close();
});
