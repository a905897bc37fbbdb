// The bad-input corpus through both faces of the engine: the CLI (build/native/ppb) and the WASM module
// (build/wasm/wasm/ppb_engine.js). Each input must give the contract's JSON with the code expected.txt
// names, the same JSON from both, within a time limit: never a crash, never a hang.
// The files go in as raw bytes (embind takes a Uint8Array for std::string), so the module sees what the
// CLI reads, non-UTF-8 bytes included. Run by ./dev.sh test after ./dev.sh build.
// Then the error catalogue: every code in the engine's sources has an example here and a row in
// docs/errors.md, and docs/errors.md is what tools/error-catalogue.mjs writes now.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { corpusDir as corpus, generated, readExpected, root } from './bad-inputs-corpus.mjs';
import { areas, catalogue, docPath, engineCodes, unproducible } from '../tools/error-catalogue.mjs';

const cli = join(root, 'build', 'native', 'ppb');
const moduleJs = join(root, 'build', 'wasm', 'wasm', 'ppb_engine.js');
const moduleWasm = join(root, 'build', 'wasm', 'wasm', 'ppb_engine.wasm');
const TIMEOUT_MS = 60_000;

// expected.txt: "FILE EXPECT [example]  # why", EXPECT a code, warning:CODE or ok.
const expectedLines = readExpected();
const expected = new Map(expectedLines.map((e) => [e.file, e]));

