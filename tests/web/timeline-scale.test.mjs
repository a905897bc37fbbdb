// The timeline and memory chart at 16,384 operations (pp 32 x 256 micro batches of 1F1B): wheel events read no
// layout, a zoom or pan that would show the same window draws nothing, the zoom stops at its limit with every axis
// label distinct, and the memory chart names its peak stage and lets a person pick and highlight stages.
// (Frame times are measured by bench/page-frames.mjs, not here: timings belong in benchmarks.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageAtScale, lastResponse, waitForState } from './helpers.mjs';

const shared = pageAtScale();

/**
 * Sends wheel events to the timeline, one per frame, and counts what they cost: layout reads (the size and
 * position getters that force a layout), and frames in which the charts changed.
 * @param {import('playwright-core').Page} page
 * @param {{ctrlKey?: boolean, shiftKey?: boolean, deltaY: number}[]} events
 */
const wheel = (page, events) => page.evaluate(async (list) => {
  const box = /** @type {HTMLElement} */ (document.getElementById('timeline-box'));
  const rect = box.getBoundingClientRect();
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  await frame();
  await frame();
  let reads = 0;
  /** @type {[object, string, PropertyDescriptor][]} */
  const patched = [];
  const count = (/** @type {any} */ proto, /** @type {string} */ name) => {
    const descriptor = /** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(proto, name));
    patched.push([proto, name, descriptor]);
    if (descriptor.get) {
      const get = descriptor.get;
      Object.defineProperty(proto, name, { ...descriptor, get() { reads += 1; return get.call(this); } });
    } else {
      const fn = descriptor.value;
      Object.defineProperty(proto, name, { ...descriptor, value(/** @type {any[]} */ ...args) { reads += 1; return fn.apply(this, args); } });
    }
  };
  for (const name of ['clientWidth', 'clientHeight', 'clientLeft', 'clientTop', 'scrollWidth', 'scrollHeight']) count(Element.prototype, name);
  for (const name of ['offsetWidth', 'offsetHeight', 'offsetLeft', 'offsetTop']) count(HTMLElement.prototype, name);
  count(Element.prototype, 'getBoundingClientRect');
  count(Element.prototype, 'getClientRects');
  let changed = 0;
  let dirty = false;
  const observer = new MutationObserver(() => { dirty = true; });
  observer.observe(box, { childList: true, subtree: true, attributes: true });
  for (const event of list) {
    box.dispatchEvent(new WheelEvent('wheel', { clientX: rect.left + rect.width / 2, clientY: rect.top + 80, bubbles: true, cancelable: true, ...event }));
    await frame();
    await frame();
    await Promise.resolve();
    if (dirty) changed += 1;
    dirty = false;
  }
  observer.disconnect();
  for (const [proto, name, descriptor] of patched) Object.defineProperty(proto, name, descriptor);
  return { reads, changed };
}, events);

test('16,384 operations: wheel zoom and pan read no layout, and a view that does not change is not drawn again', async () => {
  const { page } = shared.open;
  const result = (await lastResponse(page)).result;
  assert.equal(result.timeline.length, 32 * 256 * 2, 'pp 32 x 256 micro batches x (F, B)');
  // The first event may place the box once; after that nothing is read from layout.
  await wheel(page, [{ ctrlKey: true, deltaY: -60 }]);
  const zooming = await wheel(page, Array.from({ length: 8 }, (_, i) => ({ ctrlKey: true, deltaY: i % 2 ? 60 : -60 })));
  assert.deepEqual(zooming, { reads: 0, changed: 8 });
  const panning = await wheel(page, Array.from({ length: 6 }, () => ({ shiftKey: true, deltaY: 40 })));
  assert.equal(panning.reads, 0);
  assert.ok(panning.changed > 0);
  // At the whole step a pan cannot move and a zoom out cannot widen: nothing is drawn.
  await page.click('#zoom-reset');
  await page.waitForFunction((w) => document.querySelector('svg#timeline')?.getAttribute('data-window') === w, `0,${result.step_time_ms}`);
  const still = await wheel(page, [{ shiftKey: true, deltaY: 40 }, { shiftKey: true, deltaY: -40 }, { ctrlKey: true, deltaY: 80 }]);
  assert.deepEqual(still, { reads: 0, changed: 0 });
});

