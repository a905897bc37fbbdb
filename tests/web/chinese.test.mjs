// The page in Simplified Chinese: picked from the browser's language, switched by the language button, kept in share
// links and embeds; engine errors get a Chinese sentence by code with the engine's text, the code and the path still
// shown. The default page rendered in Chinese has no English left outside data (model names, numbers) and code
// (field names, paths, schedule names, units).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, load, waitForState, setField, cspViolations } from './helpers.mjs';

/** @type {Awaited<ReturnType<typeof startSite>>} */
let site;

before(async () => {
  site = await startSite();
});

after(async () => {
  await site?.close();
});

/**
 * A page whose browser prefers a language.
 * @param {string} locale
 * @param {{width: number, height: number}} [viewport]
 */
async function openIn(locale, viewport = { width: 1400, height: 1000 }) {
  const context = await site.browser.newContext({ locale, viewport });
  const page = await context.newPage();
  /** @type {string[]} */
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  return { page, problems, context };
}

/**
 * Words (three or more Latin letters) in the page's visible text and labels that are not data or code: the model's
 * name and file, contract field names and values (with an underscore or a digit), schedule names, units, and the
 * few names that are the same in Chinese (PPB, JSON, GPipe, MindFormers...). Engine text is marked lang="en".
 * @param {import('playwright-core').Page} page
 */
