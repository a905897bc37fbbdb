// The bad-input corpus through both faces of the engine: the CLI (build/native/ppb) and the WASM module
// (build/wasm/wasm/ppb_engine.js). Each input must give the contract's JSON with the code expected.txt
// names, the same JSON from both, within a time limit: never a crash, never a hang.
// The files go in as raw bytes (embind takes a Uint8Array for std::string), so the module sees what the
// CLI reads, non-UTF-8 bytes included. Run by ./dev.sh test after ./dev.sh build.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

const root = fileURLToPath(new URL('..', import.meta.url));
const corpus = join(root, 'tests', 'bad-inputs');
const cli = join(root, 'build', 'native', 'ppb');
const moduleJs = join(root, 'build', 'wasm', 'wasm', 'ppb_engine.js');
const moduleWasm = join(root, 'build', 'wasm', 'wasm', 'ppb_engine.wasm');
const TIMEOUT_MS = 60_000;

// expected.txt: "FILE CODE  # why"
const expected = new Map(
  readFileSync(join(corpus, 'expected.txt'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('#'))
    .map((line) => line.split(/\s+/).slice(0, 2)),
);

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

let worker = null;
function startWorker() {
  return new Promise((resolve, reject) => {
    const w = new Worker(workerSource, { eval: true, workerData: { js: moduleJs, wasm: moduleWasm },
                                         resourceLimits: { maxOldGenerationSizeMb: 4096 } });
    w.once('message', () => resolve(w));
    w.once('error', reject);
  });
}

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
    w.once('message', (answer) => {
      clearTimeout(timer);
      resolve(answer);
    });
    w.once('error', (error) => {
      clearTimeout(timer);
      worker = null;
      resolve({ crash: String(error) });
    });
    w.postMessage({ command, bytes });
  });
}

function runCli(command, file) {
  const r = spawnSync(cli, [command, file], { timeout: TIMEOUT_MS, maxBuffer: 512 * 1024 * 1024, encoding: 'utf8' });
  if (r.error?.code === 'ETIMEDOUT') return { hang: true };
  return { status: r.status, signal: r.signal, json: r.stdout.replace(/\n$/, '') };
}

// Both faces answer, with the same JSON, carrying `code` (or a result for "ok").
async function checkBoth(command, file, bytes, code) {
  const fromCli = runCli(command, file);
  assert.ok(!fromCli.hang, `the CLI took over ${TIMEOUT_MS} ms`);
  assert.equal(fromCli.signal, null, `the CLI died of ${fromCli.signal}`);
  assert.equal(fromCli.status, code === 'ok' ? 0 : 2, `CLI exit status; stdout: ${fromCli.json.slice(0, 300)}`);
  const fromWasm = await runWasm(command, bytes);
  assert.ok(!fromWasm.hang, `the WASM module took over ${TIMEOUT_MS} ms`);
  assert.equal(fromWasm.crash, undefined, `the WASM module threw: ${fromWasm.crash}`);
  const response = JSON.parse(fromWasm.json);
  if (code === 'ok') assert.equal(response.ok, true, fromWasm.json.slice(0, 300));
  else assert.ok(response.errors.some((e) => e.code === code), `expected ${code}: ${fromWasm.json.slice(0, 300)}`);
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
    assert.ok(files.length >= 60);
  });
  for (const name of files) {
    test(name, async () => {
      const file = join(corpus, name);
      await checkBoth(name.split('.')[0], file, new Uint8Array(readFileSync(file)), expected.get(name));
    });
  }
});

describe('generated inputs too large to keep: CLI and WASM agree', () => {
  let dir;
  before(() => { dir = mkdtempSync(join(tmpdir(), 'ppb-bad-inputs-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const model = { layers: [{ name: 'decoder', count: 4, forward_ms: 1 }] };
  const request = { model, pipeline: { pp_degree: 2, micro_batch_num: 2 } };
  const generated = [
    ['estimate', 'a 50 MB model name', () => JSON.stringify({ ...request, model: { ...model, name: 'x'.repeat(50e6) } }), 'TOO_LONG'],
    ['estimate', '50 MB of whitespace around a valid request', () => ' '.repeat(25e6) + JSON.stringify(request) + ' '.repeat(25e6), 'ok'],
    ['import', '50 MB of layer entries', () => JSON.stringify({ layers: Array(1.8e6).fill({ name: 'l', forward_ms: 1 }) }), 'JSON_TOO_MANY_VALUES'],
    ['balance', '64 MiB + 1 byte', () => ' '.repeat(64 * 1024 * 1024 + 1), 'INPUT_TOO_LARGE'],
    ['search', '100,000 nested arrays', () => '['.repeat(1e5) + ']'.repeat(1e5), 'JSON_TOO_DEEP'],
  ];
  for (const [command, what, make, code] of generated) {
    test(`${command}: ${what}`, async () => {
      const bytes = Buffer.from(make(), 'utf8');
      const file = join(dir, 'input.json');
      writeFileSync(file, bytes);
      await checkBoth(command, file, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), code);
    });
  }
});
