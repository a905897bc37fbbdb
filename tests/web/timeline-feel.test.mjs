// How the timeline feels under the hand: a drag pans without selecting text, Ctrl + wheel zooms by √2 per notch, and a
// pinch (Ctrl + wheel with small deltas) at the same rate per unit of delta (docs/page.md, "Zoom and pan").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedPage } from './helpers.mjs';

const shared = sharedPage();

/**
 * The timeline's visible time window, once a change has been drawn.
 * @param {import('playwright-core').Page} page
 * @returns {Promise<[number, number]>}
 */
async function shownWindow(page) {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  const text = await page.getAttribute('svg#timeline', 'data-window') ?? '';
  const [a, b] = text.split(',').map(Number);
  return [a, b];
}

/**
 * Ctrl + wheel events at the middle of the timeline, as a mouse notch or a pinch sends them.
 * @param {import('playwright-core').Page} page
 * @param {number[]} deltas deltaY of each event (pixels)
 */
async function ctrlWheel(page, deltas) {
  await page.evaluate((list) => {
    const box = /** @type {HTMLElement} */ (document.getElementById('timeline-box'));
    const rect = box.getBoundingClientRect();
    for (const deltaY of list) {
      box.dispatchEvent(new WheelEvent('wheel', { deltaY, deltaMode: 0, ctrlKey: true, bubbles: true, cancelable: true,
        clientX: rect.left + rect.width / 2, clientY: rect.top + rect.height / 2 }));
    }
  }, deltas);
}

test('dragging the timeline pans it and selects no text', async () => {
  const { page } = shared.open;
  await page.click('#zoom-in');
  const before = await shownWindow(page);
  await page.locator('svg#timeline').scrollIntoViewIfNeeded();
  const box = await page.locator('svg#timeline').boundingBox();
  if (!box) throw new Error('no timeline');
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width * 0.6, y);
  await page.mouse.down();
  for (let step = 1; step <= 10; ++step) await page.mouse.move(box.x + box.width * 0.6 - step * 20, y);
  await page.mouse.up();
  const after = await shownWindow(page);
  // Dragged 200 px to the left: the window moved later in time.
  assert.ok(after[0] > before[0], `panned: ${before} -> ${after}`);
  assert.equal(await page.evaluate(() => document.getSelection()?.toString() ?? ''), '');
  // Not even an empty range left by the drag.
  assert.equal(await page.evaluate(() => { const s = document.getSelection(); return s ? s.rangeCount === 0 || s.isCollapsed : true; }), true);
});

test('a wheel notch zooms by √2, and a pinch at the same rate per unit of delta', async () => {
  const { page } = shared.open;
  await page.click('#zoom-reset');
  const [a0, b0] = await shownWindow(page);
  // Three notches in (deltaY −100 each): the span divided by √2³ = 2.828.
  await ctrlWheel(page, [-100, -100, -100]);
  const [a1, b1] = await shownWindow(page);
  const ratio = (b0 - a0) / (b1 - a1);
  assert.ok(Math.abs(ratio - 2 * Math.SQRT2) < 1e-6, `three notches zoomed ${ratio}×`);
  // A pinch out as long as one notch, in twenty small steps of 5: the span times √2.
  await ctrlWheel(page, Array(20).fill(5));
  const [a2, b2] = await shownWindow(page);
  const pinch = (b2 - a2) / (b1 - a1);
  assert.ok(Math.abs(pinch - Math.SQRT2) < 1e-6, `a notch-long pinch zoomed ${pinch}×`);
});
