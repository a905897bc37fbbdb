// Phones (390 px wide, an iPhone 12 to 15 in portrait): the page never scrolls sideways, a bar jumps between the
// controls and the results, and the charts' titles and legends wrap inside the chart instead of running off its
// edge or over each other.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, openPage, load, waitForState } from './helpers.mjs';

const PHONE = { width: 390, height: 844 };

/** @type {Awaited<ReturnType<typeof startSite>>} */
let site;

before(async () => {
  site = await startSite();
});

after(async () => {
  await site?.close();
});

/**
 * How wide the document is, and the elements (outside scroll boxes) that reach past the viewport.
 * @param {import('playwright-core').Page} page
 */
const overflow = (page) => page.evaluate(() => {
  const inScrollBox = (/** @type {Element} */ node) => node.closest('.table-scroll') !== null && !node.matches('.table-scroll');
  const wide = [...document.querySelectorAll('body *')]
    .filter((node) => !inScrollBox(node) && node.getBoundingClientRect().right > innerWidth + 0.5 && getComputedStyle(node).display !== 'none')
    .map((node) => `${node.tagName.toLowerCase()}#${node.id}.${node.getAttribute('class') ?? ''}`);
  return { scrollWidth: document.documentElement.scrollWidth, wide: wide.slice(0, 5) };
});

/**
 * Text of the charts that leaves its chart, or overlaps other text (axis tick labels aside, which the axes space).
 * @param {import('playwright-core').Page} page
 * @param {string[]} charts svg ids
 */
const textProblems = (page, charts) => page.evaluate((ids) => {
  /** @type {string[]} */
  const problems = [];
  for (const id of ids) {
    const svg = /** @type {SVGSVGElement | null} */ (document.getElementById(id));
    if (!svg) {
      problems.push(`${id}: missing`);
      continue;
    }
    const width = Number(svg.getAttribute('width'));
    const height = Number(svg.getAttribute('height'));
    const texts = [...svg.querySelectorAll('text')].filter((node) => !node.closest('.axis') && node.textContent);
    const boxes = texts.map((node) => ({ node, box: /** @type {SVGTextElement} */ (node).getBBox() }));
    for (const { node, box } of boxes) {
      if (box.x < -0.5 || box.y < -0.5 || box.x + box.width > width + 0.5 || box.y + box.height > height + 0.5) {
        problems.push(`${id}: "${node.textContent}" leaves the chart (${Math.round(box.x)}, ${Math.round(box.y)}, ${Math.round(box.width)} x ${Math.round(box.height)} in ${width} x ${height})`);
      }
    }
    // Only text drawn in the chart's own layout is compared: labels inside bars and boxes are placed by data.
    const layoutText = boxes.filter(({ node }) => node.closest('.legend') || node.getAttribute('font-weight') === '600' || node.closest('.partition-strip') && !node.hasAttribute('pointer-events'));
    for (let i = 0; i < layoutText.length; ++i) {
      for (let j = i + 1; j < layoutText.length; ++j) {
        const a = layoutText[i].box;
        const b = layoutText[j].box;
        const overlapX = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
        const overlapY = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
        if (overlapX > 1 && overlapY > 1) problems.push(`${id}: "${layoutText[i].node.textContent}" overlaps "${layoutText[j].node.textContent}"`);
      }
    }
  }
  return problems;
}, charts);

test('at 390 px the page does not scroll sideways, before and after a search', async () => {
  const { page, problems, context } = await openPage(site.browser, { viewport: PHONE });
  await load(page, site.url);
  assert.deepEqual(await overflow(page), { scrollWidth: PHONE.width, wide: [] });
  await page.click('.table-details summary');
  assert.deepEqual(await overflow(page), { scrollWidth: PHONE.width, wide: [] }, 'per-stage table open');
  await page.click('#search-run');
  await waitForState(page, ['ready'], 60_000);
  await page.locator('#search-table tbody tr').first().waitFor();
  assert.deepEqual(await overflow(page), { scrollWidth: PHONE.width, wide: [] }, 'after a search');
  assert.deepEqual(problems, []);
  await context.close();
});

test('at 390 px a bar jumps between the controls and the results', async () => {
  const { page, problems, context } = await openPage(site.browser, { viewport: PHONE });
  await load(page, site.url);
  const bar = page.locator('nav.jump-bar');
  assert.equal(await bar.isVisible(), true);
  const before = page.url();
  await bar.getByRole('link', { name: 'Results' }).click();
  await page.waitForFunction(() => document.activeElement?.id === 'results');
  // The results start just under the bar, which stays on screen.
  const resultsTop = await page.evaluate(() => document.getElementById('results')?.getBoundingClientRect().top ?? -1);
  const barBottom = (await bar.boundingBox())?.height ?? 0;
  assert.ok(resultsTop >= barBottom - 1 && resultsTop < barBottom + 40, `results at ${resultsTop}, bar ${barBottom} high`);
  await bar.getByRole('link', { name: 'Inputs' }).click();
  await page.waitForFunction(() => document.activeElement?.id === 'controls');
  assert.ok(await page.locator('#pp-degree').isVisible());
  // The jumps leave the address (which holds the state) alone.
  assert.equal(page.url().includes('#controls') || page.url().includes('#results'), false, page.url());
  assert.ok(page.url().startsWith(before.replace(/#.*$/, '')));
  // On a wide screen the bar is not there.
  await page.setViewportSize({ width: 1400, height: 900 });
  assert.equal(await bar.isVisible(), false);
  assert.deepEqual(problems, []);
  await context.close();
});

test('at 390 px chart titles and legends wrap inside their charts', async () => {
  const { page, problems, context } = await openPage(site.browser, { viewport: PHONE });
  await load(page, site.url);
  assert.deepEqual(await textProblems(page, ['stage-loads', 'timeline', 'memory', 'compare']), []);
  // The strip's title and its caption share no line on a phone.
  const [title, caption] = await page.locator('svg#stage-loads .partition-strip > text').evaluateAll((nodes) =>
    nodes.slice(0, 2).map((node) => Number(node.getAttribute('y'))));
  assert.ok(caption > title, `caption at y ${caption} under the title at ${title}`);
  // And at desktop width they do.
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.waitForFunction(() => Number(document.querySelector('svg#stage-loads')?.getAttribute('width')) > 900);
  const wide = await page.locator('svg#stage-loads .partition-strip > text').evaluateAll((nodes) =>
    nodes.slice(0, 2).map((node) => Number(node.getAttribute('y'))));
  assert.equal(wide[0], wide[1]);
  assert.deepEqual(await textProblems(page, ['stage-loads', 'timeline', 'memory', 'compare']), []);
  assert.deepEqual(problems, []);
  await context.close();
});
