// The WASM module as the page's worker calls it (build/wasm/wasm/ppb_engine.js, after ./dev.sh build): long work
// (a balance, a search) through the one WorkSession, with the engine's progress JSON in one shape between slices and
// at the end the same response text as the module's command; and the rules the page takes from the engine rather
// than keeping its own: the schedules' chunk counts (schedules(), which web/js/schedules.js names and reads) and
// what a cluster gives a pp_degree (`cluster`). The engine behind it is tested in C++
// (tests/engine/work_session_test.cpp, balance_session_test.cpp); this checks the binding.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCHEDULE_INFO, vppForSchedule } from '../web/js/schedules.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const moduleJs = join(root, 'build', 'wasm', 'wasm', 'ppb_engine.js');
const moduleWasm = join(root, 'build', 'wasm', 'wasm', 'ppb_engine.wasm');

/** @type {any} */
let engine = null;
before(async () => {
  const createPpbEngine = createRequire(import.meta.url)(moduleJs);
  engine = await createPpbEngine({ wasmBinary: readFileSync(moduleWasm) });
});

// Embedding, 8 decoders with full and selective recompute, head, over 4 stages, 16 micro batches,
// under a limit that makes the early stages recompute (as balance_session_test.cpp).
const request = JSON.stringify({
  model: {
    layers: [
      { name: 'embedding', pin: 'first', forward_ms: 6, backward_ms: 12, static_mib: 100 },
      {
        name: 'decoder', count: 8, forward_ms: 2, backward_ms: 4, static_mib: 100, activation_mib: 100,
        recompute: { full: { activation_mib: 10, extra_ms: 2 }, selective: { activation_mib: 60, extra_ms: 0.5 } },
      },
      { name: 'head', pin: 'last', forward_ms: 8, backward_ms: 16, static_mib: 100 },
    ],
  },
  device: { memory_limit_mib: 1000, p2p_bandwidth_gbs: 25, p2p_latency_ms: 0.02 },
  pipeline: { pp_degree: 4, micro_batch_num: 16 },
});

/** The one progress shape (docs/contract.md, "Progress"), keys as the engine writes them (sorted). */
const PROGRESS_KEYS = ['command', 'done', 'finished', 'incumbent_ms', 'lower_bound_ms', 'phase', 'simulations', 'total'];

test('the module runs balance and search in slices, and nothing else', () => {
  assert.deepEqual(JSON.parse(engine.slicedCommands()), ['balance', 'search']);
  const session = new engine.WorkSession('estimate', request);
  try {
    const error = JSON.parse(session.error());
    assert.equal(error.ok, false);
    assert.equal(error.errors[0].code, 'COMMAND_UNKNOWN');
    assert.match(error.errors[0].message, /"estimate" does not run in slices; the commands that do: balance, search/);
    assert.equal(session.bestSoFar(), '');
  } finally {
    session.delete();
  }
});

test('WorkSession runs a balance in slices and answers as balance, with the one progress shape between slices', () => {
  const session = new engine.WorkSession('balance', request);
  try {
    assert.equal(session.error(), '');
    /** @type {import('../web/js/types.js').Progress[]} */
    const progress = [];
    for (;;) {
      const p = JSON.parse(session.step(0));
      progress.push(p);
      if (p.finished) break;
    }
    assert.ok(progress.length > 10, `${progress.length} slices`);
    for (const p of progress) {
      assert.deepEqual(Object.keys(p), PROGRESS_KEYS);
      assert.equal(p.command, 'balance');
      assert.equal(p.total, null, 'a branch and bound has no known total');
      assert.equal(typeof p.simulations, 'number');
      assert.ok(p.incumbent_ms === null || typeof p.incumbent_ms === 'number');
      assert.ok(p.lower_bound_ms === null || (typeof p.lower_bound_ms === 'number' && p.incumbent_ms !== null
        && p.lower_bound_ms <= p.incumbent_ms));
    }
    const answer = session.result(false);
    assert.equal(answer, engine.balance(request));
    const last = progress[progress.length - 1];
    const method = JSON.parse(answer).result.method;
    assert.equal(last.phase, 'done');
    assert.equal(method.proven_optimal, true);
    assert.equal(last.lower_bound_ms, method.lower_bound_ms);
    assert.equal(last.done, method.nodes);
    assert.equal(last.simulations, method.simulations);
  } finally {
    session.delete();
  }
});

