// The single-file page (build/site/ppb.html, tools/single-file.mjs) opened from disk: with no server and no
// network it loads its engine from the Blob worker it carries, shows the example it carries, runs a balance, and
// makes no request other than file:, blob: and data: (any other is blocked and fails the test), with no console
// error and no CSP violation. Share links and worker recovery work from the file too.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchBrowser, openPage, waitForState, lastResponse, setField, choose, cspViolations, siteDir, crashWorker } from './helpers.mjs';

const FILE = join(siteDir, 'ppb.html');
const URL_OF_FILE = pathToFileURL(FILE).href;

/** @type {import('playwright-core').Browser} */
let browser;

before(async () => {
  await access(FILE).catch(() => {
    throw new Error(`${FILE} is missing: build the site (./dev.sh build) first`);
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
});

/**
 * A page that records every request and blocks (and records) any that would leave the disk.
 * @returns {Promise<import('./helpers.mjs').OpenPage & {requests: string[], blocked: string[]}>}
 */
async function openOffline() {
  const opened = await openPage(browser);
  /** @type {string[]} */
  const requests = [];
  /** @type {string[]} */
  const blocked = [];
  opened.context.on('request', (request) => requests.push(request.url()));
  await opened.context.route('**/*', (route) => {
    const url = route.request().url();
    if (/^(file|blob|data):/.test(url)) return route.continue();
    blocked.push(url);
    return route.abort('blockedbyclient');
  });
  return { ...opened, requests, blocked };
}

/**
 * @param {string[]} requests
 * @returns {string[]} the schemes used
 */
const schemes = (requests) => [...new Set(requests.map((url) => url.slice(0, url.indexOf(':'))))].sort();

test('the served page loads its modules as one bundle, after the classic boot.js', async () => {
  const html = await readFile(join(siteDir, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/<script([^>]*) src="([^"]+)"><\/script>/g)].map((m) => `${m[1].trim()} ${m[2]}`.trim());
  assert.deepEqual(scripts, ['boot.js', 'type="module" app.bundle.js']);
  assert.doesNotMatch(html, /modulepreload/, 'no module preloads left for modules the bundle holds');
  const bundle = await readFile(join(siteDir, 'app.bundle.js'), 'utf8');
  assert.doesNotMatch(bundle, /^\s*(import|export)\b(?!\s*\()/m, 'no import or export left in the bundle');
  assert.match(bundle, /__ppbModules\["app\.js"\] = /, 'app.js is in it');
});

test('the file carries everything and allows only its own inline script and style', async () => {
  const html = await readFile(FILE, 'utf8');
  const csp = /<meta http-equiv="Content-Security-Policy"\s+content="([^"]*)"/.exec(html)?.[1] ?? '';
  assert.match(csp, /script-src 'sha256-[A-Za-z0-9+/=]+' 'wasm-unsafe-eval';/);
  assert.match(csp, /style-src 'sha256-[A-Za-z0-9+/=]+';/);
  assert.match(csp, /worker-src blob:;/);
  assert.doesNotMatch(csp, /unsafe-inline|'self'|https?:|\*/, 'no inline script by default, no origin at all');
  assert.doesNotMatch(html, /<script[^>]* src=|<link rel="(stylesheet|modulepreload)"/, 'no script or style sheet from a file beside it');
});

test('opened from disk, the page loads its engine, shows its example and runs a balance with no network', async () => {
  const { page, problems, context, requests, blocked } = await openOffline();
  await page.goto(URL_OF_FILE);
  await waitForState(page);
  // The example picker offers only the example the file carries, and that example is shown.
  assert.deepEqual(await page.locator('#example-select option[value]:not([value=""])').evaluateAll(
    (options) => options.map((o) => /** @type {HTMLOptionElement} */ (o).value)), ['dense-8l.json']);
  assert.equal(await page.inputValue('#example-select'), 'dense-8l.json');
  assert.match(await page.locator('#engine-status').textContent() ?? '', /WASM/);

  await setField(page, '#pp-degree', '4');
  await choose(page, 'partition', 'ppb');
  const response = await lastResponse(page);
  assert.equal(response.ok, true);
  assert.equal(response.result.pp_degree, 4);
  assert.equal(await page.locator('svg#stage-loads g.stage').count(), response.result.pp_degree);
  // dense-8l: 8 equal decoder layers and two light pinned layers on 4 stages; the bound is met, so PPB says optimal.
  assert.equal(response.result.method.proven_optimal, true);
  assert.match(await page.locator('#offset-note').textContent() ?? '', /PPB plan, proven optimal/);
  assert.ok(await page.locator('svg#compare').count() > 0, 'PPB is compared with the even split');

  assert.deepEqual(blocked, [], 'no request left the disk');
  assert.deepEqual(schemes(requests).filter((s) => !['blob', 'data', 'file'].includes(s)), []);
  assert.deepEqual(page.workers().map((worker) => worker.url().slice(0, 5)), ['blob:'], 'the worker comes from a Blob URL');
  assert.deepEqual(requests.filter((url) => url.startsWith('file:')), [URL_OF_FILE], 'no file but the page itself is read');
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test('from the file, a share link reopens the state and a dead worker is replaced from the same Blob', async () => {
  const { page, problems, context, blocked } = await openOffline();
  await page.goto(URL_OF_FILE);
  await waitForState(page);
  await setField(page, '#pp-degree', '2');
  await choose(page, 'partition', 'ppb');
  const before = (await lastResponse(page)).result;

  await crashWorker(page, 'throw');
  await page.locator('#engine-status', { hasText: 'restarted' }).waitFor();
  await waitForState(page);
  assert.deepEqual((await lastResponse(page)).result.stage_layers, before.stage_layers);

  await page.click('#share-button');
  await page.waitForFunction(() => /** @type {HTMLInputElement} */ (document.getElementById('share-link')).value.includes('#ppb1.'));
  const link = await page.inputValue('#share-link');
  assert.ok(link.startsWith(`${URL_OF_FILE}?lang=en#ppb1.`), `the link names this file: ${link.slice(0, 80)}`);
  // The dialog says that such links work only on this computer, and offers the state file to send with the page.
  const local = page.locator('#share-local');
  assert.equal(await local.isVisible(), true);
  assert.match(await local.textContent() ?? '', /work only on this computer/);
  assert.ok((await local.textContent() ?? '').includes(FILE), 'names the file');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#share-local-download')]);
  assert.match(download.suggestedFilename(), /\.ppb-state\.json$/);
  await page.click('#share-dialog button[value=close]');
  const second = await context.newPage();
  await second.goto(link);
  await waitForState(second);
  const reopened = (await lastResponse(second)).result;
  assert.deepEqual([reopened.pp_degree, reopened.stage_layers], [2, before.stage_layers]);

  assert.deepEqual(blocked, []);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(await cspViolations(second), []);
  assert.deepEqual(problems, []);
  await context.close();
});
