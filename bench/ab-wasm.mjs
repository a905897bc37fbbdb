// Two WASM builds of the engine side by side on the simulate workloads, to tell a regression of the
// code from a change of the machine: both run in one node process each, alternately, round after
// round, so that both meet the same load. Old builds work too (only `estimate` is called).
//
//   node bench/ab-wasm.mjs BUILD_A BUILD_B [--rounds R] [--only SUBSTRING]
//
// BUILD_A and BUILD_B are WASM build directories (holding wasm/ppb_engine.js and .wasm), e.g. a
// worktree of an older commit built with `cmake --build build/wasm --target ppb_engine_wasm`. Prints,
// per workload, each build's median ms over the rounds (each round's figure the median of
// bench/timing.mjs's samples, after the same 3 s warm-up as bench/wasm-bench.mjs) and B / A.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { median, timeCalls, warmUp } from './timing.mjs';
import { workloads } from './workloads.mjs';

/** @param {string[]} argv */
function parseArgs(argv) {
  const options = { builds: /** @type {string[]} */ ([]), rounds: 5, only: '', child: '' };
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '--rounds') options.rounds = Number(argv[++i]);
    else if (argv[i] === '--only') options.only = argv[++i];
    else if (argv[i] === '--child') options.child = argv[++i];
    else options.builds.push(resolve(argv[i]));
  }
  if (options.builds.length !== 2 || !(options.rounds >= 1)) {
    console.error('usage: node bench/ab-wasm.mjs BUILD_A BUILD_B [--rounds R] [--only SUBSTRING]');
    process.exit(2);
  }
  return options;
}

const options = parseArgs(process.argv.slice(2));
const list = workloads().filter((w) => w.group === 'simulate' && w.name.includes(options.only));

if (options.child) {
  // One build, one round: every workload timed once, the medians printed as JSON.
  const js = join(options.child, 'wasm/ppb_engine.js');
  const factory = createRequire(import.meta.url)(js);
  const engine = await factory({ wasmBinary: readFileSync(join(options.child, 'wasm/ppb_engine.wasm')) });
  // As bench/wasm-bench.mjs: V8 compiles WebAssembly in tiers, so the timed calls come after 3 s of calls.
  await warmUp(list.map((w) => { const request = JSON.stringify(w.request); return () => engine.estimate(request); }), 3000);
  /** @type {Record<string, number>} */
  const out = {};
  for (const w of list) {
    const request = JSON.stringify(w.request);
    out[w.name] = (await timeCalls(w.name, () => engine.estimate(request), { repeat: 3 })).median_ms;
  }
  console.log(JSON.stringify(out));
} else {
  /** @type {Record<string, number[]>[]} */
  const figures = [{}, {}];
  for (let round = 0; round < options.rounds; ++round)
    for (const [b, build] of options.builds.entries()) {
      const text = execFileSync(process.execPath, [process.argv[1], ...options.builds, '--only', options.only, '--child', build],
        { encoding: 'utf8', maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'ignore'] });
      const round_ms = JSON.parse(text.trim().split('\n').pop() ?? '{}');
      for (const [name, ms] of Object.entries(round_ms)) (figures[b][name] ??= []).push(ms);
    }
  console.log(`A: ${options.builds[0]}\nB: ${options.builds[1]}\n| workload | A ms | B ms | B / A |\n|---|---:|---:|---:|`);
  for (const w of list) {
    const a = median(figures[0][w.name]), b = median(figures[1][w.name]);
    console.log(`| ${w.name} | ${a.toFixed(2)} | ${b.toFixed(2)} | ${(b / a).toFixed(2)} |`);
  }
}
