// Accessibility checks with axe-core (the npm package, run inside the page): no violation in any state a person
// meets (default, dark, stale, after a search, the share dialog, embeds, a phone), and the stale results keep their
// text contrast at 4.5:1 or more (WCAG 2.1 AA for normal text).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { startSite, openPage, load, waitForState, setField, showTransformerForm, buildPreset } from './helpers.mjs';

const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** @type {Awaited<ReturnType<typeof startSite>>} */
let site;

before(async () => {
  site = await startSite();
});

after(async () => {
  await site?.close();
});

/**
 * The violations axe finds in the page as it stands, one line each (rule, impact, first nodes), for messages.
 * page.evaluate runs outside the page's Content-Security-Policy, so axe needs no exception in it.
 * @param {import('playwright-core').Page | import('playwright-core').Frame} page
 * @returns {Promise<string[]>}
 */
async function violations(page) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  // Transitions (the stale fade) settle before colours are read.
  await page.waitForTimeout(300);
  const found = await page.evaluate(async () => {
    const axe = /** @type {any} */ (window).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((/** @type {any} */ v) => `${v.id} (${v.impact}, ${v.nodes.length}): ` +
      v.nodes.slice(0, 3).map((/** @type {any} */ n) => `${n.target.join(' ')} ${n.failureSummary?.split('\n').slice(1, 2).join('') ?? ''}`).join(' | '));
  });
  return found;
}

test('axe finds no violation in the default view, light and dark', async () => {
  for (const colorScheme of /** @type {const} */ (['light', 'dark'])) {
    const { page, problems, context } = await openPage(site.browser, { colorScheme });
    await load(page, site.url);
    assert.deepEqual(await violations(page), [], colorScheme);
    // The per-stage table open (its scroll box must be reachable by keyboard).
    await page.click('.table-details summary');
    assert.deepEqual(await violations(page), [], `${colorScheme}, per-stage table open`);
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test('axe finds no violation in the stale state; stale text keeps 4.5:1 contrast', async () => {
  for (const colorScheme of /** @type {const} */ (['light', 'dark'])) {
    const { page, problems, context } = await openPage(site.browser, { colorScheme });
    await load(page, site.url);
    await setField(page, '#pp-degree', 'x', ['error']);
    assert.equal(await page.getAttribute('#results', 'data-stale'), 'true');
    assert.deepEqual(await violations(page), [], colorScheme);
    // axe reads the colours of HTML text; the charts' SVG text is checked here: nothing in the results is made
    // transparent (opacity multiplies into every colour and was what dimmed stale text to 2:1).
    const faded = await page.evaluate(() => {
      /** @type {string[]} */
      const out = [];
      for (const node of document.querySelectorAll('#results, #results *')) {
        let opacity = 1;
        for (let at = /** @type {Element | null} */ (node); at; at = at.parentElement) opacity *= Number(getComputedStyle(at).opacity);
        if (opacity < 1 && node.matches('text, span, output, td, th, p, h2, code')) out.push(`${node.tagName}.${node.getAttribute('class')} ${opacity}`);
      }
      return out.slice(0, 5);
    });
    assert.deepEqual(faded, [], colorScheme);
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test('axe finds no violation after a search, nor in the share dialog', async () => {
  const { page, problems, context } = await openPage(site.browser);
  await load(page, site.url);
  await page.click('#search-run');
  await waitForState(page, ['ready'], 60_000);
  await page.locator('#search-table tbody tr').first().waitFor();
  assert.deepEqual(await violations(page), [], 'after a search');
  await page.click('#share-button');
  await page.locator('#share-dialog[open]').waitFor();
  await page.waitForFunction(() => /** @type {HTMLInputElement} */ (document.getElementById('share-link')).value.includes('#ppb1.'));
  assert.deepEqual(await violations(page), [], 'share dialog');
  assert.deepEqual(problems, []);
  await context.close();
});

test('axe finds no violation in embeds of every view', async () => {
  const { page, problems, context } = await openPage(site.browser, { viewport: { width: 900, height: 700 } });
  await load(page, `${site.url}?embed=1&view=summary,stage-loads,timeline,memory,compare`);
  assert.deepEqual(await violations(page), [], 'embed of the plan views');
  assert.deepEqual(problems, []);
  await context.close();
  const dark = await openPage(site.browser, { colorScheme: 'dark', viewport: { width: 900, height: 420 } });
  await load(dark.page, `${site.url}?embed=1&view=timeline`);
  assert.deepEqual(await violations(dark.page), [], 'dark timeline embed');
  assert.deepEqual(dark.problems, []);
  await dark.context.close();
});

test('axe finds no violation on a phone (390 px), with each model source shown', async () => {
  const { page, problems, context } = await openPage(site.browser, { viewport: { width: 390, height: 844 } });
  await load(page, site.url);
  assert.deepEqual(await violations(page), [], 'phone');
  await showTransformerForm(page);
  assert.deepEqual(await violations(page), [], 'phone, transformer form');
  await page.click('label:has(> input[name="model_source"][value="paste"])');
  assert.deepEqual(await violations(page), [], 'phone, the pasted config\'s box');
  assert.deepEqual(problems, []);
  await context.close();
});

test('axe finds no violation with the transformer form shown, nor with a preset built and searched', async () => {
  for (const colorScheme of /** @type {const} */ (['light', 'dark'])) {
    const { page, problems, context } = await openPage(site.browser, { colorScheme });
    await load(page, site.url);
    await showTransformerForm(page);
    assert.deepEqual(await violations(page), [], `${colorScheme}, transformer form`);
    await buildPreset(page, 'Mixtral-8x7B');
    await page.click('#search-run');
    await waitForState(page, ['ready'], 120_000);
    await page.locator('#search-table tbody tr').first().waitFor();
    assert.deepEqual(await violations(page), [], `${colorScheme}, Mixtral-8x7B built and searched`);
    assert.deepEqual(problems, []);
    await context.close();
  }
});
