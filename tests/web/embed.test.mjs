// Embeds as docs pages use them: a caption naming the plan, a theme parameter, a snippet whose frame takes the
// height of its content, every view meaningful on its own (the scatter runs its search, or says why it cannot),
// "Open in PPB" carrying edits made in the frame, and the comparison's titles clear of each other.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, openPage, load, lastResponse, waitForState, textProblems, example } from './helpers.mjs';

/** @type {Awaited<ReturnType<typeof startSite>>} */
let site;

before(async () => {
  site = await startSite();
});

after(async () => {
  await site?.close();
});

/**
 * The current state as a share link's fragment, through the share dialog.
 * @param {import('playwright-core').Page} page
 */
async function fragmentOf(page) {
  await page.click('#share-button');
  await page.locator('#share-dialog[open]').waitFor();
  await page.waitForFunction(() => /** @type {HTMLInputElement} */ (document.getElementById('share-link')).value.includes('#ppb1.'));
  const link = await page.inputValue('#share-link');
  await page.click('#share-dialog button[value=close]');
  return link.slice(link.indexOf('#'));
}

test('an embed has a caption line naming the model, pp and schedule, and takes a theme parameter', async () => {
  const { page, problems, context } = await openPage(site.browser, { viewport: { width: 900, height: 420 } });
  await load(page, `${site.url}?embed=1&view=timeline`);
  const caption = page.locator('h1#embed-caption');
  assert.equal(await caption.isVisible(), true);
  // The default example's name and the default settings (js/state.js): pp 8, vpp 1, 32 micro batches, 1F1B.
  assert.equal(await caption.textContent(), `${(await example('llama2-70b.json')).name} · pp 8 · vpp 1 · 32 micro batches · 1F1B`);
  // The system is light here; the parameter wins, for the page and the chart.
  await load(page, `${site.url}?embed=1&view=timeline&theme=dark`);
  assert.equal(await page.evaluate(() => document.documentElement.dataset.scheme), 'dark');
  assert.equal(await page.getAttribute('svg#timeline', 'data-theme'), 'dark');
  await load(page, `${site.url}?embed=1&view=timeline&theme=light`);
  assert.equal(await page.getAttribute('svg#timeline', 'data-theme'), 'light');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the snippet\'s frame takes the height of its content', async () => {
  const { page, problems, context } = await openPage(site.browser);
  await load(page, site.url);
  await page.click('#share-button');
  await page.locator('#share-dialog[open]').waitFor();
  for (const view of ['stage-loads', 'memory']) await page.check(`#embed-views input[value=${view}]`);
  await page.selectOption('#embed-theme', 'dark');
  await page.waitForFunction(() => /** @type {HTMLTextAreaElement} */ (document.getElementById('embed-snippet')).value.includes('theme=dark'));
  const snippet = await page.inputValue('#embed-snippet');
  assert.match(snippet, /\?embed=1&amp;view=stage-loads,timeline,memory&amp;theme=dark&amp;height=auto&amp;lang=en#ppb1\./);
  const declared = Number(/height="(\d+)"/.exec(snippet)?.[1]);

  const host = await openPage(site.browser, { viewport: { width: 1000, height: 700 } });
  await host.page.setContent(`<!doctype html><title>docs</title><h1>Our plan</h1><main>${snippet}</main><p id="after">after</p>`);
  const frame = await (await host.page.waitForSelector('iframe')).contentFrame();
  assert.ok(frame);
  await frame.waitForFunction(() => document.body.dataset.state === 'ready', undefined, { timeout: 30_000 });
  // The frame reports its document's height; the listener sizes the iframe to it: nothing inside is cut off.
  const inner = await frame.evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
  await host.page.waitForFunction((h) => Math.abs((document.querySelector('iframe')?.getBoundingClientRect().height ?? 0) - h) <= 1, inner);
  assert.notEqual(inner, declared, 'the height came from the frame, not the snippet');
  const bottoms = await frame.evaluate(() => [...document.querySelectorAll('.embed-shown svg.chart')].map((svg) => svg.getBoundingClientRect().bottom));
  assert.equal(bottoms.length, 3);
  for (const bottom of bottoms) assert.ok(bottom <= inner, `a chart ends at ${bottom}, the frame at ${inner}`);
  assert.equal(await frame.evaluate(() => document.documentElement.dataset.scheme), 'dark');
  assert.deepEqual(host.problems, []);
  assert.deepEqual(problems, []);
  await host.context.close();
  await context.close();
});

test('a scatter embed runs its search, or says why it cannot', async () => {
  const { page, problems, context } = await openPage(site.browser, { viewport: { width: 900, height: 500 } });
  await load(page, `${site.url}?embed=1&view=pareto`);
  await page.locator('svg#pareto .point').first().waitFor({ timeout: 60_000 });
  await waitForState(page, ['ready'], 60_000);
  const searched = await page.evaluate(() => /** @type {any} */ (window).__ppb.search);
  assert.equal(await page.locator('svg#pareto .point').count(), searched.candidates.length);

  // A state whose search lists do not read: the embed says so in words, with the field's path.
  const full = await openPage(site.browser);
  await load(full.page, site.url);
  await full.page.fill('#search-pp', 'two, four');
  const fragment = await fragmentOf(full.page);
  await full.context.close();
  await page.goto(`${site.url}?embed=1&view=pareto${fragment}`);
  await page.waitForFunction(() => /could not run/.test(document.getElementById('search-progress-text')?.textContent ?? ''), undefined, { timeout: 30_000 });
  const status = page.locator('#search-progress-text');
  assert.equal(await status.isVisible(), true);
  assert.match(await status.textContent() ?? '', /\/search\/pp_degree/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('"Open in PPB" carries the embed\'s state, edits included', async () => {
  const { page, problems, context } = await openPage(site.browser, { viewport: { width: 900, height: 600 } });
  await load(page, `${site.url}?embed=1&view=stage-loads`);
  const before = (await lastResponse(page)).result.stage_layers;
  const open = page.locator('#embed-open');
  await page.waitForFunction(() => /#ppb1\./.test(document.getElementById('embed-open')?.getAttribute('href') ?? ''));
  const unedited = await open.getAttribute('href');
  await page.locator('svg#stage-loads .boundary[tabindex="0"]').focus();
  await page.keyboard.press('ArrowRight');
  await waitForState(page);
  const edited = (await lastResponse(page)).result.stage_layers;
  assert.deepEqual(edited.slice(0, 2), [before[0] + 1, before[1] - 1]);
  await page.waitForFunction((b) => document.getElementById('embed-open')?.getAttribute('href') !== b, unedited);
  const href = /** @type {string} */ (await open.evaluate((a) => /** @type {HTMLAnchorElement} */ (a).href));
  assert.ok(!href.includes('embed=1'), href);
  const full = await openPage(site.browser);
  await load(full.page, href);
  assert.deepEqual((await lastResponse(full.page)).result.stage_layers, edited);
  assert.equal(await full.page.locator('#controls').isVisible(), true);
  assert.deepEqual(full.problems, []);
  assert.deepEqual(problems, []);
  await full.context.close();
  await context.close();
});

test('the comparison embed keeps its titles apart, and says so when there is nothing to compare', async () => {
  const { page, problems, context } = await openPage(site.browser, { viewport: { width: 700, height: 500 } });
  await load(page, `${site.url}?embed=1&view=compare`);
  assert.deepEqual(await textProblems(page, ['compare']), []);
  const full = await openPage(site.browser);
  await load(full.page, site.url);
  await full.page.click('label:has(> input[name="partition"][value="even"])');
  await waitForState(full.page);
  const fragment = await fragmentOf(full.page);
  await full.context.close();
  await load(page, `${site.url}?embed=1&view=compare${fragment}`);
  const hint = page.locator('#compare-cards > p');
  assert.equal(await hint.isVisible(), true);
  assert.match(await hint.textContent() ?? '', /compare it with the even split/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a multi-view embed in a small fixed frame keeps each chart readable, scrolls, and clips no control', async () => {
  for (const viewport of [{ width: 700, height: 450 }, { width: 480, height: 320 }]) {
    const { page, problems, context } = await openPage(site.browser, { viewport });
    await load(page, `${site.url}?embed=1&view=summary,timeline,memory`);
    const size = `${viewport.width} x ${viewport.height}`;
    const layout = await page.evaluate(() => {
      const results = /** @type {HTMLElement} */ (document.getElementById('results'));
      const heights = Object.fromEntries(['timeline', 'memory'].map((id) => [id,
        /** @type {Element} */ (document.getElementById(id)).getBoundingClientRect().height]));
      const shown = [...document.querySelectorAll('.view.embed-shown')].map((view) => view.getAttribute('data-view'));
      // Every control a reader can reach: inside the frame's width, and inside the scrolled content's height.
      const controls = [...document.querySelectorAll('a[href], button, [tabindex="0"]')].filter((node) => {
        const box = node.getBoundingClientRect();
        return box.width > 0 && box.height > 0 && getComputedStyle(node).visibility !== 'hidden';
      }).map((node) => {
        const box = node.getBoundingClientRect();
        return { name: node.id || node.textContent?.trim().slice(0, 30) || node.tagName, left: box.left, right: box.right,
          top: box.top + results.scrollTop, bottom: box.bottom + results.scrollTop };
      });
      return { heights, shown, controls, scrollHeight: results.scrollHeight, clientHeight: results.clientHeight,
        overflow: getComputedStyle(results).overflowY, width: document.documentElement.clientWidth };
    });
    assert.deepEqual(layout.shown, ['summary', 'timeline', 'memory'], size);
    for (const [id, height] of Object.entries(layout.heights)) assert.ok(height >= 160, `${size}: ${id} is ${height} px tall`);
    // The three views need more than the frame: the results scroll rather than cut them off.
    assert.ok(layout.scrollHeight > layout.clientHeight, `${size}: the views overflow the frame`);
    assert.equal(layout.overflow, 'auto', size);
    for (const control of layout.controls) {
      assert.ok(control.left >= 0 && control.right <= layout.width + 0.5, `${size}: ${control.name} cut at the sides`);
      assert.ok(control.top >= 0 && control.bottom <= layout.scrollHeight + 0.5, `${size}: ${control.name} below the scrolled content`);
    }
    // The last chart can be scrolled into view whole.
    await page.locator('svg#memory').scrollIntoViewIfNeeded();
    const memory = await page.locator('svg#memory').boundingBox();
    assert.ok(memory && memory.y >= 0 && memory.y + memory.height <= viewport.height + 0.5, `${size}: the memory chart in sight`);
    assert.deepEqual(problems, [], size);
    await context.close();
  }
});
