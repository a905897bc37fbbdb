// Writes the fuzzer's seed corpus: one file per request, its first byte naming the command
// ('e' estimate, 'b' balance, 'i' import, 'x' export, 's' search, 'c' compare, 'k' cluster), as fuzz/fuzz_commands.cpp
// reads it.
// Sources: the models in examples/ (in requests of every command), the bad-input corpus in
// tests/bad-inputs/ (each under the command its file name gives), and a few hand-made requests.
//   node fuzz/make_seeds.mjs OUTPUT_DIR
import { mkdirSync, readdirSync, readFileSync, writeFileSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = process.argv[2];
if (!out) throw new Error('usage: node fuzz/make_seeds.mjs OUTPUT_DIR');
mkdirSync(out, { recursive: true });

const letter = { estimate: 'e', balance: 'b', import: 'i', export: 'x', search: 's', compare: 'c', cluster: 'k' };
let n = 0;
const seed = (command, text) => {
  writeFileSync(join(out, `seed-${String(n++).padStart(3, '0')}-${command}`), letter[command] + text);
};

const pipeline = { pp_degree: 2, micro_batch_num: 4 };
for (const name of readdirSync(join(root, 'examples')).filter((f) => f.endsWith('.json')).sort()) {
  const text = readFileSync(join(root, 'examples', name), 'utf8');
  const doc = JSON.parse(text);
  if (doc.layers_description) {
    seed('import', text);
    seed('import', JSON.stringify({ sapp: doc }));
    continue;
  }
  seed('import', JSON.stringify(doc));
  seed('estimate', JSON.stringify({ model: doc, pipeline: { ...pipeline, include_timeline: true } }));
  seed('estimate', JSON.stringify({ model: doc, device: { memory_limit_mib: 60000, p2p_bandwidth_gbs: 25 },
                                    pipeline: { pp_degree: 2, vpp_degree: 2, micro_batch_num: 4, schedule: 'interleaved_1f1b' } }));
  seed('balance', JSON.stringify({ model: doc, device: { memory_limit_mib: 60000 }, pipeline }));
  seed('compare', JSON.stringify({ model: doc, device: { memory_limit_mib: 60000 }, pipeline }));
  seed('balance', JSON.stringify({ model: doc, pipeline, balance: { mode: 'offset', offset_range: 1 } }));
  for (const to of ['mindformers', 'megatron', 'chrome-trace'])
    seed('export', JSON.stringify({ model: doc, pipeline: { ...pipeline, schedule: 'zb_h1' }, export: { to } }));
  seed('search', JSON.stringify({ model: doc, device: { memory_limit_mib: 60000 },
                                  search: { pp_degree: [1, 2], micro_batch_num: [4], schedule: ['1f1b', 'zb_h1'] } }));
}

seed('cluster', JSON.stringify({ training: { world_size: 256, tp_degree: 8, global_batch_size: 256 }, pipeline: { pp_degree: 8 } }));
seed('cluster', JSON.stringify({ training: { world_size: 64, tp_degree: 2, cp_degree: 2, ep_degree: 4, global_batch_size: 90 },
                                 pipeline: { pp_degree: 3 } }));
seed('import', JSON.stringify({ transformer: { num_layers: 4, hidden_size: 256, num_attention_heads: 8, vocab_size: 1000,
                                               seq_length: 128, moe: { num_experts: 4, top_k: 2 } },
                                parallel: { tp_degree: 2, sequence_parallel: true }, device: { peak_tflops: 100 } }));
seed('estimate', JSON.stringify({ transformer: { num_layers: 4, hidden_size: 256, num_attention_heads: 8, vocab_size: 1000,
                                                 seq_length: 128 },
                                  device: { peak_tflops: 100 }, training: { global_batch_size: 16, dp_degree: 2 },
                                  pipeline: { pp_degree: 2 } }));

const bad = join(root, 'tests', 'bad-inputs');
for (const name of readdirSync(bad).sort()) {
  const command = name.split('.')[0];
  if (!(command in letter) || statSync(join(bad, name)).size > 65536) continue;
  seed(command, readFileSync(join(bad, name), 'latin1'));
}
console.log(`${n} seeds in ${out}`);
