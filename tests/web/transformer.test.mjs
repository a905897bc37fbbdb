// The transformer path: the Model panel's choice between a layer cost file and a transformer description (a radio
// group, by keyboard too, kept in the state and its links).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedPage, waitForState } from './helpers.mjs';

const shared = sharedPage();

/**
 * Which source the Model panel shows: the checked radio, and whether each part is visible.
 * @param {import('playwright-core').Page} page
 */
const shownSource = async (page) => ({
  checked: await page.locator('input[name="model_source"]:checked').getAttribute('value'),
  file: await page.locator('#model-file').isVisible(),
  form: await page.locator('#transformer-form').isVisible(),
  state: await page.evaluate(() => /** @type {any} */ (window).__ppb.state.ui.modelSource),
});

test('the Model panel switches between a file and a transformer, by keyboard too, and links keep the choice', async () => {
  const { page, problems } = shared.open;
  assert.deepEqual(await shownSource(page), { checked: 'file', file: true, form: false, state: 'file' });
  // A radio group: one tab stop, the arrows move the choice.
  await page.focus('input[name="model_source"][value="file"]');
  await page.keyboard.press('ArrowRight');
  assert.deepEqual(await shownSource(page), { checked: 'transformer', file: false, form: true, state: 'transformer' });
  // The form is whole, not folded: its Build button and last field are on screen without opening anything.
  assert.equal(await page.locator('#tf-build').isVisible(), true);
  assert.equal(await page.locator('#tf-device-compute_efficiency').isVisible(), true);
  // The address follows (a share link), and a reload opens on the form.
  await page.waitForFunction(() => location.hash.startsWith('#ppb1.'));
  await page.waitForTimeout(600);
  await page.reload();
  await waitForState(page);
  assert.deepEqual(await shownSource(page), { checked: 'transformer', file: false, form: true, state: 'transformer' });
  await page.focus('input[name="model_source"][value="transformer"]');
  await page.keyboard.press('ArrowLeft');
  assert.deepEqual(await shownSource(page), { checked: 'file', file: true, form: false, state: 'file' });
  assert.deepEqual(problems, []);
});