test('a balance cancelled between slices answers with its best plan so far', () => {
  const session = new engine.WorkSession('balance', request);
  try {
    let p;
    do p = JSON.parse(session.step(0));
    while (p.incumbent_ms === null);
    assert.equal(p.finished, false);
    const result = JSON.parse(session.result(true)).result;
    assert.equal(result.method.proven_optimal, false);
    assert.equal(result.method.notes.at(-1), 'the balance was cancelled before it finished');
    assert.equal(result.step_time_ms, p.incumbent_ms);
  } finally {
    session.delete();
  }
});

test('WorkSession refuses an invalid request as the command does', () => {
  const bad = JSON.stringify({ ...JSON.parse(request), pipeline: { pp_degree: 'four' } });
  const session = new engine.WorkSession('balance', bad);
  try {
    assert.equal(session.error(), engine.balance(bad));
    assert.equal(JSON.parse(session.step(10)).finished, true);
    assert.equal(session.result(false), session.error());
  } finally {
    session.delete();
  }
});

test('a balance gives its best plan so far while it goes on, and its answer is unchanged by asking', () => {
  const session = new engine.WorkSession('balance', request);
  try {
    let asked = 0;
    for (;;) {
      const p = JSON.parse(session.step(0));
      if (p.finished) break;
      if (p.incumbent_ms === null) continue;
      const interim = JSON.parse(session.bestSoFar()).result;
      assert.equal(interim.step_time_ms, p.incumbent_ms);
      assert.equal(interim.method.proven_optimal, false);
      assert.equal(interim.method.notes.at(-1), 'the balance is still running; this is the best plan so far');
      asked += 1;
    }
    assert.ok(asked > 0);
    assert.equal(session.result(false), engine.balance(request));
    assert.equal(session.bestSoFar(), session.result(false));
  } finally {
    session.delete();
  }
});

test('WorkSession runs a search in slices with the same progress shape: candidates done of the space', () => {
  // pp 1, 2 and 4 with 16 micro batches under 1f1b: three combinations, each of which runs (16 >= every pp).
  // Each candidate's balance gets time to finish, so that the two runs compared below find the same plans
  // on a busy machine too (a balance cut by its clock may stop at another plan).
  const searched = JSON.stringify({ ...JSON.parse(request), pipeline: undefined,
    search: { pp_degree: [1, 2, 4], micro_batch_num: [16], schedule: ['1f1b'], candidate_time_ms: 60000 } });
  const session = new engine.WorkSession('search', searched);
  try {
    assert.equal(session.error(), '');
    /** @type {import('../web/js/types.js').Progress[]} */
    const progress = [];
    for (;;) {
      const p = JSON.parse(session.step(0));
      progress.push(p);
      if (p.finished) break;
    }
    // At least one candidate a slice: three slices, the last one finished.
    assert.deepEqual(progress.map((p) => [p.done, p.total, p.phase, p.finished]),
      [[1, 3, 'candidates', false], [2, 3, 'candidates', false], [3, 3, 'done', true]]);
    for (const p of progress) {
      assert.deepEqual(Object.keys(p), PROGRESS_KEYS);
      assert.deepEqual([p.command, p.simulations, p.incumbent_ms, p.lower_bound_ms], ['search', null, null, null]);
    }
    assert.equal(session.bestSoFar(), '', 'a search has no plan so far');
    const answer = JSON.parse(session.result(false)).result;
    const direct = JSON.parse(engine.search(searched)).result;
    assert.deepEqual(answer.counts, direct.counts);
    assert.deepEqual(answer.candidates, direct.candidates);
  } finally {
    session.delete();
  }
});

