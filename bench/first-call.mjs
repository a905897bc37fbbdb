// One workload's first call in a fresh node process (a module that has run nothing yet), for bench/wasm-bench.mjs:
//   node bench/first-call.mjs <ppb_engine.js> <ppb_engine.wasm> <workloads.json> <name> [after-warm-up]
// prints {"name", "ms", "response"} (bench/timing.mjs, firstCall: balance and search in slices, as the page runs them).
// With after-warm-up, the page worker's warm-up after loading (web/warm-up.js) runs first: the first call a person
// makes a moment after the page has loaded.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { firstCall, prepareFirst } from './timing.mjs';

const [engineJs, engineWasm, file, name, mode = 'cold'] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const engine = await require(engineJs)({ wasmBinary: readFileSync(engineWasm) });
const w = JSON.parse(readFileSync(file, 'utf8')).find((/** @type {{name: string}} */ x) => x.name === name);
if (!w) throw new Error(`no workload named ${name}`);
const pause = () => new Promise((resolve) => setImmediate(resolve));
await prepareFirst(engine, mode, pause);
const { ms, response } = await firstCall(engine, w, pause);
process.stdout.write(JSON.stringify({ name, ms, response }));
