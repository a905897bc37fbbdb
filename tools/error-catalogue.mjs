// Writes docs/errors.md: every error and warning code the engine can emit, each with a real example
// from the bad-input corpus (tests/bad-inputs/) and the message the CLI gave for it.
//   node tools/error-catalogue.mjs        (after ./dev.sh build; runs build/native/ppb)
// tests/bad-inputs.test.mjs checks that docs/errors.md is what this writes, and that every code in
// the engine's sources is in it. Plain node, no dependencies.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusDir, generated, readExpected, root } from '../tests/bad-inputs-corpus.mjs';

export const docPath = join(root, 'docs', 'errors.md');
const defaultCli = join(root, 'build', 'native', 'ppb');

// Literals of the sources that look like codes but are data: the SAPP layer types.
const notCodes = new Set(['HEAD', 'BODY', 'TAIL',
  // PyTorch pipelining action types, which the reader of pipeline.program names (schedule/program_import.cpp)
  'OVERLAP_F_B', 'UNSHARD', 'RESHARD', 'REDUCE_GRAD', 'SEND_F', 'RECV_F', 'SEND_B', 'RECV_B']);

/**
 * Every diagnostic code in the engine's sources: each string literal of three or more capitals,
 * digits and underscores ("OFFSET_SUM", "NEGATIVE") outside comments, but the SAPP layer types and
 * PyTorch's action types.
 * (Shorter literals are operation names and trace phases: "F", "B", "W", "X".)
 * @param {string} [base] the repository root
 * @returns {string[]} sorted
 */
export function engineCodes(base = root) {
  /** @type {Set<string>} */
  const codes = new Set();
  /** @param {string} dir */
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(cpp|hpp|h)$/.test(name))
        for (const line of readFileSync(path, 'utf8').split('\n')) {
          const code = line.replace(/(^|\s)\/\/.*$/, '');  // comments here start a line or follow a space
          for (const m of code.matchAll(/"([A-Z][A-Z0-9_]{2,})"/g)) if (!notCodes.has(m[1])) codes.add(m[1]);
        }
    }
  };
  for (const dir of ['engine/src', 'engine/include', 'engine/cli', 'wasm']) walk(join(base, dir));
  return [...codes].sort();
}

// Codes no request can produce, and why. They are listed in docs/errors.md all the same.
/** @type {Record<string, [path: string, why: string]>} */
export const unproducible = {
  INTERNAL: ['', 'a broken invariant inside the engine (a bug), caught at the command boundary; exit status 1'],
  OUT_OF_MEMORY: ['', 'the engine could not allocate memory (std::bad_alloc); the caps keep every request far below it; exit status 1'],
  NOT_FINITE: ['the field', 'a defensive check: a parsed JSON number is always finite (NaN and Infinity are JSON_SYNTAX, 1e400 is JSON_NUMBER_RANGE)'],
  CLUSTER_NOT_DIVISIBLE: ['/training/world_size', 'not an error: a problem in the `cluster` command\'s result (ok true), the rule the search skips a pp_degree by: world_size is not divisible by pp_degree x tp_degree x cp_degree (docs/contract.md, "Cluster result")'],
  DP_NOT_DIVISIBLE_BY_EP: ['/training/ep_degree', 'not an error: a problem in the `cluster` command\'s result (ok true), the rule the search skips a pp_degree by: the experts\' ranks (ep_degree x expert tp) do not divide a stage\'s dp x cp x tp (docs/contract.md, "Cluster result")'],
  MODEL_NOT_KEPT: ['/model', 'only through the WASM module, which keeps a model read once (keepModel) for the requests that name it by id (the page\'s worker, docs/page.md): a request naming an id no model has (dropped, or never kept), or an import naming one; a CLI request holds its model'],
  TRANSFORMER_MISSING: ['/transformer', 'reported only by the C++ function ppb::transformer_model called without a "transformer" section; every command checks for the section before calling it'],
};