test('zoom stops at its limit, where every label of the time axes still differs', async () => {
  const { page } = shared.open;
  const result = (await lastResponse(page)).result;
  await page.focus('#timeline-box');
  let previous = '';
  for (let i = 0; i < 40; ++i) {
    await page.keyboard.press('+');
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const window = /** @type {string} */ (await page.getAttribute('svg#timeline', 'data-window'));
    if (window === previous) break;
    previous = window;
  }
  const [a, b] = previous.split(',').map(Number);
  // The limit (js/views/time-zoom.js): a microsecond, or a 20,000th of the step when that is longer.
  const limit = Math.max(result.step_time_ms / 20000, 0.001);
  assert.ok(Math.abs((b - a) - limit) < limit * 1e-6, `span ${b - a} ms at the limit ${limit} ms`);
  for (const chart of ['timeline', 'memory']) {
    const labels = await page.locator(`svg#${chart} .axis-x > text`).allTextContents();
    const ticks = labels.slice(0, -1); // the last is the axis title
    assert.ok(ticks.length >= 3, `${chart}: ${ticks.join(' ')}`);
    assert.equal(new Set(ticks).size, ticks.length, `${chart} axis labels: ${ticks.join(' | ')}`);
  }
  // Past the limit a zoom changes nothing and draws nothing.
  const past = await wheel(page, [{ ctrlKey: true, deltaY: -80 }, { ctrlKey: true, deltaY: -80 }]);
  assert.equal(past.changed, 0);
  assert.ok(past.reads <= 1, 'at most one read: the box is placed again after the keyboard scrolled it into view');
  await page.click('#zoom-reset');
});

test('the memory chart names its peak stage and lets a person pick and highlight stages', async () => {
  const { page } = shared.open;
  const result = (await lastResponse(page)).result;
  /** @type {number} */
  const peak = result.stages.reduce((/** @type {number} */ best, /** @type {any} */ st, /** @type {number} */ i) => (st.memory.peak_mib > result.stages[best].memory.peak_mib ? i : best), 0);
  assert.match(await page.locator('#memory-peak').textContent() ?? '', new RegExp(`^Peak: stage ${peak}, `));
  assert.equal(await page.getAttribute('svg#memory .memory-peak', 'data-stage'), String(peak));
  // 32 stages: past the palette's 8 colours, the peak stage is drawn in colour and the others in grey behind it.
  const drawn = () => page.locator('svg#memory path.memory-line').evaluateAll((paths) => paths.map((p) => Number(p.getAttribute('data-stage'))).sort((x, y) => x - y));
  assert.deepEqual(await drawn(), [peak]);
  assert.equal(await page.locator('svg#memory path.memory-context').count(), 1);
  await page.click('#memory-stages [data-stages="all"]');
  assert.equal(await page.locator('svg#memory path.memory-line').count(), 32);
  assert.equal(await page.locator('svg#memory path.memory-context').count(), 0);
  await page.click('#memory-stages [data-stages="peak"]');
  assert.deepEqual(await drawn(), [peak]);
  const other = peak === 5 ? 6 : 5;
  await page.click(`#memory-stages .stage-chip[data-stage="${other}"]`);
  assert.deepEqual(await drawn(), [peak, other].sort((x, y) => x - y));
  assert.equal(await page.getAttribute(`#memory-stages .stage-chip[data-stage="${other}"]`, 'aria-pressed'), 'true');
  // Focus (or the pointer) on a stage draws it bold over the others.
  await page.focus(`#memory-stages .stage-chip[data-stage="${peak}"]`);
  await page.waitForFunction((s) => document.querySelector('svg#memory path.memory-line.highlighted')?.getAttribute('data-stage') === String(s), peak);
  // Its button again puts it back in grey; "All in colour" colours every stage.
  await page.keyboard.press('Enter');
  assert.deepEqual(await drawn(), [other]);
  await page.click('#memory-stages [data-stages="all"]');
  assert.equal(await page.locator('svg#memory path.memory-line').count(), 32);
  await waitForState(page);
  assert.deepEqual(shared.open.problems, []);
});