// The module runs in a worker thread, so that an input that hangs it can be stopped: the worker is
// terminated and a fresh one serves the next input. (Node's fetch cannot load a file path with this
// Emscripten version, so the .wasm bytes are handed over as wasmBinary.)
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
require(workerData.js)({ wasmBinary: readFileSync(workerData.wasm) }).then((engine) => {
  parentPort.on('message', ({ command, bytes }) => {
    try {
      parentPort.postMessage({ json: engine.run(command, bytes) });
    } catch (error) {
      parentPort.postMessage({ crash: String(error && error.stack || error) });
    }
  });
  parentPort.postMessage({ ready: true });
});`;

/**
 * What the module said about one input: its JSON, or that it threw or hung.
 * @typedef {{json: string, crash?: undefined, hang?: undefined} | {crash: string, json?: undefined, hang?: undefined}
 *         | {hang: true, json?: undefined, crash?: undefined}} WasmAnswer
 */

/** @type {Worker | null} */
let worker = null;
/** @returns {Promise<Worker>} */
function startWorker() {
  return new Promise((resolve, reject) => {
    const w = new Worker(workerSource, { eval: true, workerData: { js: moduleJs, wasm: moduleWasm },
                                         resourceLimits: { maxOldGenerationSizeMb: 4096 } });
    w.once('message', () => resolve(w));
    w.once('error', reject);
  });
}

/**
 * @param {string} command
 * @param {Uint8Array} bytes
 * @returns {Promise<WasmAnswer>}
 */
async function runWasm(command, bytes) {
  worker ??= await startWorker();
  const w = worker;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      w.removeAllListeners('message');
      w.terminate();
      worker = null;
      resolve({ hang: true });
    }, TIMEOUT_MS);
    /** @param {Error} error */
    const onError = (error) => {
      clearTimeout(timer);
      worker = null;
      resolve({ crash: String(error) });
    };
    w.once('message', (/** @type {WasmAnswer} */ answer) => {
      clearTimeout(timer);
      w.removeListener('error', onError);  // one listener per request would pile up on a long-lived worker
      resolve(answer);
    });
    w.once('error', onError);
    w.postMessage({ command, bytes });
  });
}

/**
 * @param {string} command
 * @param {string} file
 * @returns {{hang: true} | {hang?: undefined, status: number | null, signal: NodeJS.Signals | null, json: string}}
 */
function runCli(command, file) {
  const r = spawnSync(cli, [command, file], { timeout: TIMEOUT_MS, maxBuffer: 512 * 1024 * 1024, encoding: 'utf8' });
  if (/** @type {NodeJS.ErrnoException | undefined} */ (r.error)?.code === 'ETIMEDOUT') return { hang: true };
  return { status: r.status, signal: r.signal, json: r.stdout.replace(/\n$/, '') };
}

// Both faces answer, with the same JSON: an error response carrying `code` (kind "error"), a result
// (kind "ok"), or a result whose warnings carry `code` (kind "warning").
/**
 * @param {string} command
 * @param {string} file
 * @param {Uint8Array} bytes
 * @param {'error' | 'warning' | 'ok'} kind
 * @param {string} code
 */
async function checkBoth(command, file, bytes, kind, code) {
  const fromCli = runCli(command, file);
  assert.ok(!fromCli.hang, `the CLI took over ${TIMEOUT_MS} ms`);
  assert.equal(fromCli.signal, null, `the CLI died of ${fromCli.signal}`);
  assert.equal(fromCli.status, kind === 'error' ? 2 : 0, `CLI exit status; stdout: ${fromCli.json.slice(0, 300)}`);
  const fromWasm = await runWasm(command, bytes);
  assert.ok(!fromWasm.hang, `the WASM module took over ${TIMEOUT_MS} ms`);
  assert.equal(fromWasm.crash, undefined, `the WASM module threw: ${fromWasm.crash}`);
  const response = JSON.parse(fromWasm.json);
  assert.equal(response.ok, kind !== 'error', fromWasm.json.slice(0, 300));
  if (kind === 'error') assert.ok(response.errors.some((/** @type {{code: string}} */ e) => e.code === code), `expected ${code}: ${fromWasm.json.slice(0, 300)}`);
  if (kind === 'warning')
    assert.ok(response.warnings?.some((/** @type {{code: string}} */ w) => w.code === code), `expected the warning ${code}: ${fromWasm.json.slice(0, 300)}`);
  // Compared as text: same fields, same order, same number formatting.
  if (fromCli.json !== fromWasm.json) {
    let i = 0;
    while (fromCli.json[i] === fromWasm.json[i]) ++i;
    assert.fail(`CLI and WASM differ at character ${i}:\n  cli:  ${fromCli.json.slice(Math.max(0, i - 80), i + 80)}\n` +
                `  wasm: ${fromWasm.json.slice(Math.max(0, i - 80), i + 80)}`);
  }
}

after(() => worker?.terminate());

describe('bad-input corpus: CLI and WASM agree', () => {
  const files = readdirSync(corpus).filter((f) => f !== 'expected.txt' && f !== 'README.md').sort();
  test('every file is listed in expected.txt, and there are at least 60', () => {
    assert.deepEqual(files, [...expected.keys()].sort());
    assert.equal(expectedLines.length, expected.size, 'expected.txt lists a file twice');
    const marked = expectedLines.filter((e) => e.example).map((e) => e.code);
    assert.equal(new Set(marked).size, marked.length, 'a code with more than one file marked example');
    assert.ok(files.length >= 60);
  });
  for (const name of files) {
    test(name, async () => {
      const file = join(corpus, name);
      const entry = expected.get(name);
      assert.ok(entry, `${name} is listed in expected.txt`);
      const { command, kind, code } = entry;
      await checkBoth(command, file, new Uint8Array(readFileSync(file)), kind, code);
    });
  }
});

describe('generated inputs too large to keep: CLI and WASM agree', () => {
  let dir = '';
  before(() => { dir = mkdtempSync(join(tmpdir(), 'ppb-bad-inputs-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));
  for (const { command, what, make, kind, code } of generated) {
    test(`${command}: ${what}`, async () => {
      const bytes = Buffer.from(make(), 'utf8');
      const file = join(dir, 'input.json');
      writeFileSync(file, bytes);
      await checkBoth(command, file, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), kind, code);
    });
  }
});

describe('error catalogue: every code has an example and a row in docs/errors.md', () => {
  const codes = engineCodes();
  const regenerate = 'run `node tools/error-catalogue.mjs` (after ./dev.sh build)';

  test('the scan of the engine sources finds the codes (and only codes)', () => {
    // Read from engine/src by hand: one of each kind of emitter (Diagnostics::error, ::warning, the
    // capped list's last entry, the command boundary, a cap code passed to a field reader).
    for (const code of ['OFFSET_SUM', 'UNKNOWN_FIELD', 'TOO_MANY_ERRORS', 'INTERNAL', 'COMMAND_UNKNOWN', 'PP_DEGREE_LIMIT'])
      assert.ok(codes.includes(code), `${code} not found by the scan`);
    for (const literal of ['HEAD', 'BODY', 'TAIL', 'F', 'B', 'W', 'X']) assert.ok(!codes.includes(literal), literal);
    assert.ok(codes.length >= 90, `only ${codes.length} codes found`);
  });

  test('every code can be produced by a corpus file or a generated input, or is documented as unproducible', () => {
    const produced = new Set([...expectedLines, ...generated].filter((e) => e.kind !== 'ok').map((e) => e.code));
    const missing = codes.filter((code) => !produced.has(code) && !(code in unproducible));
    assert.deepEqual(missing, [], 'codes without an example: add a request to tests/bad-inputs/ and its line to expected.txt');
    // An unproducible code must really be unproduced, and still be a code of the engine.
    for (const code of Object.keys(unproducible)) {
      assert.ok(!produced.has(code), `${code} has an example; drop it from unproducible in tools/error-catalogue.mjs`);
      assert.ok(codes.includes(code), `${code} is no longer in the engine's sources`);
    }
    const unknown = [...produced].filter((code) => !codes.includes(code));
    assert.deepEqual(unknown, [], 'expected.txt names codes the engine does not have');
  });

  test('every code has a row in docs/errors.md', () => {
    const doc = readFileSync(docPath, 'utf8');
    const rows = new Set([...doc.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| (error|warning) \|/gm)].map((m) => m[1]));
    const missing = codes.filter((code) => !rows.has(code));
    assert.deepEqual(missing, [], `codes missing from docs/errors.md: ${regenerate}`);
    assert.equal(new Set(areas.flatMap(([, , c]) => c)).size, codes.length, 'every code in exactly one area');
  });

  test('docs/errors.md is what tools/error-catalogue.mjs writes now', () => {
    const doc = readFileSync(docPath, 'utf8');
    const now = catalogue({ cli });
    if (doc === now) return;
    const a = doc.split('\n'), b = now.split('\n');
    let i = 0;
    while (a[i] === b[i]) ++i;
    assert.fail(`docs/errors.md is out of date at line ${i + 1}: ${regenerate}.\n  doc: ${a[i]?.slice(0, 200)}\n  now: ${b[i]?.slice(0, 200)}`);
  });
});
