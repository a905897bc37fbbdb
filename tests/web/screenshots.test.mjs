// Screenshots of the main views, light and dark, on a desktop, a phone, in an embed and in Chinese, for people to look at:
// build/screenshots/*.png; and the picture README.md opens with, docs/images/page.png, written here so that it shows
// the page as it is (commit it when it changes). The test checks that each was written and that the page had no
// problem while drawing them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { startSite, openPage, load, waitForState, repoRoot, cspViolations } from './helpers.mjs';

const outDir = join(repoRoot, 'build', 'screenshots');
/** README.md's picture of the page. */
const readmeImage = join(repoRoot, 'docs', 'images', 'page.png');
/** Kept small for the repository: a PNG of the page at 1280 x 800 is about half of this. */
const README_IMAGE_MAX_BYTES = 300 * 1024;

/** @type {Awaited<ReturnType<typeof startSite>>} */
let site;

before(async () => {
  site = await startSite();
  await mkdir(outDir, { recursive: true });
  await mkdir(join(repoRoot, 'docs', 'images'), { recursive: true });
});

test('README.md\'s picture of the page is written from the page as it is', async () => {
  const { page, problems, context } = await openPage(site.browser, { viewport: { width: 1280, height: 800 } });
  await load(page, site.url);
  // The bundled example balanced, the pointer off the charts: what a person sees first.
  await page.mouse.move(0, 0);
  await page.screenshot({ path: readmeImage });
  const png = await readFile(readmeImage);
  // A PNG (its signature), 1280 x 800 (the IHDR chunk's width and height), and small enough to keep in the repository.
  assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [1280, 800]);
  assert.ok(png.length < README_IMAGE_MAX_BYTES, `${png.length} bytes`);
  // README.md opens with it.
  const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
  assert.match(readme.split('\n').slice(0, 3).join('\n'), /!\[[^\]]+\]\(docs\/images\/page\.png\)/);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(problems, []);
  await context.close();
});

after(async () => {
  await site?.close();
});

for (const scheme of /** @type {const} */ (['light', 'dark'])) {
  test(`screenshots of the main views (${scheme})`, async () => {
    const { page, problems, context } = await openPage(site.browser, { colorScheme: scheme, viewport: { width: 1440, height: 1800 } });
    await load(page, site.url);
    await page.click('#search-run');
    await waitForState(page, ['ready'], 60_000);
    /** @type {string[]} */
    const written = [];
    /** @param {string} name @param {import('playwright-core').Locator | null} target */
    const shot = async (name, target) => {
      const path = join(outDir, `${name}-${scheme}.png`);
      if (target) await target.screenshot({ path });
      else await page.screenshot({ path });
      written.push(path);
    };
    await page.mouse.move(0, 0);
    await shot('page', null);
    for (const view of ['stage-loads', 'timeline', 'memory', 'compare', 'search']) {
      await shot(view, page.locator(`.view[data-view="${view}"]`));
    }
    // A zoomed timeline with a tooltip.
    await page.click('#zoom-in');
    await page.click('#zoom-in');
    const box = await page.locator('svg#timeline rect[data-op="B"]').nth(12).boundingBox();
    if (box) await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await shot('timeline-zoomed', page.locator('.view[data-view="timeline"]'));
    // An over-limit plan: the even split with a tight limit.
    await page.click('label:has(> input[name="partition"][value="even"])');
    await waitForState(page);
    await shot('stage-loads-over-limit', page.locator('.view[data-view="stage-loads"]'));
    // In Simplified Chinese (the lang parameter, as a share link from a Chinese page carries it).
    await page.goto(`${site.url}?lang=zh`);
    await waitForState(page);
    await page.mouse.move(0, 0);
    await shot('page-zh', null);
    // On a phone: the top of the page, and the results after the jump bar's "Results".
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(site.url);
    await waitForState(page);
    await shot('phone', null);
    await page.click('nav.jump-bar a[href="#results"]');
    await page.waitForFunction(() => document.activeElement?.id === 'results');
    await shot('phone-results', null);
    // Embedded, in a small frame.
    await page.setViewportSize({ width: 900, height: 480 });
    await page.goto(`${site.url}?embed=1&view=timeline,memory`);
    await waitForState(page);
    await shot('embed', null);
    for (const path of written) assert.ok((await stat(path)).size > 5000, path);
    assert.deepEqual(await cspViolations(page), []);
    assert.deepEqual(problems, []);
    await context.close();
  });
}
