// What keeps the timeline's zoom and pan frames cheap at 16,384 operations, held to what the page must show: a
// chart patched into the old one ends up exactly as a fresh drawing of the same view; at the whole step every
// forward operation is still its own run, where the time scale puts it; the numbers in the paths are written in
// tenths by integer arithmetic; and the debounce helper runs its work once per quiet moment or frame.
// (Frame times themselves are measured by bench/page-frames.mjs, not here: timings belong in benchmarks.)
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { pageAtScale, lastResponse } from './helpers.mjs';
import { decimal, tenths } from '../../web/js/views/timeline.js';
import { debounce } from '../../web/js/debounce.js';

const shared = pageAtScale();

test('numbers in tenths, written by integer arithmetic', () => {
  // Whole tenths as text: 1234 tenths are 123.4; a whole number has no decimal point; the sign is kept.
  assert.equal(decimal(1234), '123.4');
  assert.equal(decimal(1230), '123');
  assert.equal(decimal(7), '0.7');
  assert.equal(decimal(0), '0');
  assert.equal(decimal(-15), '-1.5');
  assert.equal(decimal(-20), '-2');
  // Rounded to the nearest tenth first: 12.34 -> 12.3, 12.35 (12.350000000000001 in binary) -> 12.4, -0.04 -> 0.
  assert.equal(tenths(12.34), '12.3');
  assert.equal(tenths(12.35), '12.4');
  assert.equal(tenths(-0.04), '0');
  assert.equal(tenths(70), '70');
});

test('debounce: one run after calls stop coming, none after cancel, at once with now', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    let runs = 0;
    const work = debounce(() => { runs += 1; }, 150);
    work.schedule();
    mock.timers.tick(100);
    work.schedule(); // starts the wait again
    mock.timers.tick(100);
    assert.equal(runs, 0, '200 ms after the first call but 100 ms after the second');
    assert.equal(work.pending, true);
    mock.timers.tick(50);
    assert.equal(runs, 1);
    assert.equal(work.pending, false);
    work.schedule();
    work.cancel();
    mock.timers.tick(1000);
    assert.equal(runs, 1, 'cancelled');
    work.schedule();
    work.now();
    assert.equal(runs, 2, 'now runs at once');
    mock.timers.tick(1000);
    assert.equal(runs, 2, 'and drops the pending run');
  } finally {
    mock.timers.reset();
  }
});

test('debounce per frame: calls before the next frame join one run', () => {
  /** @type {Map<number, () => void>} */
  const frames = new Map();
  let next = 0;
  const global = /** @type {any} */ (globalThis);
  global.requestAnimationFrame = (/** @type {() => void} */ callback) => { frames.set(++next, callback); return next; };
  global.cancelAnimationFrame = (/** @type {number} */ id) => { frames.delete(id); };
  try {
    let runs = 0;
    const draw = debounce(() => { runs += 1; }, 'frame');
    draw.schedule();
    draw.schedule();
    draw.schedule();
    assert.equal(frames.size, 1, 'one frame requested for three calls');
    for (const callback of frames.values()) callback();
    frames.clear();
    assert.equal(runs, 1);
    draw.schedule();
    draw.cancel();
    assert.equal(frames.size, 0, 'cancel gives the frame back');
  } finally {
    delete global.requestAnimationFrame;
    delete global.cancelAnimationFrame;
  }
});

