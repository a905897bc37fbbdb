// docs/contract.md is the field reference of the request and response contract; this keeps it
// complete. Every row of a field table there starts with the field's path in backticks
// (`pipeline.pp_degree`, `result.stages[].memory.peak_mib`; `[]` for every array element, `<option>`
// and the like for a key the user chooses). The test
//   - runs every command through the CLI (build/native/ppb) on real requests, collects every key
//     path of every response and requires a row for each, and a response for each response row;
//   - scans the request parsers in engine/src for the field names they read and requires a request
//     row for each, and a parser read for each request row;
//   - checks on a small hand-worked plan that the per-micro-batch and per-step units the page
//     states are the ones the engine reports (numbers from the published 1F1B step formula).
// Run by ./dev.sh test after ./dev.sh build; alone: node --test tests/contract-doc.test.mjs
// (PPB_CLI=path/to/ppb to use another build).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = process.env.PPB_CLI ?? join(root, 'build', 'native', 'ppb');
const docText = readFileSync(join(root, 'docs', 'contract.md'), 'utf8');

// ---- the page -----------------------------------------------------------------------------------

// Rows of the tables whose header's first cell is "field": the backticked path of each.
/**
 * @param {string} text
 * @returns {string[]}
 */
function documentedPaths(text) {
  /** @type {string[]} */
  const paths = [];
  let inFieldTable = false;
  let previousWasTable = false;
  for (const line of text.split('\n')) {
    const isTable = line.startsWith('|');
    if (isTable && !previousWasTable) inFieldTable = /^\|\s*field\s*\|/.test(line);
    else if (isTable && inFieldTable) {
      const cell = /^\|\s*`([^`]+)`\s*\|/.exec(line);
      if (cell) paths.push(cell[1]);
      else if (!/^\|[\s|:-]+\|?\s*$/.test(line)) paths.push(`(row without a backticked path) ${line}`);
    }
    previousWasTable = isTable;
  }
  return paths;
}

const documented = documentedPaths(docText);
const documentedSet = new Set(documented);
const RESPONSE_ROOTS = new Set(['ok', 'command', 'result', 'errors', 'warnings']);
const rootOf = (/** @type {string} */ path) => path.split(/[.[]/)[0];
const segmentsOf = (/** @type {string} */ path) => path.split('.').map((s) => s.replace(/\[\]/g, ''));
const isPlaceholder = (/** @type {string} */ segment) => /^<\w+>$/.test(segment);
const responseRows = documented.filter((p) => RESPONSE_ROOTS.has(rootOf(p)));
const requestRows = documented.filter((p) => !RESPONSE_ROOTS.has(rootOf(p)));

// Objects whose keys the user chooses: the prefix of every documented path with a <placeholder>.
/** @type {Map<string, string>} */
const mapKeys = new Map();
for (const path of documented) {
  const parts = path.split('.');
  parts.forEach((part, i) => {
    if (isPlaceholder(part)) mapKeys.set(parts.slice(0, i).join('.'), part);
  });
}

// Parts of one response documented as another part: balance's baseline is an estimate result,
// import's model a model document and its transformer a transformer section (the page says so in
// those rows).
const ALIASES = new Map([
  ['result.baseline', 'result'],
  ['result.model', 'model'],
  ['result.transformer', 'transformer'],
]);

// Every key path of a response, arrays collapsed to [] and user-chosen keys to their placeholder.
/**
 * @param {unknown} value
 * @param {string} [path]
 * @param {Set<string>} [out]
 * @returns {Set<string>}
 */
function keyPaths(value, path = '', out = new Set()) {
  if (Array.isArray(value)) {
    for (const element of value) keyPaths(element, `${path}[]`, out);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const name = mapKeys.get(path) ?? key;
      const childPath = path ? `${path}.${name}` : name;
      out.add(childPath);
      keyPaths(child, ALIASES.get(childPath) ?? childPath, out);
    }
  }
  return out;
}

// ---- the engine ---------------------------------------------------------------------------------

/**
 * @param {string} command
 * @param {object} request
 * @returns {{status: number | null, response: any}}
 */
function run(command, request) {
  assert.ok(existsSync(cli), `${cli} is missing; run ./dev.sh build first`);
  const out = spawnSync(cli, [command, '-'], { input: JSON.stringify(request), encoding: 'utf8', timeout: 120_000 });
  assert.ok(out.stdout, `ppb ${command} printed nothing (status ${out.status}): ${out.stderr}`);
  return { status: out.status, response: JSON.parse(out.stdout) };
}

const example = JSON.parse(readFileSync(join(root, 'examples', 'dense-8l.json'), 'utf8'));
const sapp = JSON.parse(readFileSync(join(root, 'examples', 'sapp-llama-80l.json'), 'utf8'));

// The dense example with a layer component, so that every per-stage breakdown has something in it.
function model() {
  const m = structuredClone(example);
  m.layers[1].components = { tp_comm: { forward_ms: 0.2, backward_ms: 0.4, static_mib: 1, activation_mib: 2 } };
  return m;
}

const transformer = {
  transformer: { name: 'small moe', num_layers: 4, hidden_size: 256, num_attention_heads: 8, num_query_groups: 4,
                 ffn_hidden_size: 1024, gated_mlp: true, normalization: 'rmsnorm', dropout: false, vocab_size: 1000,
                 make_vocab_size_divisible_by: 64, seq_length: 128, tied_embeddings: false,
                 moe: { num_experts: 4, top_k: 2, expert_ffn_hidden_size: 512, first_dense_layers: 1, shared_experts: 1 } },
  parallel: { tp_degree: 2, sequence_parallel: true, cp_degree: 1, ep_degree: 2, dp_degree: 2 },
  training: { micro_batch_size: 1, precision: 'bf16', distributed_optimizer: true, recompute_options: ['full', 'selective'] },
  device: { peak_tflops: 100, compute_efficiency: 0.5 },
};

// Requests that between them reach every response field: status 0 expected unless said.
/** @type {[command: string, request: object, status?: number][]} */
const runs = [
  ['estimate', {
    model: model(),
    training: { global_batch_size: 16, micro_batch_size: 1, dp_degree: 2 },
    device: { memory_limit_mib: 4000, reserved_mib: 100, p2p_bandwidth_gbs: 25, p2p_latency_ms: 0.02 },
    pipeline: { pp_degree: 2, schedule: '1f1b', layer_offset: [1, -1], recompute: { full: [1, 0] }, include_timeline: true },
    components: [{ name: 'dp_grad_sync', step_ms: [3, 4], memory_mib: 50 }],
    not_a_field: true, // a warning
  }],
  ['estimate', { model: model(), pipeline: { pp_degree: 0, layer_offset: [1] } }, 2], // errors
  ['estimate', { ...transformer, pipeline: { pp_degree: 2, micro_batch_num: 4, schedule: 'zb_h1', include_timeline: true } }],
  ['estimate', { ...transformer, pipeline: { pp_degree: 2, micro_batch_num: 4, schedule: 'dualpipev', include_timeline: true } }],
  ['balance', {
    model: model(), device: { memory_limit_mib: 6000 }, pipeline: { pp_degree: 2, micro_batch_num: 8, include_timeline: true },
    components: [{ name: 'dp_grad_sync', step_ms: 2 }],
    balance: { recompute_options: ['full', 'selective'], tolerance: 0, time_budget_ms: 5000 },
  }],
  ['balance', {
    model: model(), device: { memory_limit_mib: 6000 }, pipeline: { pp_degree: 2, micro_batch_num: 8 },
    balance: { mode: 'offset', offset_range: 2, max_candidates: 100 },
  }],
  ['search', {
    model: model(), device: { memory_limit_mib: 6000 },
    training: { global_batch_size: 64, micro_batch_size: 1, world_size: 8 },
    search: { pp_degree: [1, 2, 4, 8, 16], vpp_degree: [1, 2], schedule: ['1f1b', 'interleaved_1f1b'], top_k: 20 },
  }],
  ['search', {
    model: model(), device: { memory_limit_mib: 6000 }, training: { dp_degree: 2 },
    search: { pp_degree: { min: 2, max: 4, factor: 2 }, micro_batch_num: { min: 4, max: 8, step: 4 }, schedule: ['zb_h1'],
              recompute_options: ['full'], max_candidates: 100, time_budget_ms: 60000, candidate_time_ms: 50 },
  }],
  // Nothing fits: static memory alone is over the limit, so both explain why and what would fit.
  ['balance', {
    model: model(), device: { memory_limit_mib: 300 }, pipeline: { pp_degree: 2, micro_batch_num: 8 },
    balance: { recompute_options: [] },
  }],
  ['search', {
    model: model(), device: { memory_limit_mib: 300 }, training: { dp_degree: 1 },
    search: { pp_degree: [1, 2], micro_batch_num: [8], recompute_options: [] },
  }],
  ['import', sapp],
  ['import', { sapp }],
  ['import', transformer],
  ['import', {
    hf_config: { model_type: 'llama', architectures: ['LlamaForCausalLM'], num_hidden_layers: 2, hidden_size: 256,
                 num_attention_heads: 8, num_key_value_heads: 4, intermediate_size: 1024, vocab_size: 1000,
                 tie_word_embeddings: false },
    seq_length: 128, name: 'small llama', device: { peak_tflops: 100 },
  }],
  ['import', { model: model() }],
  ...['mindformers', 'megatron', 'chrome-trace', 'pytorch', 'torchtitan'].map((to) => /** @type {[string, object]} */ (['export', {
    model: model(), pipeline: { pp_degree: 2, micro_batch_num: 4, recompute: { layers: { full: [1, 2] } } }, export: { to },
  }])),
  ['export', {
    model: model(), pipeline: { pp_degree: 2, vpp_degree: 2, micro_batch_num: 4, schedule: 'interleaved_1f1b' },
    export: { to: 'mindformers' },
  }],
  ['export', { model: model(), pipeline: { pp_degree: 2, micro_batch_num: 4, schedule: 'dualpipev' }, export: { to: 'chrome-trace' } }],
  ...['torchtitan', 'mindformers'].map((to) => /** @type {[string, object]} */ (['export', {
    model: model(), parallel: { tp_degree: 2, sequence_parallel: true, ep_degree: 2, dp_degree: 2 }, training: { sharding: 'optimizer' },
    pipeline: { pp_degree: 2, micro_batch_num: 4 }, export: { to },
  }])),
  ['compare', { model: model(), device: { memory_limit_mib: 6000 }, pipeline: { pp_degree: 2, micro_batch_num: 3 } }],
  // Balanced under a limit that makes some schedules recompute: the rows' plans hold recompute layers.
  ['compare', { model: model(), device: { memory_limit_mib: 2500 }, pipeline: { pp_degree: 2, micro_batch_num: 8 },
    compare: { plans: 'balanced' }, balance: { work_budget: 200000 } }],
  // dp 64 / (2 x 2 x 1) = 16, m 64 / (2 x 16) = 2; then pp 3, which 64 devices do not divide into.
  ['cluster', { training: { world_size: 64, tp_degree: 2, cp_degree: 1, ep_degree: 1, global_batch_size: 64, micro_batch_size: 2 },
    pipeline: { pp_degree: 2 } }],
  ['cluster', { training: { world_size: 64, tp_degree: 2 }, pipeline: { pp_degree: 3 } }],
];

const responses = runs.map(([command, request, expected = 0]) => ({ command, expected, ...run(command, request) }));

// ---- the tests ----------------------------------------------------------------------------------

test('every table row of the field tables names its field in backticks', () => {
  const bad = documented.filter((p) => p.startsWith('(row without'));
  assert.deepEqual(bad, []);
  const repeated = documented.filter((p, i) => documented.indexOf(p) !== i);
  assert.deepEqual(repeated, [], 'a field documented twice');
  assert.ok(responseRows.length > 100 && requestRows.length > 100, 'the page lost its tables');
});

test('every request runs as expected', () => {
  for (const { command, expected, status, response } of responses) {
    assert.equal(status, expected, `${command}: exit status`);
    assert.equal(response.ok, expected === 0, `${command}: ${JSON.stringify(response.errors ?? '')}`);
    if (expected === 0) assert.equal(response.command, command);
  }
});

test('every response field is documented', () => {
  const missing = new Set();
  for (const { command, response } of responses)
    for (const path of keyPaths(response)) if (!documentedSet.has(path)) missing.add(`${command}: ${path}`);
  assert.deepEqual([...missing].sort(), [], 'response fields without a row in docs/contract.md');
});

test('every documented response field is produced', () => {
  const produced = new Set();
  for (const { response } of responses) for (const path of keyPaths(response)) produced.add(path);
  const unproduced = responseRows.filter((p) => !produced.has(p));
  assert.deepEqual(unproduced, [], 'rows of docs/contract.md that no response has (stale, or not reached by a request here)');
});

// ---- request fields: what the parsers read --------------------------------------------------------

// Which request sections each parser reads: a name it reads must be documented under one of them.
const PARSERS = {
  'request_reader.cpp': ['model', 'training', 'device', 'pipeline', 'components', 'balance', 'search', 'export',
                         'compare', 'transformer', 'parallel'],
  'compare_command.cpp': ['compare'],
  'model_reader.cpp': ['model'],
  'training_state.cpp': ['training', 'transformer'],
  'balance_command.cpp': ['balance'],
  'search_request.cpp': ['search', 'training', 'parallel', 'balance'],
  'transformer_description.cpp': ['transformer', 'parallel', 'training', 'device', 'pipeline'],
  'sapp.cpp': ['sapp'],
  'import_command.cpp': ['sapp', 'transformer', 'hf_config', 'model', 'seq_length', 'name', 'parallel', 'training',
                         'device', 'pipeline'],
  'hf_config.cpp': ['hf_config'],
  'export_command.cpp': ['export'],
  'cluster_command.cpp': ['training', 'pipeline', 'parallel'],
  'device_presets.cpp': ['device'],
};

// Sources that read no request field (they take parsed values, or write responses).
// field_reader.cpp is the reader the parsers call; the field names are in their calls.
const NOT_PARSERS = ['balance.cpp', 'commands.cpp', 'estimate_command.cpp', 'training.cpp', 'checked_plan.cpp', 'plan_forms.cpp', 'balance_answer.cpp', 'local_search.cpp', 'node_bounds.cpp', 'compare.cpp', 'device.cpp', 'diagnostics.cpp',
                     'estimate.cpp', 'caveats.cpp', 'export_megatron_run.cpp', 'export_torchtitan.cpp', 'export.cpp', 'export_fit.cpp', 'export_pytorch.cpp', 'field_reader.cpp', 'json_text.cpp',
                     'message_text.cpp', 'model.cpp', 'plan.cpp', 'response_writer.cpp', 'schedule.cpp',
                     'schedule_controllable_memory.cpp', 'schedule_dualpipev.cpp', 'schedule_megatron.cpp', 'schedule_names.cpp', 'schedule_zero_bubble.cpp',
                     'schedule_pytorch.cpp', 'program_import.cpp', 'program_text.cpp',  // take the program text request_reader.cpp reads
                     'simulate.cpp', 'zb_auto.cpp', 'stage_component.cpp', 'stage_costs.cpp', 'trace.cpp', 'transformer.cpp',
                     'transformer_formulas.cpp', 'transformer_comm.cpp', 'version.cpp',
                     'megatron_layout.cpp',  // parses a string request_reader.cpp reads
                     'kept_models.cpp',  // keeps a model document that model_reader.cpp reads
                     'plain_entry.cpp',  // reads model_reader.cpp's fields of a plain entry, held to it by plain_entry_test.cpp
                     // the balancer's parts take parsed values (balance_command.cpp reads the section)
                     'balance_problem.cpp', 'branch_and_bound.cpp', 'least_over.cpp', 'offset_search.cpp',
                     'recompute_frontier.cpp', 'stage_bounds.cpp', 'stage_recompute.cpp', 'suffix_bound.cpp', 'threshold_bound.cpp',
                     'recompute_price.cpp', 'plan_replay.cpp', 'whole_plan_bound.cpp', 'whole_plan_ascent.cpp', 'program_paths.cpp',
                     'count_search.cpp', 'dense_lp.cpp',
                     // the search's parts take parsed values (search_request.cpp reads the section)
                     'search.cpp', 'search_evaluate.cpp', 'search_rank.cpp', 'search_response.cpp',
                     'search_command.cpp', 'search_space.cpp', 'shape_rules.cpp',
                     // long work in slices, and the writers of its progress, of the schedules' facts and of the presets and caps
                     'work_session.cpp', 'progress_writer.cpp', 'schedules_writer.cpp', 'catalogue_writer.cpp',
                     // why no plan fits, from parsed values, and its writer
                     'infeasibility.cpp', 'infeasibility_response.cpp',
                     // the list of option names balance_command.cpp and search_request.cpp find
                     'recompute_option_list.cpp'];

// Field names a parser reads: string literals passed to the field reader (FieldReader
// get/has/allow/require/number/integer/...; json contains/find/at/[]), listed in the loops and
// tables that feed them, or compared with a key.
/**
 * @param {string} source
 * @returns {Set<string>}
 */
function fieldsRead(source) {
  const code = source.replace(/(^|[\s;{}])\/\/.*$/gm, '$1');
  /** @type {Set<string>} */
  const names = new Set();
  /** @param {RegExp} re @param {number[]} [groups] */
  const add = (re, groups = [1]) => {
    for (const m of code.matchAll(re)) for (const g of groups) names.add(m[g]);
  };
  /** @param {RegExp} re */
  const addLists = (re) => {
    for (const m of code.matchAll(re)) for (const n of m[1].matchAll(/"(\w+)"/g)) names.add(n[1]);
  };
  add(/(?:\.|->)(?:get|has|allow|require|quantity|integer|integers|string|boolean|object|array|number|contains|find|at)\(\s*"(\w+)"/g);
  add(/\["(\w+)"\](?!\s*=(?!=))/g);
  add(/\bsection\("(\w+)"\)/g);
  add(/optional_int\(\s*\w+,\s*"(\w+)"/g);
  // Helpers that read a field of a reader: integer(reader, "key", ...), read_per_stage(reader, "key", ...),
  // read_dimension(section, "key", ...).
  add(/\b(?:integer|read_\w+)\(\w+,\s*"(\w+)"/g);
  add(/std::pair\{"(\w+)"/g);
  add(/field\.key\(\) == "(\w+)"/g);
  add(/key\(\) != "(\w+)"/g);
  addLists(/for \(const char\* \w+ : \{([^}]*)\}\)/g);
  addLists(/allow\(\{([^}]*)\}\)/g);
  addLists(/known\[\] = \{([^}]*)\}/g);
  addLists(/kBodyOnlyFields = \{([^}]*)\}/g);
  add(/\{"\w+", "(\w+)", "(\w+)", "(\w+)", [\d.]+\}/g, [1, 2, 3]); // SAPP recompute kinds
  return names;
}

// The engine's sources by file name (the rooms of engine/src hold each name once).
const sourcePaths = Object.fromEntries(readdirSync(join(root, 'engine', 'src'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.cpp')).map((f) => [f.split('/').pop(), join(root, 'engine', 'src', f)]));
const read = Object.fromEntries(
  Object.keys(PARSERS).map((file) => [file, fieldsRead(readFileSync(sourcePaths[file], 'utf8'))]));

test('every engine source is either scanned as a parser or known to read no request field', () => {
  const sources = Object.keys(sourcePaths);
  const unknown = sources.filter((f) => !(f in PARSERS) && !NOT_PARSERS.includes(f));
  assert.deepEqual(unknown, [], 'new sources: add them to PARSERS (with the sections they read) or NOT_PARSERS');
});

test('the scan of the parsers finds the fields the contract names', () => {
  const expected = {
    'model_reader.cpp': ['format', 'layers', 'count', 'pin', 'forward_ms', 'backward_ms', 'weight_backward_ms',
                         'params', 'weights_mib', 'grads_mib', 'optimizer_mib', 'static_mib', 'activation_mib',
                         'send_mib', 'recompute', 'extra_ms'],
    'training_state.cpp': ['precision', 'sharding', 'distributed_optimizer', 'bytes_per_param', 'weights', 'grads',
                           'optimizer'],
    'request_reader.cpp': ['global_batch_size', 'micro_batch_size', 'dp_degree', 'memory_limit_mib',
                           'reserved_mib', 'p2p_bandwidth_gbs', 'p2p_latency_ms', 'pp_degree', 'vpp_degree',
                           'micro_batch_num', 'schedule', 'stage_partition', 'stage_layers', 'layer_offset',
                           'allow_empty_stages'],
    'balance_command.cpp': ['recompute_options'],
    'search_request.cpp': ['pp_degree', 'vpp_degree', 'micro_batch_num', 'schedule', 'top_k'],
    'transformer_description.cpp': ['num_layers', 'hidden_size', 'num_attention_heads', 'num_query_groups',
                                    'ffn_hidden_size', 'gated_mlp', 'normalization', 'dropout', 'vocab_size',
                                    'seq_length', 'tied_embeddings', 'moe', 'num_experts', 'top_k',
                                    'expert_ffn_hidden_size', 'first_dense_layers', 'shared_experts', 'tp_degree',
                                    'sequence_parallel', 'cp_degree', 'ep_degree', 'dp_degree', 'peak_tflops',
                                    'compute_efficiency'],
    'sapp.cpp': ['layers_description'],
    'import_command.cpp': ['transformer', 'model', 'hf_config', 'seq_length', 'name'],
    'hf_config.cpp': ['model_type', 'text_config', 'num_hidden_layers', 'hidden_size', 'num_attention_heads',
                      'num_key_value_heads', 'head_dim', 'intermediate_size', 'vocab_size', 'tie_word_embeddings',
                      'num_local_experts', 'n_routed_experts', 'num_experts', 'num_experts_per_tok',
                      'moe_intermediate_size', 'first_k_dense_replace', 'q_lora_rank', 'sliding_window'],
    'export_command.cpp': ['export', 'to'],
  };
  for (const [file, names] of Object.entries(expected))
    assert.deepEqual(names.filter((n) => !read[file].has(n)), [], `${file}: the scan misses fields it reads`);
});

test('every request field a parser reads is documented', () => {
  const missing = [];
  for (const [file, roots] of Object.entries(PARSERS))
    for (const name of read[file]) {
      const found = requestRows.some((row) => roots.includes(rootOf(row)) && segmentsOf(row).includes(name));
      if (!found) missing.push(`${file}: ${name} (under ${roots.join(', ')})`);
    }
  assert.deepEqual(missing.sort(), [], 'request fields without a row in docs/contract.md');
});

test('every documented request field is read by a parser', () => {
  const unread = requestRows.filter((row) => {
    const name = segmentsOf(row).filter((s) => !isPlaceholder(s)).pop() ?? '';
    return !Object.entries(PARSERS).some(([file, roots]) => roots.includes(rootOf(row)) && read[file].has(name));
  });
  assert.deepEqual(unread, [], 'rows of docs/contract.md that no parser reads');
});

// ---- the units the page states --------------------------------------------------------------------

test('stage times are per micro batch except busy and bubble, which are per step', () => {
  // 4 layers of forward 1 ms (backward defaults to 2 x forward), pp 2, m 4, 1f1b, free transfers:
  // per micro batch a stage runs F = 2 and B = 4 ms. 1F1B's step for equal stages (docs/ppb.md) is
  // (m + pp - 1)(F + B) = 5 x 6 = 30 ms; each stage is busy m(F + B) = 24 ms of it.
  const { response } = run('estimate', {
    model: { layers: [{ name: 'l', count: 4, forward_ms: 1, static_mib: 100, activation_mib: 10 }] },
    device: { reserved_mib: 50 },
    pipeline: { pp_degree: 2, micro_batch_num: 4 },
  });
  /** @type {{step_time_ms: number, bubble: {per_stage_ms: number[], fraction: number},
   *            stages: {time: Record<string, number>, memory: Record<string, number>}[]}} */
  const r = response.result;
  assert.equal(r.step_time_ms, 30);
  for (const stage of r.stages) {
    assert.equal(stage.time.forward_ms, 2);
    assert.equal(stage.time.backward_ms, 4);
    assert.equal(stage.time.busy_ms, 24);
    assert.equal(stage.time.bubble_ms, 6);
  }
  assert.deepEqual(r.bubble.per_stage_ms, [6, 6]);
  assert.equal(r.bubble.fraction, 12 / (2 * 30));
  // 1f1b holds min(pp - s, m) micro batches on stage s, 10 MiB per layer each; peak = static +
  // reserved + activation peak.
  assert.deepEqual(r.stages.map((s) => s.memory.in_flight_micro_batches), [2, 1]);
  assert.deepEqual(r.stages.map((s) => s.memory.activation_mib), [2 * 2 * 10, 1 * 2 * 10]);
  assert.deepEqual(r.stages.map((s) => s.memory.peak_mib), [200 + 50 + 40, 200 + 50 + 20]);
});
