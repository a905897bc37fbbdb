// Newcomers find their way: the docs are in the site, readable, and linked from the page; a template layer-cost file
// downloads and plans without a warning; the terms a newcomer meets first explain themselves; each bundled example
// opens on the hardware and cluster it states.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { startSite, openPage, load, lastResponse, waitForState, upload, cspViolations } from './helpers.mjs';

/** @type {Awaited<ReturnType<typeof startSite>>} */
let site;

before(async () => {
  site = await startSite();
});

after(async () => {
  await site?.close();
});

test('the docs are in the site as readable pages, linked from the page', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  const href = await page.getAttribute('#docs-link', 'href');
  assert.equal(href, 'docs/index.html');
  assert.equal(await page.locator('#docs-link').isVisible(), true);
  await page.goto(new URL(/** @type {string} */ (href), site.url).href);
  assert.equal(await page.locator('h1').first().textContent(), 'PPB documentation');
  // Every page of the README's documentation table that lies in docs/ is linked and opens as HTML with its heading.
  const links = await page.locator('main a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  for (const name of ['ppb.html', 'search.html', 'contract.html', 'page.html', 'micro-batches.html']) assert.ok(links.includes(name), `${name} in ${links}`);
  await page.click('main a[href="ppb.html"]');
  assert.match(await page.locator('h1').first().textContent() ?? '', /PPB/);
  assert.ok(await page.locator('main table, main pre').count() > 0, 'tables and code are rendered, not raw markdown');
  assert.equal(await page.locator('main').evaluate((m) => m.textContent?.includes('](') ?? false), false, 'no raw markdown links');
  // The markdown source is there too.
  const source = await page.request.get(new URL('docs/ppb.md', site.url).href);
  assert.equal(source.status(), 200);
  assert.match(await source.text(), /^# /);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a template layer-cost file downloads, and it plans with no warning', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#template-download')]);
  assert.equal(download.suggestedFilename(), 'ppb-model-template.json');
  const text = await readFile(/** @type {string} */ (await download.path()), 'utf8');
  const template = JSON.parse(text);
  assert.equal(template.format, 'ppb.model.v1');
  await upload(page, 'ppb-model-template.json', text);
  assert.equal(await page.locator('.import-warnings').count(), 0, 'no import note: every field is one the engine reads');
  assert.equal(await page.locator('[role="alert"]').count(), 0);
  const result = (await lastResponse(page)).result;
  // 1 embedding + 32 decoders + 1 head, every layer placed.
  assert.equal(result.stage_layers.reduce((/** @type {number} */ a, /** @type {number} */ b) => a + b, 0), 34);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('pp_degree, vpp, micro batches, layer_offset, reserved memory and PPB explain themselves', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  const terms = { pp: /pipeline stages/, vpp: /chunks per device/, 'micro-batches': /micro batches/i, reserved: /CUDA context/,
    ppb: /PPB.*recompute/, offset: /even share/ };
  // layer_offset's field shows with its partition mode.
  await page.click('label:has(> input[name="partition"][value="explicit"])');
  await waitForState(page);
  for (const [key, pattern] of Object.entries(terms)) {
    const button = page.locator(`button.help[popovertarget="help-${key}"]`);
    assert.equal(await button.count(), 1, key);
    assert.ok((await button.getAttribute('aria-label'))?.startsWith('About'), key);
    await button.focus();
    await page.keyboard.press('Enter');
    const pop = page.locator(`#help-${key}`);
    await pop.waitFor({ state: 'visible' });
    assert.match(await pop.textContent() ?? '', pattern, key);
    await page.keyboard.press('Escape');
    await pop.waitFor({ state: 'hidden' });
  }
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('each example opens on the hardware and cluster it states', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  // The default example says H100 (80 GB), tp 8 and dp 4: 256 devices at pp 8.
  assert.equal(await page.inputValue('#memory-limit'), '81920');
  assert.equal(await page.inputValue('#dp-degree'), '4');
  assert.equal(await page.inputValue('#search-world'), '256');
  assert.equal(await page.inputValue('#search-tp'), '8');
  assert.equal((await lastResponse(page)).result.stages[0].memory.limit_mib, 81920);
  await page.selectOption('#example-select', 'llama2-7b.json');
  await waitForState(page);
  assert.equal(await page.inputValue('#memory-limit'), '81920');
  assert.equal(await page.inputValue('#dp-degree'), '8');
  assert.equal(await page.inputValue('#search-world'), '128'); // pp 8 x tp 2 x dp 8
  assert.equal(await page.inputValue('#search-tp'), '2');
  // The profiled 24-layer model as examples/README.md quotes it: pp 4, 16 micro batches.
  await page.selectOption('#example-select', 'dense-profiled-24l.json');
  await waitForState(page);
  assert.equal(await page.inputValue('#pp-degree'), '4');
  assert.equal(await page.inputValue('#micro-batch-num'), '16');
  const result = (await lastResponse(page)).result;
  assert.equal(result.pp_degree, 4);
  assert.equal(result.micro_batch_num, 16);
  assert.deepEqual(problems, []);
  await page.context().close();
});