test('zoom and pan patch the charts in place, and the result is the same as a fresh drawing of the view', async () => {
  const { page } = shared.open;
  const result = (await lastResponse(page)).result;
  assert.equal(result.timeline.length, 32 * 256 * 2, 'pp 32 x 256 micro batches x (F, B)');
  const differences = await page.evaluate(async () => {
    // The page's own modules, as it loaded them (typed from their sources).
    const js = (/** @type {string} */ path) => import(`./js/${path}`);
    const { renderTimeline, indexTimeline } = /** @type {typeof import('../../web/js/views/timeline.js')} */ (await js('views/timeline.js'));
    const { renderMemory } = /** @type {typeof import('../../web/js/views/memory.js')} */ (await js('views/memory.js'));
    const { swapChart } = /** @type {typeof import('../../web/js/views/swap-chart.js')} */ (await js('views/swap-chart.js'));
    const { LIGHT } = /** @type {typeof import('../../web/js/theme.js')} */ (await js('theme.js'));
    const r = /** @type {any} */ (window).__ppb.last.result;
    const pp = r.stages.length;
    const index = indexTimeline(r.timeline, pp, r.step_time_ms);
    const step = r.step_time_ms;
    // Element by element, attributes in name order (a patched element may hold them in another order).
    const canonical = (/** @type {Node} */ node) => {
      if (!(node instanceof Element)) return node.nodeValue ?? '';
      /** @type {string} */
      let out = `<${node.nodeName}${node.getAttributeNames().sort().map((name) => ` ${name}="${node.getAttribute(name)}"`).join('')}>`;
      for (const child of node.childNodes) out += canonical(child);
      return `${out}</${node.nodeName}>`;
    };
    const box = document.createElement('div');
    document.body.append(box);
    // The whole step (runs per stage), a half (runs), a fiftieth (a box per operation) and back: each kind of
    // drawing patched into each other kind.
    /** @type {[number, number][]} */
    const windows = [[0, step], [step * 0.25, step * 0.75], [step * 0.5, step * 0.52], [step * 0.3, step * 0.8], [0, step]];
    /** @type {string[]} */
    const found = [];
    for (const window of windows) {
      const draw = () => renderTimeline(index, { width: 1000, palette: LIGHT, window, pp, vpp: 1 });
      swapChart(box, draw());
      if (canonical(/** @type {Element} */ (box.firstElementChild)) !== canonical(draw())) found.push(`timeline at ${window}`);
      const memory = () => renderMemory(r, { width: 1000, palette: LIGHT, window, shown: new Set([0]) });
      const memoryBox = document.createElement('div');
      document.body.append(memoryBox);
      swapChart(memoryBox, memory());
      swapChart(memoryBox, renderMemory(r, { width: 1000, palette: LIGHT, window: [0, step], highlight: 3 }));
      swapChart(memoryBox, memory());
      if (canonical(/** @type {Element} */ (memoryBox.firstElementChild)) !== canonical(memory())) found.push(`memory at ${window}`);
      memoryBox.remove();
    }
    box.remove();
    return found;
  });
  assert.deepEqual(differences, []);
});

test('at the whole step every forward operation is its own run, placed by the time scale', async () => {
  const { page } = shared.open;
  await page.click('#zoom-reset');
  const result = (await lastResponse(page)).result;
  const step = result.step_time_ms;
  await page.waitForFunction((w) => document.querySelector('svg#timeline')?.getAttribute('data-window') === w, `0,${step}`);
  // The plot spans x0 = 70 (the stage labels' margin) to the chart's width less 18 (js/views/timeline.js).
  const width = Number(await page.getAttribute('svg#timeline', 'width'));
  const [x0, x1] = [70, width - 18];
  const d = /** @type {string} */ (await page.getAttribute('svg#timeline path.op-path[data-op="F"]', 'd'));
  // One path for every stage's forward runs: "M<x> <y>h<w>" starts a stage's row (y: the row's middle), then
  // "m<gap> 0h<w>" for each run after, relative to the end of the one before.
  /** @type {Map<number, number[][]>} */
  const byRow = new Map();
  let pen = 0;
  /** @type {number[][]} */
  let row = [];
  for (const [, move, mx, my, w] of d.matchAll(/([Mm])(-?[\d.]+)[ ,](-?[\d.]+)h([\d.]+)/g)) {
    if (move === 'M') {
      row = [];
      byRow.set(Number(my), row);
    }
    const from = move === 'M' ? Number(mx) : pen + Number(mx);
    row.push([from, from + Number(w)]);
    pen = from + Number(w);
  }
  assert.equal(byRow.size, 32, 'a row of forward runs per stage');
  for (const stage of [0, 17, 31]) {
    // At pp 32 rows are 12 px high with 4 px between them, the first from y = 30 (js/views/timeline.js): the
    // middle of stage s's row is at 36 + 16 s.
    const runs = byRow.get(36 + 16 * stage) ?? [];
    // 1F1B: a stage's forwards are apart (a backward or idle time between two of them after the warm-up, and the
    // warm-up's forwards of one stage run back to back, so they make one run).
    const forwards = result.timeline.filter((/** @type {any} */ op) => op.stage === stage && op.op === 'F')
      .sort((/** @type {any} */ a, /** @type {any} */ b) => a.start_ms - b.start_ms);
    const x = (/** @type {number} */ t) => x0 + (t / step) * (x1 - x0);
    /** @type {number[][]} */
    const expected = [];
    for (const op of forwards) {
      const last = expected[expected.length - 1];
      if (last && x(op.start_ms) - last[1] < 0.5) last[1] = x(op.end_ms);
      else expected.push([x(op.start_ms), x(op.end_ms)]);
    }
    assert.equal(runs.length, expected.length, `stage ${stage}: ${runs.length} forward runs drawn, ${expected.length} expected`);
    runs.forEach(([a, b], i) => {
      // Whole tenths of a pixel: each end within 0.05 px, plus the relative moves' sums (exact in tenths).
      assert.ok(Math.abs(a - expected[i][0]) < 0.1, `stage ${stage} run ${i} starts at ${a}, expected ${expected[i][0]}`);
      assert.ok(Math.abs(b - Math.max(expected[i][1], expected[i][0] + 0.6)) < 0.15, `stage ${stage} run ${i} ends at ${b}, expected ${expected[i][1]}`);
    });
  }
});

