// The benchmark workloads as contract requests, so that the native driver, the WASM module under node
// and the WASM module in Chromium run exactly the same work through the same entry point
// (ppb::run_command). The shapes follow bench/bench.cpp's Google Benchmark cases.
// No node or browser APIs here: the bench page imports this file too.

/**
 * @typedef {{name: string, group: string, command: string, request: object}} Workload
 *   Balances and searches count work, not time (their wall-clock caps are far away), so every runtime does the same
 *   work and gives the same answer: wasm-bench.mjs reports any difference as a mismatch.
 */

/**
 * A model of `stages` identical layers, one per virtual stage: the simulator's uniform case. Each
 * layer costs F 1 ms, B 2 ms (W 1 ms), keeps 10 MiB per micro batch; transfers cost their 0.01 ms
 * latency only (as BM_Simulate's send_ms).
 * @param {number} pp
 * @param {number} vpp
 * @param {number} m
 * @param {string} schedule
 * @returns {object}
 */
function uniformRequest(pp, vpp, m, schedule) {
  return {
    model: {
      format: 'ppb.model.v1',
      name: 'uniform stages',
      layers: [{ name: 'layer', count: pp * vpp, forward_ms: 1, backward_ms: 2, weight_backward_ms: 1, activation_mib: 10 }],
    },
    device: { p2p_latency_ms: 0.01 },
    pipeline: { pp_degree: pp, vpp_degree: vpp, micro_batch_num: m, schedule },
  };
}

/**
 * bench.cpp's bench_model: a heavy embedding and head pinned, `body` decoders with forward
 * 1, 1.1, 1.2 ms repeating, full and selective recompute, and a memory limit that holds the even
 * split's static memory plus a third of 1F1B's activations on stage 0, so the first stages must
 * recompute.
 * @param {number} body
 * @param {number} pp
 * @returns {object}
 */
function balanceRequest(body, pp) {
  /** @type {object[]} */
  const layers = [
    { name: 'embedding', pin: 'first', forward_ms: 3, backward_ms: 6, weight_backward_ms: 3, static_mib: 2000, activation_mib: 100, send_mib: 32 },
  ];
  for (let i = 0; i < body; ++i) {
    const f = 1 + 0.1 * (i % 3);
    layers.push({
      name: 'decoder', forward_ms: f, backward_ms: 2 * f, weight_backward_ms: f, static_mib: 400, activation_mib: 300, send_mib: 32,
      recompute: { full: { activation_mib: 20, extra_ms: f }, selective: { activation_mib: 180, extra_ms: 0.25 * f } },
    });
  }
  layers.push({ name: 'head', pin: 'last', forward_ms: 5, backward_ms: 10, weight_backward_ms: 5, static_mib: 3000, activation_mib: 200, send_mib: 32 });
  const perStage = body / pp;
  return {
    model: { format: 'ppb.model.v1', name: `bench ${body} layers`, layers },
    device: { memory_limit_mib: 3000 + perStage * 400 + (pp * perStage * 300) / 3, p2p_bandwidth_gbs: 25, p2p_latency_ms: 0.02 },
    pipeline: { pp_degree: pp, micro_batch_num: 4 * pp, schedule: '1f1b' },
    // 96 layers: the search finishes, proven optimal. 1000 layers: the balancer's default work budget, as a
    // user meets it (about 2 s natively).
    balance: { recompute_options: ['full', 'selective'] },
  };
}

/**
 * bench.cpp's search_request: 96 decoders, pp 1..16, vpp 1, 2, 4, four schedules, micro batches from
 * a global batch of 1024 on 128 devices, with the search's defaults. Each candidate's balance stops
 * at its work budget when it has not finished, the same work in every runtime.
 * @returns {object}
 */
function searchRequest() {
  return {
    model: {
      format: 'ppb.model.v1',
      name: 'bench search',
      layers: [
        { name: 'embedding', pin: 'first', forward_ms: 3, static_mib: 2000, send_mib: 32 },
        {
          name: 'decoder', count: 96, forward_ms: 1.1, static_mib: 400, activation_mib: 300, send_mib: 32,
          recompute: { full: { activation_mib: 20, extra_ms: 1.1 }, selective: { activation_mib: 180, extra_ms: 0.3 } },
        },
        { name: 'head', pin: 'last', forward_ms: 5, static_mib: 3000 },
      ],
    },
    training: { global_batch_size: 1024, micro_batch_size: 1, world_size: 128 },
    device: { memory_limit_mib: 40000, p2p_bandwidth_gbs: 25, p2p_latency_ms: 0.02 },
    search: {
      pp_degree: [1, 2, 4, 8, 16], vpp_degree: [1, 2, 4], schedule: ['gpipe', '1f1b', 'interleaved_1f1b', 'zb_h1'],
    },
  };
}

/**
 * Every workload, in table order.
 * @returns {Workload[]}
 */
export function workloads() {
  /** @type {Workload[]} */
  const out = [];
  for (const pp of [8, 16, 64])
    for (const m of [32, 256, 1024])
      for (const vpp of [1, 2]) {
        // Megatron-LM's interleaved order needs m to be a multiple of pp.
        if (vpp > 1 && m % pp !== 0) continue;
        const schedule = vpp > 1 ? 'interleaved_1f1b' : '1f1b';
        out.push({ name: `simulate ${schedule} pp ${pp} m ${m}${vpp > 1 ? ` vpp ${vpp}` : ''}`, group: 'simulate', command: 'estimate', request: uniformRequest(pp, vpp, m, schedule) });
      }
  for (const pp of [8, 64])
    for (const m of [256, 1024])
      out.push({ name: `simulate zb_h1 pp ${pp} m ${m}`, group: 'simulate', command: 'estimate', request: uniformRequest(pp, 1, m, 'zb_h1') });
  // As BM_Balance: 96 layers over 16 stages (the search finishes, proven optimal) and 1000 layers over
  // 64 stages (it stops at its work budget).
  for (const [body, pp] of [[96, 16], [1000, 64]])
    out.push({ name: `balance ${body} layers pp ${pp}`, group: 'balance', command: 'balance', request: balanceRequest(body, pp) });
  out.push({ name: 'search default space (96 layers)', group: 'search', command: 'search', request: searchRequest() });
  return out;
}
