// Exports never change the plan silently: beside the download the page shows what the export does not carry over
// from the plan shown, in the engine's words, or that it states the whole plan.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, openPage, load, lastResponse, setField, cspViolations } from './helpers.mjs';

/** @type {Awaited<ReturnType<typeof startSite>>} */
let site;

before(async () => {
  site = await startSite();
});

after(async () => {
  await site?.close();
});

/**
 * Clicks an export button and waits for its download.
 * @param {import('playwright-core').Page} page
 * @param {string} what
 */
async function exportOf(page, what) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(`[data-export="${what}"]`)]);
  return download.suggestedFilename();
}

test('a plan with selective recompute on some layers: the Megatron export says visibly what it does not carry over', async () => {
  const { page, problems } = await openPage(site.browser);
  await load(page, site.url);
  // Llama-2 70B on pp 8 with 40 GiB: PPB fits it by recomputing some layers selectively, not all of them.
  await setField(page, '#memory-limit', '40960');
  const plan = (await lastResponse(page)).result;
  const selective = plan.layer_recompute.selective ?? [];
  assert.ok(selective.length > 0 && selective.length < 80, `selective recompute on ${selective.length} of 80 layers`);
  assert.match(await exportOf(page, 'megatron'), /megatron-args\.txt$/);
  const notes = page.locator('#export-notes');
  await notes.waitFor({ state: 'visible' });
  // Megatron-LM applies selective recompute to every layer or none (its --recompute-granularity selective), so a
  // plan that recomputes some layers cannot be written as it is: the engine says so and the page shows it.
  const engineNotes = (await page.evaluate(() => /** @type {any} */ (window).__ppb.lastExport)).result.json.notes;
  assert.ok(engineNotes.some((/** @type {string} */ n) => /selective/.test(n)), JSON.stringify(engineNotes));
  assert.deepEqual(await notes.locator('li').allTextContents(), engineNotes);
  assert.match(await notes.locator('p').textContent() ?? '', /does not run exactly the plan shown/);
  assert.equal(await notes.evaluate((node) => node.classList.contains('warn')), true);

  // MindFormers states recompute as the first N layers of each stage, which is what PPB chose here.
  await exportOf(page, 'mindformers');
  const mindformers = (await page.evaluate(() => /** @type {any} */ (window).__ppb.lastExport)).result.json.notes;
  if (mindformers.length === 0) {
    assert.match(await notes.locator('p').textContent() ?? '', /states the plan shown/);
    assert.equal(await notes.locator('li').count(), 0);
  } else {
    assert.deepEqual(await notes.locator('li').allTextContents(), mindformers);
  }
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(problems, []);
  await page.context().close();
});