test('the memory line of the peak stage, in whole pixels relative to the pen, spans the step and reaches the peak ring', async () => {
  const { page } = shared.open;
  const result = (await lastResponse(page)).result;
  await page.click('#zoom-reset');
  // Both charts are drawn in the same frame: the timeline's window says which.
  await page.waitForFunction((w) => document.querySelector('svg#timeline')?.getAttribute('data-window') === w, `0,${result.step_time_ms}`);
  const peak = Number(await page.getAttribute('svg#memory .memory-peak', 'data-stage'));
  const d = /** @type {string} */ (await page.getAttribute(`svg#memory path.memory-line[data-stage="${peak}"]`, 'd'));
  const ring = Number(await page.getAttribute('svg#memory .memory-peak circle', 'cy'));
  const width = Number(await page.getAttribute('svg#memory', 'width'));
  // "M<x> <y>" then h/v moves of whole pixels.
  const start = /** @type {RegExpMatchArray} */ (d.match(/^M(-?\d+) (-?\d+)/));
  let [x, y] = [Number(start[1]), Number(start[2])];
  let highest = y;
  let [ups, downs] = [0, 0];
  for (const [, command, value] of d.slice(start[0].length).matchAll(/([hv])(-?\d+)/g)) {
    if (command === 'h') {
      assert.ok(Number(value) >= 0, 'time runs left to right');
      x += Number(value);
    } else {
      y += Number(value);
      highest = Math.min(highest, y);
      if (Number(value) < 0) ups += 1;
      else downs += 1;
    }
  }
  // The plot spans x0 = 70 to the width less 18 (js/views/memory.js); the whole step fills it.
  assert.equal(Number(start[1]), 70);
  assert.equal(x, width - 18);
  // The highest point drawn is the peak, where the ring sits (the ring at the exact level, the line on whole pixels).
  assert.ok(Math.abs(highest - ring) <= 0.5, `highest point ${highest}, ring at ${ring}`);
  // 1F1B on 32 stages: the first stage (the peak here) takes one micro batch's activations with each of its 32
  // warm-up forwards and frees one with each of its 32 cool-down backwards; in between each backward frees as the
  // next forward takes, at the same instant, which is drawn as no change. The first forward starts at 0, where the
  // line starts (at the level after it); each of the other 63 steps is its own pixel column at this width (5.5 ms
  // and more apart, about 1.5 px), so each is drawn.
  assert.equal(peak, 0);
  assert.deepEqual({ ups, downs }, { ups: 31, downs: 32 });
});