// The areas of docs/errors.md, in order; every code belongs to exactly one.
/** @type {[title: string, intro: string, codes: string[]][]} */
export const areas = [
  ['JSON and input', 'The request text and the values of its fields, wherever they are.',
   ['COMMAND_UNKNOWN', 'JSON_SYNTAX', 'JSON_NUMBER_RANGE', 'TYPE_MISMATCH', 'REQUIRED', 'NOT_INTEGER', 'NEGATIVE',
    'NOT_FINITE', 'TOO_LARGE', 'OUT_OF_RANGE', 'TOO_LONG', 'UNKNOWN_FIELD']],
  ['Model', 'The ppb.model.v1 layer cost document (`/model`).',
   ['MODEL_MISSING', 'MODEL_CONFLICT', 'MODEL_NOT_KEPT', 'FORMAT_UNKNOWN', 'LAYERS_EMPTY', 'PIN_INVALID', 'PIN_ORDER',
    'STATIC_MEMORY_FORMS', 'WEIGHT_BACKWARD_EXCEEDS', 'COST_PART_EXCEEDS']],
  ['Training and batch', 'Batch sizes and micro_batch_num (`/training`, `/pipeline/micro_batch_num`).',
   ['BATCH_INVALID', 'BATCH_NOT_DIVISIBLE', 'BATCH_MISMATCH', 'MICRO_BATCH_NUM_MISSING']],
  ['Pipeline and partition', 'Degrees, schedule, the partition forms and per-stage lists (`/pipeline`, `/components`).',
   ['PP_DEGREE_INVALID', 'VPP_DEGREE_INVALID', 'PP_EXCEEDS_LAYERS', 'SCHEDULE_UNKNOWN', 'SCHEDULE_NEEDS_VPP',
    'VPP_NEEDS_INTERLEAVED', 'MICRO_BATCH_NOT_MULTIPLE', 'SCHEDULE_NEEDS_TWO_CHUNKS', 'MICRO_BATCH_TOO_FEW',
    'PARTITION_CONFLICT', 'PARTITION_UNUSABLE',
    'PARTITION_INCOMPLETE', 'PARTITION_LENGTH', 'PARTITION_RANGE', 'PARTITION_ORDER', 'PIN_PLACEMENT',
    'STAGE_LAYERS_LENGTH', 'STAGE_LAYERS_SUM', 'STAGE_LAYERS_NEGATIVE', 'OFFSET_LENGTH', 'OFFSET_SUM',
    'OFFSET_NEGATIVE_STAGE', 'MEGATRON_LAYOUT_SYNTAX', 'MEGATRON_LAYOUT_ENDS', 'MEGATRON_LAYOUT_STAGES',
    'MEGATRON_LAYOUT_LAYERS', 'EMPTY_STAGE', 'COMPONENT_LENGTH']],
  ['Program', 'A user\'s own program, `pipeline.program`: PyTorch pipelining actions per rank or the CSV text (docs/schedules.md, "A program of your own").',
   ['PROGRAM_ACTION_INVALID', 'PROGRAM_RANKS', 'PROGRAM_STAGE', 'PROGRAM_MICRO_BATCHES', 'PROGRAM_INCOMPLETE',
    'PROGRAM_DEADLOCK', 'PROGRAM_NOT_SUPPORTED']],
  ['Recompute', 'Recompute options of the layers and the plan\'s recompute (`/pipeline/recompute`).',
   ['RECOMPUTE_OPTION_RESERVED', 'RECOMPUTE_OPTION_UNKNOWN', 'RECOMPUTE_OPTION_MISSING', 'RECOMPUTE_FORM',
    'RECOMPUTE_COUNT_LENGTH', 'RECOMPUTE_COUNT_EXCEEDS', 'RECOMPUTE_LAYER_RANGE', 'RECOMPUTE_LAYER_DUPLICATE']],
  ['Training state', 'Precision and how the data-parallel ranks shard the training state (`/training`, docs/contract.md).',
   ['SHARDING_UNKNOWN', 'SHARDING_CONFLICT', 'SHARD_GROUP_UNKNOWN', 'BYTES_PER_PARAM_CONFLICT']],
  ['Balance', 'The `balance` section, what balance ignores, and `compare.plans`.',
   ['BALANCE_MODE_UNKNOWN', 'OFFSET_RANGE_INVALID', 'COMPARE_PLANS_UNKNOWN', 'IGNORED_FIELD']],
  ['Search', 'The `search` section, and the rules of a cluster that the `cluster` command reports in its result.',
   ['SEARCH_EMPTY', 'SEARCH_RANGE', 'RANK_BY_UNKNOWN', 'CLUSTER_NOT_DIVISIBLE', 'DP_NOT_DIVISIBLE_BY_EP']],
  ['Transformer', 'The symbolic `transformer` description and its `parallel` and `training` settings (docs/transformer-model.md).',
   ['TRANSFORMER_MISSING', 'HIDDEN_NOT_DIVISIBLE_BY_HEADS', 'HEADS_NOT_DIVISIBLE_BY_GROUPS', 'NORMALIZATION_UNKNOWN',
    'TOP_K_INVALID', 'HEADS_NOT_DIVISIBLE_BY_TP', 'GROUPS_NOT_DIVISIBLE_BY_TP', 'FFN_NOT_DIVISIBLE_BY_TP',
    'SEQ_NOT_DIVISIBLE_BY_CP', 'SEQ_NOT_DIVISIBLE_BY_TP', 'EXPERTS_NOT_DIVISIBLE_BY_EP', 'EP_UNUSED',
    'DP_DEGREE_CONFLICT', 'PRECISION_UNKNOWN', 'ATTENTION_UNKNOWN', 'RECOMPUTE_OPTION_DUPLICATE', 'MODEL_TOO_LARGE',
    'MOE_LAYER_FREQ_LENGTH', 'LINKS_INCOMPLETE']],
  ['Device', 'The `device` section and its presets (docs/devices.md).', ['DEVICE_PRESET_UNKNOWN']],
  ['Import', 'The `import` command, MindFormers/HyperParallel SAPP layer files and Hugging Face config.json files (docs/interop.md).',
   ['IMPORT_SOURCE_CONFLICT', 'IMPORT_SOURCE_UNKNOWN', 'SAPP_TYPE_UNKNOWN', 'SAPP_BODY_MISSING',
    'SAPP_NB_LAYER_IGNORED', 'SAPP_FIELD_IGNORED', 'SAPP_RECOMPUTE_IGNORED', 'SAPP_RECOMPUTE_FASTER',
    'SAPP_ACTIVATION_MISSING', 'HF_MODEL_TYPE_UNKNOWN', 'SEQ_LENGTH_ASSUMED', 'HF_FIELDS_NOT_MODELLED']],
  ['Export', 'The `export` section, and exports that no plan the launcher expresses can fit.', ['EXPORT_TARGET_UNKNOWN', 'EXPORT_PLAN_DOES_NOT_FIT']],
  ['Caps and limits', 'Every cap has its own code; the numbers and the reasons are in docs/limits.md.',
   ['INPUT_TOO_LARGE', 'JSON_TOO_DEEP', 'JSON_TOO_MANY_VALUES', 'LAYER_LIMIT', 'RECOMPUTE_OPTION_LIMIT',
    'PP_DEGREE_LIMIT', 'VPP_DEGREE_LIMIT', 'VIRTUAL_STAGE_LIMIT', 'MICRO_BATCH_LIMIT', 'SIMULATION_LIMIT',
    'BALANCE_LIMIT', 'SEARCH_LIMIT', 'TOO_MANY_ERRORS', 'TOO_MANY_WARNINGS']],
  ['Internal', 'Failures of the engine itself, not of the request.', ['INTERNAL', 'OUT_OF_MEMORY']],
];