test('the engine\'s schedules are the page\'s, with the chunk counts each runs', () => {
  const { schedules } = JSON.parse(engine.schedules());
  // The page offers every schedule the engine runs, in its order (web/js/schedules.js holds labels and words only).
  assert.deepEqual(schedules.map((/** @type {any} */ s) => s.name), SCHEDULE_INFO.map((info) => info.name));
  // By the contract: interleaved_1f1b needs vpp_degree >= 2 (up to the cap of 64, VPP_DEGREE_LIMIT); zbv and
  // dualpipev run exactly two chunks, as do v_half and v_min; interleaved_1f1b_overlap, interleaved_zero_bubble and
  // looped_bfs 2 or more, as interleaved_1f1b; the rest one. B and W run apart in zb_h1, zb_h2, zbv, dualpipev, zb_auto,
  // v_half, v_min and interleaved_zero_bubble.
  /** @type {Record<string, [number, number, number, boolean, boolean]>} */
  const expected = {
    gpipe: [1, 1, 1, false, false], '1f1b': [1, 1, 1, false, false], interleaved_1f1b: [2, 64, 2, false, false],
    zb_h1: [1, 1, 1, true, false], zb_h2: [1, 1, 1, true, false], zbv: [2, 2, 2, true, true], dualpipev: [2, 2, 2, true, true],
    zb_auto: [1, 1, 1, true, false], interleaved_1f1b_overlap: [2, 64, 2, false, false],
    v_half: [2, 2, 2, true, true], v_min: [2, 2, 2, true, true],
    interleaved_zero_bubble: [2, 64, 2, true, false], looped_bfs: [2, 64, 2, false, false],
  };
  for (const s of schedules) {
    assert.deepEqual([s.vpp_degree.min, s.vpp_degree.max, s.vpp_degree.default, s.weight_apart, s.v_shape], expected[s.name], s.name);
  }
  // Choosing a schedule sets a chunk count it runs, read from those facts.
  assert.equal(vppForSchedule(schedules, 'interleaved_1f1b', '1'), '2');
  assert.equal(vppForSchedule(schedules, 'interleaved_1f1b', '4'), null);
  assert.equal(vppForSchedule(schedules, 'zbv', '3'), '2');
  assert.equal(vppForSchedule(schedules, '1f1b', '2'), '1');
  assert.equal(vppForSchedule(schedules, '1f1b', ''), null, 'empty is the default, 1');
  assert.equal(vppForSchedule(schedules, 'zbv', 'two'), null, 'not a number: the engine names it');
  assert.equal(vppForSchedule([], 'zbv', '1'), null, 'before the engine has loaded');
});

test('the cluster command gives a pp_degree its dp and micro batches by the search\'s rule', () => {
  const ask = (/** @type {object} */ r) => JSON.parse(engine.cluster(JSON.stringify(r)));
  const training = { world_size: 256, tp_degree: 8, global_batch_size: 256 };
  // 256 / (8 x 8 x 1) = dp 4; 256 / (1 x 4) = 64 micro batches.
  const fits = ask({ training, pipeline: { pp_degree: 8 } }).result;
  assert.deepEqual([fits.dp_degree, fits.micro_batch_num, fits.problems], [4, 64, []]);
  // pp 3: 3 x 8 = 24 devices a pipeline, and 256 is not a multiple of 24.
  const odd = ask({ training, pipeline: { pp_degree: 3 } }).result;
  assert.deepEqual([odd.dp_degree, odd.micro_batch_num, odd.problems.map((/** @type {any} */ p) => p.code)], [null, null, ['CLUSTER_NOT_DIVISIBLE']]);
  // A global batch of 90 over dp 4: 90 is not a multiple of 1 x 4.
  const batch = ask({ training: { ...training, global_batch_size: 90 }, pipeline: { pp_degree: 8 } }).result;
  assert.deepEqual([batch.dp_degree, batch.micro_batch_num, batch.problems[0].code, batch.problems[0].path],
    [4, null, 'BATCH_NOT_DIVISIBLE', '/training/global_batch_size']);
  // No global batch: dp alone. No pp_degree: 1, as the estimate's default (256 / 8 = dp 32).
  assert.deepEqual(ask({ training: { world_size: 256, tp_degree: 8 } }).result.dp_degree, 32);
  const bad = ask({ training: { world_size: 'many' }, pipeline: { pp_degree: 8 } });
  assert.deepEqual([bad.ok, bad.errors[0].code, bad.errors[0].path], [false, 'TYPE_MISMATCH', '/training/world_size']);
});

