// Results that read at a glance on a 1280 px window: the search table fits without sideways scroll (the columns that
// can go wait behind a toggle, which shows them), and the search scatter keeps its feasible points apart when one
// candidate needs ten times the memory limit (it is drawn off the scale, at the right edge, with its value).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedPage, load, waitForState } from './helpers.mjs';

const shared = sharedPage(async (page, url) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await load(page, url);
});

test('the search table fits a 1280 px window; the columns that can go are one click away', async () => {
  const { page } = shared.open;
  await page.click('#search-run');
  await waitForState(page, ['ready'], 120_000);
  await page.locator('#search-table tbody tr').first().waitFor();
  const widths = () => page.evaluate(() => {
    const box = /** @type {HTMLElement} */ (document.getElementById('search-table-box'));
    return { box: box.clientWidth, content: box.scrollWidth, page: document.documentElement.scrollWidth, window: window.innerWidth };
  });
  const narrow = await widths();
  assert.ok(narrow.content <= narrow.box, `the table is ${narrow.content} px in a ${narrow.box} px box`);
  assert.ok(narrow.page <= narrow.window, 'no sideways scroll of the page');
  // Hidden, not gone: the cells are there for automation; shown on request.
  const gain = page.locator('#search-table tbody tr').first().locator('td[data-field="gain_ms"]');
  assert.equal(await gain.count(), 1);
  assert.equal(await gain.isVisible(), false);
  await page.click('#search-more-columns');
  assert.equal(await page.getAttribute('#search-more-columns', 'aria-expanded'), 'true');
  assert.equal(await page.locator('#search-table tbody tr').first().locator('td[data-field="gain_ms"]').isVisible(), true);
  await page.click('#search-more-columns');
  assert.equal(await page.locator('#search-table tbody tr').first().locator('td[data-field="gain_ms"]').isVisible(), false);
});

test('a candidate needing ten times the limit leaves the feasible points readable', async () => {
  const { page } = shared.open;
  // Five feasible candidates between 50,000 and 70,000 MiB under an 81,920 MiB limit, and one at 877,000 MiB (10.7x
  // the limit). On one linear axis from 50,000 to 877,000 MiB the feasible ones would share 20,000 / 827,000 of the
  // plot, about 20 px of 700; off the scale, the axis spans about 50,000 to 82,000 MiB and they share 60% of it.
  const drawn = await page.evaluate(async () => {
    // The page's own modules, as the page loads them (a path in a variable: they are the page's, not the test's).
    const [pareto, theme] = ['./js/views/pareto.js', './js/theme.js'];
    const { renderPareto } = await import(pareto);
    const { LIGHT } = await import(theme);
    const candidate = (/** @type {number} */ peak, /** @type {number} */ time, /** @type {boolean} */ feasible) => ({
      pp_degree: 8, vpp_degree: 1, micro_batch_num: 32, schedule: '1f1b', feasible, step_time_ms: time, peak_mib: peak,
      bubble_fraction: 0.1, reasons: feasible ? [] : ['stage 0 needs 877000 MiB, limit 81920 MiB (795080 MiB over)'] });
    const candidates = [candidate(50_000, 1400, true), candidate(55_000, 1300, true), candidate(60_000, 1200, true),
      candidate(65_000, 1100, true), candidate(70_000, 1000, true), candidate(877_000, 900, false)];
    const result = { candidates, pareto: [4], counts: { space: 6, evaluated: 6, skipped: 0, infeasible: 1 }, elapsed_ms: 1, partial: false };
    const svg = renderPareto(/** @type {any} */ (result), { width: 800, palette: LIGHT, limit: 81_920 });
    const xs = [...svg.querySelectorAll('.point')].map((point) => ({
      index: Number(point.getAttribute('data-index')), x: Number(point.querySelector('circle')?.getAttribute('cx')),
      offScale: point.classList.contains('off-scale') }));
    return { xs, width: Number(svg.getAttribute('width')), value: svg.querySelector('.outlier-value')?.textContent ?? '' };
  });
  const feasible = drawn.xs.filter((p) => p.index < 5).map((p) => p.x);
  const spread = Math.max(...feasible) - Math.min(...feasible);
  assert.ok(spread >= 200, `the feasible points span ${spread} px`);
  const outlier = drawn.xs.find((p) => p.index === 5);
  assert.ok(outlier?.offScale, 'the outlier is drawn off the scale');
  assert.ok(/** @type {number} */ (outlier?.x) > Math.max(...feasible) && /** @type {number} */ (outlier?.x) <= drawn.width, 'at the right edge');
  assert.equal(drawn.value, 'up to 877,000 MiB');
});

test('a colour means one thing: the compute family\'s colours are not the memory family\'s', async () => {
  const { page } = shared.open;
  const clashes = await page.evaluate(async () => {
    const theme = './js/theme.js';
    const { LIGHT, DARK } = await import(theme);
    return [LIGHT, DARK].flatMap((p) => {
      const compute = { forward: p.forward, backward: p.backward, weight: p.weight, recompute: p.recompute };
      const memory = { weights: p.weights, grads: p.grads, optimizer: p.optimizer, activation: p.activation };
      return Object.entries(compute).flatMap(([c, a]) => Object.entries(memory)
        .filter(([, b]) => a.toLowerCase() === b.toLowerCase()).map(([m]) => `${p.name}: ${c} and ${m} are both ${a}`));
    });
  });
  assert.deepEqual(clashes, []);
  // The stage loads draw both families side by side, each with its legend naming its colours.
  const legends = await page.locator('svg#stage-loads .legend text').allTextContents();
  for (const name of ['forward', 'backward', 'activations', 'weights']) assert.ok(legends.some((text) => text.includes(name)), `${name} in a legend`);
});
