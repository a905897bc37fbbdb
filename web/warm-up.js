// The engine's warm-up after loading, as self.ppbWarmUp(engine, idle). V8 runs a WebAssembly module's code on its
// baseline compiler first and moves a function to its optimising one only after the function has run a while, for
// its next call; a person's first large upload would run its longest call (reading the model) on the baseline code,
// about three times slower, and a function the warm-up never ran stays there until it has run a while. So once loaded,
// the worker (worker.js) runs small balances (one where a plan fits, one where none does) of layers with two recompute
// kinds, estimates under three schedule families (1f1b with its timeline, interleaved_1f1b, zb_h1) and a comparison
// of the same model written compactly (entries with a count, read by the engine's general layer reader), an
// estimate naming a kept model, and a few slices of a search, in short pieces, each after `idle()` resolves (a page's call waits at most one piece).
// The benchmarks run the same warm-up before a "first call after warm-up" (bench/first-call.mjs, bench/bench-page.mjs).
//
// A classic script: the worker loads it with importScripts, the single-file page puts it in the worker's source
// (tools/single-file.mjs), node and the benchmark page run it for its assignment to the global object.
(() => {
  'use strict';

  /** Rounds of the warm-up: the second runs on code the first moved to the optimising tier, and moves more. */
  const ROUNDS = 2;

  /**
   * 400 individually listed decoders with full and selective recompute (several kinds per layer take the balancer's
   * frontier code, which one kind does not) between a pinned embedding and head, on pp 4 with 16 micro
   * batches under a limit that makes the first stages recompute: shaped as a profiler's file is (each layer its own
   * entry), so that reading it runs the code a person's upload runs.
   * @returns {Record<string, any>}
   */
  function warmUpRequest() {
    /** @type {Record<string, any>[]} */
    const layers = [{ name: 'embedding', pin: 'first', forward_ms: 3, backward_ms: 6, static_mib: 2000, activation_mib: 100, send_mib: 32 }];
    for (let i = 0; i < 400; ++i) {
      const f = 1 + 0.1 * (i % 3);
      layers.push({ name: 'decoder', forward_ms: f, backward_ms: 2 * f, static_mib: 4, activation_mib: 3, send_mib: 32,
        recompute: { full: { activation_mib: 0.2, extra_ms: f }, selective: { activation_mib: 1.8, extra_ms: 0.25 * f } } });
    }
    layers.push({ name: 'head', pin: 'last', forward_ms: 5, backward_ms: 10, static_mib: 3000, activation_mib: 200, send_mib: 32 });
    return { model: { format: 'ppb.model.v1', name: 'warm-up', layers },
      device: { memory_limit_mib: 6000, p2p_bandwidth_gbs: 25, p2p_latency_ms: 0.02 },
      pipeline: { pp_degree: 4, micro_batch_num: 16 } };
  }

  /**
   * A model as a person writes one by hand: the warm-up's embedding and head, and its 400 decoders at their mean
   * costs as one entry with a count.
   * @param {{layers: Record<string, any>[]}} model
   * @returns {Record<string, any>}
   */
  function compactModel(model) {
    const layers = model.layers;
    // layers[2] is the second decoder, whose forward time (1.1 ms) is the decoders' mean.
    return { ...model, layers: [layers[0], { ...layers[2], count: layers.length - 2 }, layers[layers.length - 1]] };
  }

  /**
   * Steps long work (a WorkSession) in 10 ms slices, waiting for `idle` between them, at most
   * `slices` of them, then asks for its result.
   * @param {any} session
   * @param {() => Promise<void>} idle
   * @param {number} slices
   */
  async function stepped(session, idle, slices) {
    try {
      for (let i = 0; i < slices && !JSON.parse(session.step(10)).finished; ++i) await idle();
      session.bestSoFar();
      session.result(false);
    } finally {
      session.delete();
    }
  }

  /**
   * One round of calls on the warm-up's model: balances of it under its limit and under one no plan meets
   * (what the answer says then), estimates under three schedule families (1f1b with its timeline), a comparison and a
   * search, each after `idle()` resolves.
   * @param {any} engine the loaded module
   * @param {() => Promise<void>} idle
   */
  async function round(engine, idle) {
    const request = warmUpRequest();
    const search = { ...request, search: { pp_degree: [2, 4], vpp_degree: [1, 2], micro_batch_num: [16],
      schedule: ['1f1b', 'interleaved_1f1b'], time_budget_ms: 200, candidate_time_ms: 10 } };
    for (const limit of [request.device.memory_limit_mib, 1000]) {
      await idle();
      const balanced = { ...request, device: { ...request.device, memory_limit_mib: limit }, balance: { time_budget_ms: 100 } };
      await stepped(new engine.WorkSession('balance', JSON.stringify(balanced)), idle, 20);
    }
    // The estimates and the comparison read the model written compactly (repeated layers with a count), which the
    // engine reads through its general layer reader: the profiler's form above takes a quicker one of its own, and a
    // reader the warm-up never ran stays on the baseline tier (or is not even compiled) for the first such call.
    /** @type {Record<string, any>} */
    const compact = { ...request, model: compactModel(request.model) };
    for (const pipeline of [{ include_timeline: true }, { schedule: 'interleaved_1f1b', vpp_degree: 2 }, { schedule: 'zb_h1' }]) {
      await idle();
      engine.estimate(JSON.stringify({ ...compact, pipeline: { ...compact.pipeline, ...pipeline } }));
    }
    await idle();
    engine.compare(JSON.stringify(compact));
    // A model kept once and named by a request, as the page sends every model it has read.
    await idle();
    const { model, ...rest } = request;
    const kept = engine.keepModel(JSON.stringify(model));
    engine.runKept('estimate', JSON.stringify(rest), kept);
    engine.dropModel(kept);
    await idle();
    await stepped(new engine.WorkSession('search', JSON.stringify(search)), idle, 10);
  }

  /**
   * The warm-up: ROUNDS rounds, in pieces.
   * @param {any} engine the loaded module
   * @param {() => Promise<void>} idle resolves when the next piece may run
   */
  async function warmUp(engine, idle) {
    for (let r = 0; r < ROUNDS; ++r) await round(engine, idle);
  }

  /** @type {any} */ (globalThis).ppbWarmUp = warmUp;
})();