const englishLeft = (page) => page.evaluate(() => {
  const KEEP = new Set(['PPB', 'JSON', 'SAPP', 'WASM', 'GPipe', 'MindFormers', 'YAML', 'Megatron', 'Chrome', 'trace', 'iframe', 'MiB', 'GiB',
    'SVG', 'PNG', 'CUDA', 'Transformer', 'transformer', 'Shift', 'Ctrl', 'Enter', 'Escape', 'Home', 'End', 'Page', 'Up', 'Down', 'English',
    'ppb', 'model', 'full', 'selective', 'gpipe', 'interleaved', 'top', 'Llama', 'symbolic', 'bf16', 'distributed', 'optimizer', 'over', 'H100',
    'tp', 'cp', 'dp', 'pp', 'vpp', 'state', 'first', 'last', 'Megatron-LM', 'DeepSeek', 'DualPipeV', 'ZB-V', 'zbv', 'dualpipev',
    // The controllable-memory schedules' own names (Qi et al. 2024).
    'V-Half', 'V-Min',
    // Terms Chinese ML engineers write in English.
    'all-to-all', 'MoE', 'FFN', 'GQA', 'MLP', 'SwiGLU', 'dropout', 'token', 'TFLOP', 'rank', 'MFU', 'FLOPs', 'MTP', 'ZeRO',
    // The PyTorch export: the tool, its file format and its module (torch.distributed.pipelining).
    'PyTorch', 'CSV', 'torch', 'pipelining',
    // The torchtitan export: the tool and its config file format.
    'torchtitan', 'TOML',
    // The Hugging Face config file a model can be read from.
    'Hugging', 'Face', 'config', 'json']);
  const name = /** @type {any} */ (window).__ppb.state.model.name ?? '';
  const dataWords = new Set(name.match(/[A-Za-z]+/g) ?? []);
  /** @type {Set<string>} */
  const found = new Set();
  const visible = (/** @type {Element} */ node) => {
    for (let at = /** @type {Element | null} */ (node); at; at = at.parentElement) {
      if (at instanceof HTMLElement && (at.hidden || getComputedStyle(at).display === 'none')) return false;
      if (at.matches('details:not([open]) > :not(summary)')) return false;
    }
    return true;
  };
  const check = (/** @type {string} */ text, /** @type {Element} */ where) => {
    for (const word of text.match(/[A-Za-z][A-Za-z'-]{2,}/g) ?? []) {
      if (KEEP.has(word) || dataWords.has(word)) continue;
      found.add(`${word} (in ${where.tagName.toLowerCase()}${where.id ? `#${where.id}` : ''}: "${text.trim().slice(0, 60)}")`);
    }
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || !node.nodeValue?.trim()) continue;
    if (parent.closest('script, style, code, pre, textarea, option, [lang="en"], [translate="no"], .model-name, select, input')) continue;
    if (!visible(parent)) continue;
    // Words joined by _ or digits are field names and values (pp_degree, layer_offset, 1f1b).
    check(node.nodeValue.replace(/\S*[_\d]\S*/g, ' '), parent);
  }
  for (const element of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
    if (!visible(element) || element.closest('[lang="en"], [translate="no"], [data-title-from="engine"]')) continue;
    for (const attribute of ['aria-label', 'title', 'placeholder']) {
      const value = element.getAttribute(attribute);
      if (value) check(value.replace(/\S*[_\d]\S*/g, ' '), element);
    }
  }
  return [...found].sort();
});

test('a browser that prefers Chinese gets the page in Chinese, with no English left outside data and code', async () => {
  const { page, problems, context } = await openIn('zh-CN');
  await load(page, site.url);
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
  assert.equal(await page.locator('#results h2#stage-loads-title').textContent(), '阶段负载');
  assert.equal(await page.locator('[data-field="step_time_ms"] .metric-label').textContent(), '单步时间');
  assert.deepEqual(await englishLeft(page), []);
  // The per-stage table and the transformer form, opened.
  await page.click('.table-details summary');
  await page.click('label:has(> input[name="model_source"][value="paste"])');
  assert.deepEqual(await englishLeft(page), [], 'per-stage table and the pasted config\'s box');
  await page.click('label:has(> input[name="model_source"][value="transformer"])');
  assert.deepEqual(await englishLeft(page), [], 'per-stage table and transformer form');
  // A preset built: the model's line and everything the built model fills in.
  await page.selectOption('#tf-preset', 'DeepSeek-V3');
  await page.click('#tf-build');
  await waitForState(page, ['ready'], 60_000);
  assert.deepEqual(await englishLeft(page), [], 'a transformer preset built');
  // After a search: the table, its verdict, the scatter, and the engine's sentences (why the winner wins, what does not
  // fit, what the estimate leaves out) in Chinese too: none left English (marked lang="en") in the results.
  await page.click('#search-run');
  await waitForState(page, ['ready'], 60_000);
  await page.locator('#search-table tbody tr').first().waitFor();
  assert.deepEqual(await englishLeft(page), [], 'after a search');
  const englishSentences = await page.locator('#search-verdict [lang="en"], #infeasible-groups [lang="en"], #search-caveats [lang="en"]').allTextContents();
  assert.deepEqual(englishSentences, [], 'the search results\' engine sentences');
  assert.ok(await page.locator('#search-best-reasons li').count() > 0, 'the winner\'s reasons are shown');
  // The share dialog.
  await page.click('#share-button');
  await page.waitForFunction(() => /** @type {HTMLInputElement} */ (document.getElementById('share-link')).value.includes('#ppb1.'));
  assert.deepEqual(await englishLeft(page), [], 'share dialog');
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test('an English browser gets English; the button switches to Chinese and a share link keeps it', async () => {
  const { page, problems, context } = await openIn('en-US');
  await load(page, site.url);
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
  assert.equal(await page.locator('#stage-loads-title').textContent(), 'Stage loads');
  await page.click('#lang-button');
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN' && document.body.dataset.state === 'ready', undefined, { timeout: 30_000 });
  assert.equal(await page.locator('#stage-loads-title').textContent(), '阶段负载');
  // The share link carries the language to an English browser.
  await page.click('#share-button');
  await page.waitForFunction(() => /** @type {HTMLInputElement} */ (document.getElementById('share-link')).value.includes('#ppb1.'));
  const link = await page.inputValue('#share-link');
  const snippet = await page.inputValue('#embed-snippet');
  assert.match(snippet, /&amp;lang=zh#ppb1\./);
  const other = await openIn('en-US');
  await load(other.page, link);
  assert.equal(await other.page.locator('#stage-loads-title').textContent(), '阶段负载');
  // An embed's lang parameter wins over the browser.
  await load(other.page, `${site.url}?embed=1&view=timeline&lang=zh`);
  assert.match(await other.page.locator('h1#embed-caption').textContent() ?? '', /个微批次/);
  assert.deepEqual(other.problems, []);
  await other.context.close();
  assert.deepEqual(problems, []);
  await context.close();
});

test('an engine error reads in Chinese by its code, with the engine\'s text, the code and the path', async () => {
  const { page, problems, context } = await openIn('zh-CN');
  await load(page, site.url);
  await setField(page, '#pp-degree', '0', ['error']);
  const alert = page.locator('.field:has(#pp-degree) [role="alert"]');
  await alert.waitFor();
  assert.equal(await alert.locator('.error-sentence').textContent(), 'pp_degree 必须至少为 1。');
  assert.equal(await alert.locator('.engine-text').getAttribute('lang'), 'en');
  assert.match(await alert.locator('.engine-text').textContent() ?? '', /pp_degree/);
  assert.equal(await alert.locator('.error-code').textContent(), await alert.getAttribute('data-code'));
  assert.equal(await alert.locator('.error-path').textContent(), '/pipeline/pp_degree');
  // The stale banner and mark are Chinese too.
  assert.match(await page.locator('.banner[data-banner="stale"]').textContent() ?? '', /输入有错误/);
  await waitForState(page, ['error']);
  // And so is what a broken link says.
  await page.goto(`${site.url}?lang=zh#ppb1.`);
  await waitForState(page);
  assert.match(await page.locator('.banner[data-banner="link"]').textContent() ?? '', /^链接不完整：只有版本标记，没有数据。 页面改为显示默认示例。/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('why a plan cannot fit reads in Chinese, and a link\'s plan is said in Chinese', async () => {
  const { page, problems, context } = await openIn('zh-CN');
  await load(page, site.url);
  // 6,000 MiB cannot hold the default example's static memory on 8 stages (tests/web/infeasibility.test.mjs).
  await setField(page, '#memory-limit', '6000');
  const box = page.locator('#infeasibility');
  await box.waitFor();
  assert.deepEqual(await box.locator('[lang="en"]').allTextContents(), [], 'no English sentence in the explanation');
  assert.match(await box.locator('.infeasibility-message').textContent() ?? '', /^切分成 8 个阶段都放不下/);
  assert.deepEqual(await englishLeft(page), []);
  // A link made now carries the PPB plan; opened, it says so in Chinese, with its button.
  await page.click('#share-button');
  await page.waitForFunction(() => /** @type {HTMLInputElement} */ (document.getElementById('share-link')).value.includes('#ppb1.'));
  const link = await page.inputValue('#share-link');
  const other = await openIn('zh-CN');
  await load(other.page, link);
  await other.page.locator('#linked-plan').waitFor();
  assert.equal(await other.page.locator('#rebalance').textContent(), '重新均衡');
  assert.deepEqual(await englishLeft(other.page), []);
  assert.deepEqual(other.problems, []);
  await other.context.close();
  assert.deepEqual(problems, []);
  await context.close();
});
