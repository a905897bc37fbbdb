// The WASM module's BalanceSession, as a worker calls it (build/wasm/wasm/ppb_engine.js, after ./dev.sh build):
// progress as JSON between slices, and at the end the same response text as the module's `balance`.
// The engine behind it is tested in C++ (tests/engine/balance_session_test.cpp); this checks the binding.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

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

test('BalanceSession in slices answers as balance, with progress between slices', () => {
  const session = new engine.BalanceSession(request);
  try {
    assert.equal(session.error(), '');
    /** @type {{phase: string, nodes: number, simulations: number, incumbent_ms: number | null, lower_bound_ms: number | null, finished: boolean}[]} */
    const progress = [];
    for (;;) {
      const p = JSON.parse(session.step(0));
      progress.push(p);
      if (p.finished) break;
    }
    assert.ok(progress.length > 10, `${progress.length} slices`);
    for (const p of progress) {
      assert.deepEqual(Object.keys(p), ['phase', 'nodes', 'simulations', 'incumbent_ms', 'lower_bound_ms', 'finished']);
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
    assert.equal(last.nodes, method.nodes);
  } finally {
    session.delete();
  }
});

test('BalanceSession cancelled between slices answers with its best plan so far', () => {
  const session = new engine.BalanceSession(request);
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

test('BalanceSession refuses an invalid request as balance does', () => {
  const bad = JSON.stringify({ ...JSON.parse(request), pipeline: { pp_degree: 'four' } });
  const session = new engine.BalanceSession(bad);
  try {
    assert.equal(session.error(), engine.balance(bad));
    assert.equal(JSON.parse(session.step(10)).finished, true);
    assert.equal(session.result(false), session.error());
  } finally {
    session.delete();
  }
});

test('BalanceSession gives its best plan so far while it goes on, and its answer is unchanged by asking', () => {
  const session = new engine.BalanceSession(request);
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

test('the page worker\'s warm-up (web/warm-up.js) sends requests the engine accepts', async () => {
  // Every answer it gets, by command: a request the contract refused would leave the code it meant to compile
  // cold, silently.
  /** @type {{command: string, response: any}[]} */
  const answers = [];
  const record = (/** @type {string} */ command, /** @type {string} */ text) => {
    answers.push({ command, response: JSON.parse(text) });
    return text;
  };
  /** @param {string} name */
  const session = (name) => function Session(/** @type {string} */ text) {
    const inner = new engine[name](text);
    const error = inner.error();
    if (error) record(name, error);
    return {
      error: () => error,
      step: (/** @type {number} */ ms) => inner.step(ms),
      bestSoFar: inner.bestSoFar ? () => inner.bestSoFar() : undefined,
      result: (/** @type {boolean} */ cancelled) => record(name, inner.result(cancelled)),
      delete: () => inner.delete(),
    };
  };
  const recorded = {
    estimate: (/** @type {string} */ text) => record('estimate', engine.estimate(text)),
    compare: (/** @type {string} */ text) => record('compare', engine.compare(text)),
    BalanceSession: session('BalanceSession'),
    SearchSession: session('SearchSession'),
  };
  await import('../web/warm-up.js');
  const global = /** @type {any} */ (globalThis);
  await global.ppbWarmUp(recorded, async () => {});
  // Two rounds of: balances under the model's limit and under one no plan meets, three estimates, a comparison, a search.
  const round = ['BalanceSession', 'BalanceSession', 'estimate', 'estimate', 'estimate', 'compare', 'SearchSession'];
  assert.deepEqual(answers.map((a) => a.command), [...round, ...round]);
  for (const { command, response } of answers) assert.equal(response.ok, true, `${command}: ${JSON.stringify(response.errors)}`);
  const balances = answers.filter((a) => a.command === 'BalanceSession').map((a) => a.response.result.feasible);
  assert.deepEqual(balances, [true, false, true, false]);
});
