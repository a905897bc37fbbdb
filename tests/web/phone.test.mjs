// Phones (390 px wide, an iPhone 12 to 15 in portrait): the page never scrolls sideways, a bar jumps between the
// controls and the results, and the charts' titles and legends wrap inside the chart instead of running off its
// edge or over each other.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, openPage, load, waitForState, setField, textProblems, showTransformerForm, buildPreset } from './helpers.mjs';

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

test('at 390 px the transformer form fits, the three-way model choice on one line, and a built preset\'s search too', async () => {
  const { page, problems, context } = await openPage(site.browser, { viewport: PHONE });
  await load(page, site.url);
  await showTransformerForm(page);
  assert.deepEqual(await overflow(page), { scrollWidth: PHONE.width, wide: [] }, 'transformer form');
  await page.click('label:has(> input[name="model_source"][value="paste"])');
  assert.deepEqual(await overflow(page), { scrollWidth: PHONE.width, wide: [] }, 'the pasted config\'s box');
  await page.click('label:has(> input[name="model_source"][value="transformer"])');
  // The three choices side by side, none wrapped onto a second line.
  const boxes = await page.locator('#model-source label').evaluateAll((labels) => labels.map((l) => l.getBoundingClientRect().toJSON()));
  assert.equal(boxes.length, 3);
  assert.equal(new Set(boxes.map((b) => Math.round(b.top))).size, 1);
  assert.ok(boxes.every((b) => b.height < 40), `one line each: ${boxes.map((b) => b.height)}`);
  await buildPreset(page, 'DeepSeek-V3');
  await page.click('#search-run');
  await waitForState(page, ['ready'], 120_000);
  await page.locator('#search-table tbody tr').first().waitFor();
  assert.deepEqual(await overflow(page), { scrollWidth: PHONE.width, wide: [] }, 'DeepSeek-V3 built and searched');
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

test('at 390 px the timeline\'s note on many operations stays inside the chart, beside the step\'s label', async () => {
  const { page, problems, context } = await openPage(site.browser, { viewport: PHONE });
  await load(page, site.url);
  // pp 8 x 512 micro batches x (F + B) = 8,192 operations, more than the 2,500 drawn one by one: the note says so.
  await setField(page, '#micro-batch-num', '512');
  assert.match(await page.locator('svg#timeline').textContent() ?? '', /8,192 operations in view/);
  assert.deepEqual(await textProblems(page, ['timeline']), []);
  /** @param {Element} node */
  const box = (node) => {
    const { x, width } = /** @type {SVGTextElement} */ (node).getBBox();
    return { x, width };
  };
  const note = await page.locator('svg#timeline text', { hasText: 'operations in view' }).evaluate(box);
  const step = await page.locator('svg#timeline text.step-label').evaluate(box);
  assert.ok(note.x + note.width <= step.x, `the note ends at ${note.x + note.width}, the step's label starts at ${step.x}`);
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