test('the page worker\'s warm-up (web/warm-up.js) sends requests the engine accepts', async () => {
  // Every answer it gets, by command: a request the contract refused would leave the code it meant to compile
  // cold, silently.
  /** @type {{command: string, response: any}[]} */
  const answers = [];
  const record = (/** @type {string} */ command, /** @type {string} */ text) => {
    answers.push({ command, response: JSON.parse(text) });
    return text;
  };
  const WorkSession = function WorkSession(/** @type {string} */ command, /** @type {string} */ text) {
    formOf(command, text);
    const inner = new engine.WorkSession(command, text);
    const error = inner.error();
    if (error) record(command, error);
    return {
      error: () => error,
      step: (/** @type {number} */ ms) => inner.step(ms),
      bestSoFar: () => inner.bestSoFar(),
      result: (/** @type {boolean} */ cancelled) => record(command, inner.result(cancelled)),
      delete: () => inner.delete(),
    };
  };
  /** @type {string[]} the layer forms each request's model is written in, by command */
  const forms = [];
  const formOf = (/** @type {string} */ command, /** @type {string} */ text) => {
    const layers = JSON.parse(text).model?.layers ?? [];
    forms.push(`${command}: ${layers.some((/** @type {any} */ layer) => 'count' in layer) ? 'compact' : 'one entry a layer'}`);
  };
  const recorded = {
    estimate: (/** @type {string} */ text) => {
      formOf('estimate', text);
      return record('estimate', engine.estimate(text));
    },
    compare: (/** @type {string} */ text) => {
      formOf('compare', text);
      return record('compare', engine.compare(text));
    },
    keepModel: (/** @type {string} */ text) => engine.keepModel(text),
    runKept: (/** @type {string} */ command, /** @type {string} */ text, /** @type {number} */ id) =>
      record(`${command} (kept model)`, engine.runKept(command, text, id)),
    dropModel: (/** @type {number} */ id) => engine.dropModel(id),
    WorkSession,
  };
  await import('../web/warm-up.js');
  const global = /** @type {any} */ (globalThis);
  await global.ppbWarmUp(recorded, async () => {});
  // Two rounds of: balances under the model's limit and under one no plan meets, three estimates, a comparison, an
  // estimate naming a kept model, a search.
  const round = ['balance', 'balance', 'estimate', 'estimate', 'estimate', 'compare', 'estimate (kept model)', 'search'];
  assert.deepEqual(answers.map((a) => a.command), [...round, ...round]);
  for (const { command, response } of answers) assert.equal(response.ok, true, `${command}: ${JSON.stringify(response.errors)}`);
  const balances = answers.filter((a) => a.command === 'balance').map((a) => a.response.result.feasible);
  assert.deepEqual(balances, [true, false, true, false]);
  // Both of the engine's layer readers run: the profiler's form (one entry a layer, read straight from the text)
  // and the compact one (entries with a count, read through the general reader); a reader left out stays cold
  // for a person's first call (a first estimate after the warm-up took 1.6 ms instead of 0.3 ms in node).
  const formRound = ['balance: one entry a layer', 'balance: one entry a layer', 'estimate: compact', 'estimate: compact',
    'estimate: compact', 'compare: compact', 'search: one entry a layer'];
  assert.deepEqual(forms, [...formRound, ...formRound]);
});

test('a model kept once (keepModel, as bytes) is named by later requests, and answers as the request holding it', () => {
  const { model, ...rest } = JSON.parse(request);
  const id = engine.keepModel(new TextEncoder().encode(JSON.stringify(model)));
  try {
    assert.equal(typeof id, 'number');
    const restText = JSON.stringify(rest);
    assert.equal(engine.runKept('estimate', restText, id), engine.estimate(request));
    const session = new engine.WorkSession('balance', restText, id);
    try {
      assert.equal(session.error(), '');
      while (!JSON.parse(session.step(40)).finished);
      assert.equal(session.result(false), engine.balance(request));
    } finally {
      session.delete();
    }
  } finally {
    assert.equal(engine.dropModel(id), true);
  }
  // Dropped: a request naming it is refused with MODEL_NOT_KEPT.
  const refused = JSON.parse(engine.runKept('estimate', '{}', id));
  assert.equal(refused.errors[0].code, 'MODEL_NOT_KEPT');
  assert.equal(engine.dropModel(id), false);
});
