// Shared set-up of the browser tests: serves build/site in-process, launches headless Chromium and opens pages
// that record every console error, page error, dialog and Content-Security-Policy violation, so each test can
// assert that none happened. Needs the built site (build/site with ppb_engine.js/.wasm) and /usr/bin/chromium.
import { access, readFile } from 'node:fs/promises';
import { after, before } from 'node:test';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../tools/serve.mjs';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const siteDir = join(repoRoot, 'build', 'site');
export const examplesDir = join(repoRoot, 'examples');

const CHROMIUM_ARGS = ['--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Headless Chromium with the flags every browser test uses. */
export const launchBrowser = () => chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });

/**
 * Starts the static server and the browser.
 * @returns {Promise<{url: string, browser: import('playwright-core').Browser, close: () => Promise<void>}>}
 */
export async function startSite() {
  await access(join(siteDir, 'ppb_engine.js')).catch(() => {
    throw new Error(`${siteDir} has no ppb_engine.js: build the site (./dev.sh build) first`);
  });
  const { server, url } = await startServer(siteDir, { port: 0 });
  const browser = await launchBrowser();
  return {
    url,
    browser,
    close: async () => {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * @typedef {{page: import('playwright-core').Page, problems: string[], context: import('playwright-core').BrowserContext}} OpenPage
 */

/**
 * A new page (in its own context) that records problems: console errors, uncaught errors, dialogs (alert() from
 * injected markup would open one) and CSP violations (a securitypolicyviolation listener installed before any
 * page script).
 * @param {import('playwright-core').Browser} browser
 * @param {{colorScheme?: 'light' | 'dark', viewport?: {width: number, height: number}, acceptDownloads?: boolean}} [options]
 * @returns {Promise<OpenPage>}
 */
export async function openPage(browser, { colorScheme = 'light', viewport = { width: 1400, height: 1000 }, acceptDownloads = true } = {}) {
  const context = await browser.newContext({ colorScheme, viewport, acceptDownloads });
  await context.addInitScript(() => {
    /** @type {any} */ (window).__csp = [];
    document.addEventListener('securitypolicyviolation', (event) => {
      /** @type {any} */ (window).__csp.push(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  const page = await context.newPage();
  /** @type {string[]} */
  const problems = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.type()} ${dialog.message()}`);
    dialog.dismiss().catch(() => {});
  });
  return { page, problems, context };
}

/**
 * The CSP violations a page has seen.
 * @param {import('playwright-core').Page} page
 * @returns {Promise<string[]>}
 */
export const cspViolations = (page) => page.evaluate(() => /** @type {any} */ (window).__csp ?? []);

/**
 * Waits until body[data-state] is one of the given states, and reports the page's alerts if it does not get there.
 * @param {import('playwright-core').Page} page
 * @param {string[]} [states]
 * @param {number} [timeout]
 */
export async function waitForState(page, states = ['ready'], timeout = 30_000) {
  // Give a just-started change a frame to mark the page busy.
  await page.waitForTimeout(30);
  try {
    await page.waitForFunction((wanted) => wanted.includes(document.body.dataset.state ?? ''), states, { timeout });
  } catch (error) {
    const state = await page.evaluate(() => document.body.dataset.state);
    const alerts = await page.locator('[role="alert"]').allTextContents();
    throw new Error(`page state ${state}, wanted ${states.join('|')}; alerts ${JSON.stringify(alerts)}`, { cause: error });
  }
}

/**
 * Opens the page (optionally a path such as '?embed=1' or '#ppb1....') and waits for it to be ready.
 * @param {import('playwright-core').Page} page
 * @param {string} url
 * @param {string[]} [states]
 */
export async function load(page, url, states = ['ready']) {
  await page.goto(url);
  await waitForState(page, states);
}

/**
 * The last good engine response the page shows (its debug hook).
 * @param {import('playwright-core').Page} page
 * @returns {Promise<any>}
 */
export const lastResponse = (page) => page.evaluate(() => /** @type {any} */ (window).__ppb.last);

/**
 * Reads an example file.
 * @param {string} name
 * @returns {Promise<any>}
 */
export async function example(name) {
  return JSON.parse(await readFile(join(examplesDir, name), 'utf8'));
}

/**
 * Sets a text control the way a person does (select all, type) and waits for the result.
 * @param {import('playwright-core').Page} page
 * @param {string} selector
 * @param {string} value
 * @param {string[]} [states]
 */
export async function setField(page, selector, value, states = ['ready']) {
  await page.fill(selector, value);
  await waitForState(page, states);
}

/**
 * Picks a radio option by clicking its label (the radios of segmented controls are visually hidden).
 * @param {import('playwright-core').Page} page
 * @param {string} name
 * @param {string} value
 * @param {string[]} [states]
 */
export async function choose(page, name, value, states = ['ready']) {
  await page.click(`label:has(> input[name="${name}"][value="${value}"])`);
  await waitForState(page, states);
}

/**
 * Shows the transformer form: the Model panel's second source, chosen as a person does (its label).
 * @param {import('playwright-core').Page} page
 */
export async function showTransformerForm(page) {
  await page.click('label:has(> input[name="model_source"][value="transformer"])');
  await page.locator('#transformer-form').waitFor();
}

/**
 * Builds a preset of the transformer form (showing the form first) and waits for its plan.
 * @param {import('playwright-core').Page} page
 * @param {string} preset
 * @param {string[]} [states]
 */
export async function buildPreset(page, preset, states = ['ready']) {
  if (!(await page.locator('#transformer-form').isVisible())) await showTransformerForm(page);
  await page.selectOption('#tf-preset', preset);
  await page.click('#tf-build');
  await waitForState(page, states, 60_000);
}

/**
 * Records every command the page sends its engine worker (its run messages), before any page script runs;
 * workerRequests reads them back. What the page asks is what the engine answers, whatever the page then shows.
 * @param {import('playwright-core').Page} page
 */
export async function recordWorkerRequests(page) {
  await page.addInitScript(() => {
    /** @type {any[]} */
    const sent = [];
    /** @type {any} */ (window).__sentToWorker = sent;
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (/** @type {any} */ message, /** @type {any} */ ...rest) {
      if (message && message.type === 'run') {
        sent.push({ command: message.command, request: typeof message.request === 'string' ? JSON.parse(message.request) : message.request });
      }
      return post.call(this, message, ...rest);
    };
  });
}

/**
 * The requests of one command the page has sent its worker so far (recordWorkerRequests), oldest first.
 * @param {import('playwright-core').Page} page
 * @param {string} command
 * @returns {Promise<any[]>}
 */
export const workerRequests = (page, command) => page.evaluate((name) =>
  /** @type {any} */ (window).__sentToWorker.filter((/** @type {any} */ m) => m.command === name).map((/** @type {any} */ m) => m.request), command);

/**
 * Uploads a file through input#model-file.
 * @param {import('playwright-core').Page} page
 * @param {string} name shown file name
 * @param {string | Buffer} content text, or the file's bytes
 * @param {string[]} [states]
 */
export async function upload(page, name, content, states = ['ready']) {
  await page.setInputFiles('input#model-file', { name, mimeType: 'application/json', buffer: Buffer.from(content) });
  await waitForState(page, states);
}

/**
 * Text of the charts that leaves its chart, or overlaps other text (axis tick labels aside, which the axes space).
 * @param {import('playwright-core').Page} page
 * @param {string[]} charts svg ids
 */
export const textProblems = (page, charts) => page.evaluate((ids) => {
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

/**
 * Loads the page and sets the timeline's scale case: the even split at pp 32 with 256 micro batches, 16,384
 * operations (the case bench/page-frames.mjs times).
 * @param {import('playwright-core').Page} page
 * @param {string} url
 */
export async function loadAtScale(page, url) {
  await load(page, url);
  await choose(page, 'partition', 'even');
  await setField(page, '#pp-degree', '32');
  await setField(page, '#micro-batch-num', '256');
}

/**
 * @typedef {Awaited<ReturnType<typeof startSite>>} Site
 * @typedef {{site: Site, open: OpenPage}} SharedPage
 */

/**
 * For a test file whose tests share one page: registers the hooks that start the site, open a page and bring it to
 * its starting point (`ready`: by default the page loaded on the default example) before the file's tests, and
 * close the site after them. The object's `site` and `open` are set once the hook has run.
 *   const shared = sharedPage();
 *   test('...', async () => { const { page } = shared.open; ... });
 * @param {(page: import('playwright-core').Page, url: string) => Promise<void>} [ready]
 * @returns {SharedPage}
 */
export function sharedPage(ready = load) {
  const shared = /** @type {SharedPage} */ ({});
  before(async () => {
    shared.site = await startSite();
    shared.open = await openPage(shared.site.browser);
    await ready(shared.open.page, shared.site.url);
  });
  after(async () => {
    await shared.site?.close();
  });
  return shared;
}

/**
 * For a test file whose tests share one page at the timeline's scale case (loadAtScale).
 * @returns {SharedPage}
 */
export const pageAtScale = () => sharedPage(loadAtScale);

/**
 * Makes the page's engine worker die, as the tests of the page's recovery need; the production page has no hook for
 * it, so the test reaches into the worker itself (playwright's worker handle). 'throw': an uncaught error in the
 * worker, which kills it without a word. 'abort': a module call that throws, as an Emscripten abort or a failed
 * allocation does: the worker is handed a call whose request the module's binding refuses (not a string), and its own
 * code reports itself dead.
 * @param {import('playwright-core').Page} page
 * @param {'throw' | 'abort'} how
 */
export async function crashWorker(page, how) {
  const worker = page.workers().at(-1);
  if (!worker) throw new Error('the page has no worker to crash');
  await worker.evaluate((kind) => {
    if (kind === 'abort') {
      self.dispatchEvent(new MessageEvent('message', { data: { type: 'run', id: -1, command: 'estimate', request: 0 } }));
    } else {
      setTimeout(() => {
        throw new Error('crash injected by the test');
      });
    }
  }, how);
}

/**
 * An engine sentence as the page shows it (js/engine-text.js), by the tables' rule written out by hand: whole numbers
 * of four digits or more, and decimals of that size, rounded and grouped by thousands (3640.828 -> 3,641), the rest
 * as the engine wrote it (stage 3, 5%, H100, 1F1B).
 * @param {string} sentence
 * @returns {string}
 */
export const asTable = (sentence) => sentence.replace(/(?<![\w.,])\d{4,}(?:\.\d+)?(?![\w.]*\d)(?![A-Za-z_])/g,
  (n) => Math.round(Number(n)).toLocaleString('en-US'));