/**
 * Runs the CLI on a file; returns the parsed response and the exit status.
 * @param {string} cli
 * @param {string} command
 * @param {string} file
 */
function run(cli, command, file) {
  const r = spawnSync(cli, [command, file], { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024, timeout: 120_000 });
  if (r.error) throw new Error(`${cli} ${command} ${file}: ${r.error.message} (build it with ./dev.sh build)`);
  return { status: r.status, response: JSON.parse(r.stdout) };
}

/**
 * @typedef {{code: string, path: string, message: string}} Diagnostic
 */

/**
 * The example of each code: a corpus file (the one marked `example` in expected.txt, else the first
 * listed) or a generated input, and the diagnostic the CLI gave for it.
 * @param {string} cli
 * @returns {Map<string, {kind: 'error' | 'warning', source: string, what: string, command: string,
 *                        diagnostic: Diagnostic}>}
 */
function examples(cli) {
  const chosen = new Map();
  for (const e of readExpected())
    if (e.kind !== 'ok' && (!chosen.has(e.code) || (e.example && !chosen.get(e.code).example))) chosen.set(e.code, e);
  /** @type {ReturnType<typeof examples>} */
  const out = new Map();
  /**
   * @param {string} code
   * @param {'error' | 'warning'} kind
   * @param {string} command
   * @param {string} file
   * @param {string} source
   * @param {string} what
   */
  const record = (code, kind, command, file, source, what) => {
    const { status, response } = run(cli, command, file);
    const list = kind === 'warning' ? response.warnings : response.errors;
    const diagnostic = list?.find((/** @type {Diagnostic} */ d) => d.code === code);
    const wantStatus = kind === 'warning' ? 0 : 2;
    if (!diagnostic || status !== wantStatus)
      throw new Error(`${source}: expected the ${kind} ${code} with exit status ${wantStatus}, got status ${status}: ` +
                      JSON.stringify(response).slice(0, 300));
    out.set(code, { kind, source, what, command, diagnostic });
  };
  for (const [code, e] of chosen)
    record(code, e.kind, e.command, join(corpusDir, e.file), `tests/bad-inputs/${e.file}`, e.what);
  const dir = mkdtempSync(join(tmpdir(), 'ppb-error-catalogue-'));
  try {
    for (const g of generated) {
      if (g.kind === 'ok' || out.has(g.code)) continue;
      const file = join(dir, 'input.json');
      writeFileSync(file, g.make());
      record(g.code, g.kind, g.command, file, 'tests/bad-inputs-corpus.mjs', g.what);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

// Text in a table cell: no line breaks, no column separators, no markup.
const cell = (/** @type {string} */ text) => String(text).replace(/\s*\n\s*/g, ' ').replace(/&/g, '&amp;').replace(/</g, '&lt;')
  .replace(/>/g, '&gt;').replace(/\|/g, '\\|');
const codeSpan = (/** @type {string} */ text) => (text === '' ? '`""`' : `\`${text.replace(/`/g, "'")}\``);

/**
 * The text of docs/errors.md, from the CLI's answers now.
 * @param {{cli?: string}} [options]
 * @returns {string}
 */
export function catalogue({ cli = defaultCli } = {}) {
  const found = engineCodes();
  const areaOf = new Map();
  for (const [title, , codes] of areas)
    for (const code of codes) {
      if (areaOf.has(code)) throw new Error(`${code} is in two areas: ${areaOf.get(code)} and ${title}`);
      areaOf.set(code, title);
    }
  const unplaced = found.filter((code) => !areaOf.has(code));
  if (unplaced.length) throw new Error(`no area for ${unplaced.join(', ')}: add them to areas in tools/error-catalogue.mjs`);
  const gone = [...areaOf.keys()].filter((code) => !found.includes(code));
  if (gone.length) throw new Error(`${gone.join(', ')} no longer in the engine's sources: remove them from tools/error-catalogue.mjs`);
  const ex = examples(cli);
  const missing = found.filter((code) => !ex.has(code) && !(code in unproducible));
  if (missing.length)
    throw new Error(`no example for ${missing.join(', ')}: add a request to tests/bad-inputs/ and its line to expected.txt`);

  const link = (/** @type {string} */ source) => `[${source.split('/').pop()}](../${source})`;
  const counts = { error: 0, warning: 0 };
  for (const { kind } of ex.values()) counts[kind]++;
  const multiple = run(cli, 'estimate', join(corpusDir, 'estimate.every-error-at-once.json')).response;
  const warned = run(cli, 'estimate', join(corpusDir, 'estimate.unknown-field.json')).response;
  const lines = [
    '# Error and warning codes',
    '',
    '<!-- Written by `node tools/error-catalogue.mjs` from tests/bad-inputs/ and build/native/ppb; do not edit.',
    '     tests/bad-inputs.test.mjs fails when this page is not what the tool writes now. -->',
    '',
    `Every code in the engine's sources, ${found.length} in all, each with a request that produces it (a file of`,
    'the bad-input corpus `tests/bad-inputs/`, or an input too large to keep that the tests generate) and the',
    'message the engine gave for it; the few codes no request can produce say why. The contract is',
    '[docs/contract.md](contract.md); the caps behind the limit codes are in [docs/limits.md](limits.md).',
    '',
    '## The response',
    '',
    'An invalid request gets `"ok": false` and `errors`, each with a stable `code`, the JSON Pointer',
    '`path` of the offending field (`""` for the request as a whole) and a `message` a person can act on.',
    'Validation does not stop at the first problem: every error found is listed. The fields of every',
    'section are read first; then every check of the plan against the model (partition, offsets,',
    'recompute, degrees against the layers, the schedule\'s rules) runs whose inputs were read, whatever',
    'else is wrong. A value that could not be read is one error: the checks that need it are left out',
    'rather than run on a default. This request (`tests/bad-inputs/estimate.every-error-at-once.json`)',
    'has a negative forward time, a memory limit given as text, an unknown schedule, an unknown recompute',
    'option and a layer_offset that does not sum:',
    '',
    '```json',
    `{"ok": ${multiple.ok}, "errors": [`,
    multiple.errors.map((/** @type {Diagnostic} */ { code, path, message }) => `  ${JSON.stringify({ code, path, message })}`).join(',\n') + ']}',
    '```',
    '',
    'A warning names something the engine ignored or assumed; the request still gets its result,',
    '`"ok": true` with `warnings` beside `result` (an error response carries `warnings` too when there',
    'are any). `tests/bad-inputs/estimate.unknown-field.json` states a device memory in GB, a field the',
    'contract does not have:',
    '',
    '```json',
    `{"ok": true, "command": "estimate", "result": {...},`,
    ` "warnings": [${warned.warnings.map((/** @type {Diagnostic} */ { code, path, message }) => JSON.stringify({ code, path, message })).join(', ')}]}`,
    '```',
    '',
    'Exit status of the CLI (`ppb COMMAND FILE`): 0 for a result, feasible or not, warnings or not;',
    '2 for an invalid request (`errors`); 1 for an internal failure (`INTERNAL`, `OUT_OF_MEMORY`). The',
    'WASM module returns the same JSON text. A plan that does not fit memory is a result',
    '(`"feasible": false` with `violations`), not an error.',
    '',
    'Each list is capped at 1,000 entries: a request with more problems gets the first 1,000 and a last',
    'entry `TOO_MANY_ERRORS` (or `TOO_MANY_WARNINGS`) counting the rest.',
    '',
    `The tables below give each code (${counts.error} errors and ${counts.warning} warnings with an example, and`,
    `${Object.keys(unproducible).length} codes no request produces) its kind, and the path and message the engine gave for the`,
    'example: the corpus file (the command is the first part of its name) and what is wrong with it.',
    'A code can be reported at other paths too; its message then names that field.',
    '',
  ];
  for (const [title, intro, codes] of areas) {
    lines.push(`## ${title}`, '', intro, '', '| code | kind | path | example | message |', '|---|---|---|---|---|');
    for (const code of codes) {
      const e = ex.get(code);
      if (!e) {
        const [path, why] = unproducible[code];
        lines.push(`| \`${code}\` | error | ${path === 'the field' ? 'the field' : codeSpan(path)} | none: ${cell(why)} | |`);
        continue;
      }
      const example = e.source.endsWith('.mjs')
        ? `\`${e.command}\` of ${cell(e.what)}, made by ${link(e.source)}`
        : `${link(e.source)}: ${cell(e.what)}`;
      lines.push(`| \`${code}\` | ${e.kind} | ${codeSpan(e.diagnostic.path)} | ${example} | ${cell(e.diagnostic.message)} |`);
    }
    lines.push('');
  }
  lines.push('## Adding a code', '',
             'A new code needs a request that produces it: put the file in `tests/bad-inputs/`, add its line to',
             '`expected.txt` (`FILE CODE`, or `FILE warning:CODE` for a warning), give the code an area in',
             '`tools/error-catalogue.mjs`, then run `node tools/error-catalogue.mjs`.', '');
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = catalogue({ cli: process.argv[2] });
  writeFileSync(docPath, text);
  console.log(`wrote ${relative(process.cwd(), docPath) || docPath}`);
}
