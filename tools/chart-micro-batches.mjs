// Draws docs/micro-batches.svg: bubble fraction, step time per micro batch and stage 0's activation
// peak against micro_batch_num for each schedule, every point an `estimate` run of the engine.
//
//   node tools/chart-micro-batches.mjs [--engine native|wasm] [--out docs/micro-batches.svg]
//
// native runs build/native/ppb; wasm loads build/wasm/wasm/ppb_engine.js (same answers, the same
// engine). The model is 24 copies of examples/dense-profiled-24l.json's decoder layer, no pinned
// layers and no transfer cost, on pp 4, so that the figures meet docs/micro-batches.md's formulas
// exactly. Prints the numbers as a markdown table too.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PP = 4;
const MICRO_BATCHES = [4, 8, 12, 16, 24, 32, 48, 64];
// gpipe is drawn dashed over 1f1b: the two have the same step time and differ only in memory.
/** @type {{schedule: string, vpp: number, label: string, colour: string, marker: 'circle' | 'square' | 'triangle' | 'diamond', dash?: string}[]} */
const SERIES = [
  { schedule: '1f1b', vpp: 1, label: '1f1b', colour: '#11a579', marker: 'circle' },
  { schedule: 'gpipe', vpp: 1, label: 'gpipe (time as 1f1b)', colour: '#7f3c8d', marker: 'square', dash: '5 4' },
  { schedule: 'interleaved_1f1b', vpp: 2, label: 'interleaved_1f1b (vpp 2)', colour: '#3969ac', marker: 'triangle' },
  { schedule: 'zb_h1', vpp: 1, label: 'zb_h1', colour: '#e68310', marker: 'diamond' },
];

/**
 * @param {string[]} argv
 * @returns {{engine: string, out: string}}
 */
function parseArgs(argv) {
  const options = { engine: existsSync(join(ROOT, 'build/native/ppb')) ? 'native' : 'wasm', out: join(ROOT, 'docs/micro-batches.svg') };
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '--engine' && i + 1 < argv.length) options.engine = argv[++i];
    else if (argv[i] === '--out' && i + 1 < argv.length) options.out = resolve(argv[++i]);
    else throw new Error(`unknown option ${argv[i]}; usage: --engine native|wasm --out FILE`);
  }
  return options;
}

/**
 * A function running `estimate` on a request object and returning the parsed response.
 * @param {string} engine
 * @returns {Promise<(request: object) => any>}
 */
async function estimator(engine) {
  if (engine === 'native') {
    const ppb = join(ROOT, 'build/native/ppb');
    return (request) => {
      const r = spawnSync(ppb, ['estimate', '-'], { input: JSON.stringify(request), maxBuffer: 1 << 28 });
      return JSON.parse(r.stdout.toString());
    };
  }
  const require = createRequire(import.meta.url);
  const createPpbEngine = require(join(ROOT, 'build/wasm/wasm/ppb_engine.js'));
  const module = await createPpbEngine({ wasmBinary: readFileSync(join(ROOT, 'build/wasm/wasm/ppb_engine.wasm')) });
  return (request) => JSON.parse(module.estimate(JSON.stringify(request)));
}

/**
 * @returns {object} the model document of the chart
 */
function chartModel() {
  const example = JSON.parse(readFileSync(join(ROOT, 'examples/dense-profiled-24l.json'), 'utf8'));
  const decoder = example.layers.find((/** @type {any} */ l) => l.name === 'decoder');
  const { name, kind, count, forward_ms, backward_ms, weight_backward_ms, activation_mib, static_mib } = decoder;
  return { format: 'ppb.model.v1', name: 'decoders of dense-profiled-24l',
    layers: [{ name, kind, count, forward_ms, backward_ms, weight_backward_ms, activation_mib, static_mib }] };
}

/**
 * @typedef {{m: number, bubble: number, stepMs: number, perMicroBatchMs: number, activationGib: number, inFlight: number}} Point
 */

// ---- drawing --------------------------------------------------------------------------------------

/**
 * @param {string} text
 * @returns {string}
 */
function xml(text) {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * About `count` round tick values from 0 to at least `max`.
 * @param {number} max
 * @param {number} count
 * @returns {number[]}
 */
function ticks(max, count) {
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((f) => f * magnitude).find((s) => s >= raw) ?? 10 * magnitude;
  const out = [];
  for (let v = 0; v < max + step * 0.999; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

/**
 * @param {string} marker
 * @param {number} x
 * @param {number} y
 * @param {string} colour
 * @returns {string}
 */
function markerSvg(marker, x, y, colour) {
  const r = 3.5;
  const p = (/** @type {number[][]} */ pts) => pts.map(([a, b]) => `${(x + a).toFixed(1)},${(y + b).toFixed(1)}`).join(' ');
  if (marker === 'circle') return `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${r}" fill="${colour}"/>`;
  if (marker === 'square') return `<rect x="${(x - r).toFixed(1)}" y="${(y - r).toFixed(1)}" width="${2 * r}" height="${2 * r}" fill="${colour}"/>`;
  if (marker === 'triangle') return `<polygon points="${p([[0, -r - 1], [r + 1, r], [-r - 1, r]])}" fill="${colour}"/>`;
  return `<polygon points="${p([[0, -r - 1], [r + 1, 0], [0, r + 1], [-r - 1, 0]])}" fill="${colour}"/>`;
}

/**
 * One panel: axes, ticks, grid, a line and markers per series.
 * @param {{x: number, y: number, width: number, height: number, title: string, yLabel: string,
 *          value: (p: Point) => number, format: (v: number) => string}} panel
 * @param {Point[][]} data one list of points per series
 * @returns {string[]}
 */
function panelSvg(panel, data) {
  const { x, y, width, height } = panel;
  const xMax = Math.max(...MICRO_BATCHES);
  const yMax = Math.max(...data.flat().map(panel.value));
  const yTicks = ticks(yMax, 5);
  const yTop = yTicks[yTicks.length - 1];
  const xTicks = [0, 8, 16, 24, 32, 40, 48, 56, 64];
  const sx = (/** @type {number} */ v) => x + (v / xMax) * width;
  const sy = (/** @type {number} */ v) => y + height - (v / yTop) * height;
  const out = [`<g class="panel">`, `<text class="title" x="${x}" y="${y - 14}">${xml(panel.title)}</text>`];
  for (const t of yTicks) {
    out.push(`<line class="grid" x1="${x}" x2="${x + width}" y1="${sy(t).toFixed(1)}" y2="${sy(t).toFixed(1)}"/>`);
    out.push(`<text class="tick" x="${x - 6}" y="${(sy(t) + 4).toFixed(1)}" text-anchor="end">${xml(panel.format(t))}</text>`);
  }
  for (const t of xTicks) {
    out.push(`<line class="axis" x1="${sx(t).toFixed(1)}" x2="${sx(t).toFixed(1)}" y1="${y + height}" y2="${y + height + 4}"/>`);
    out.push(`<text class="tick" x="${sx(t).toFixed(1)}" y="${y + height + 17}" text-anchor="middle">${t}</text>`);
  }
  out.push(`<line class="axis" x1="${x}" x2="${x + width}" y1="${y + height}" y2="${y + height}"/>`);
  out.push(`<line class="axis" x1="${x}" x2="${x}" y1="${y}" y2="${y + height}"/>`);
  out.push(`<text class="label" x="${x + width / 2}" y="${y + height + 36}" text-anchor="middle">micro_batch_num m</text>`);
  out.push(`<text class="label" transform="translate(${x - 46} ${y + height / 2}) rotate(-90)" text-anchor="middle">${xml(panel.yLabel)}</text>`);
  data.forEach((points, i) => {
    const s = SERIES[i];
    const path = points.map((p, k) => `${k ? 'L' : 'M'}${sx(p.m).toFixed(1)} ${sy(panel.value(p)).toFixed(1)}`).join(' ');
    out.push(`<path d="${path}" fill="none" stroke="${s.colour}" stroke-width="1.8"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`);
    for (const p of points) out.push(markerSvg(s.marker, sx(p.m), sy(panel.value(p)), s.colour));
  });
  out.push('</g>');
  return out;
}

/**
 * @param {Point[][]} data
 * @param {{layers: number, perStage: number, F: number, B: number, W: number, activationMib: number}} stage
 * @returns {string}
 */
function chartSvg(data, stage) {
  const width = 1080;
  const height = 435;
  const panelWidth = 260;
  const panelHeight = 230;
  const top = 125;
  const panels = [
    { x: 80, title: 'Pipeline bubble', yLabel: 'bubble fraction (%)', value: (/** @type {Point} */ p) => 100 * p.bubble, format: (/** @type {number} */ v) => `${v}` },
    { x: 440, title: 'Step time per micro batch', yLabel: 'step time / m (ms)', value: (/** @type {Point} */ p) => p.perMicroBatchMs, format: (/** @type {number} */ v) => `${v}` },
    { x: 800, title: 'Activation peak of stage 0', yLabel: 'activation memory (GiB)', value: (/** @type {Point} */ p) => p.activationGib, format: (/** @type {number} */ v) => `${v}` },
  ];
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" role="img" aria-labelledby="chart-title">`,
    `<title id="chart-title">micro_batch_num against bubble, step time and activation memory, per schedule (PPB engine runs)</title>`,
    '<style>.grid{stroke:#e3e3e3}.axis{stroke:#444}.tick{font-size:11px;fill:#444}.label{font-size:12px;fill:#222}.title{font-size:14px;font-weight:600;fill:#111}.note{font-size:11px;fill:#555}.legend{font-size:12px;fill:#222}</style>',
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text class="title" x="80" y="24">micro_batch_num against bubble, step time and activation memory, per schedule</text>`,
    `<text class="note" x="80" y="42">pp ${PP}, ${stage.layers} identical layers (${stage.perStage} per stage): per micro batch and stage F ${stage.F} ms, B ${stage.B} ms (W ${stage.W} ms of it), ${stage.activationMib} MiB of activations.</text>`,
    `<text class="note" x="80" y="57">Every point is one ppb estimate run (tools/chart-micro-batches.mjs): even split, no recompute, no transfer cost.</text>`,
  ];
  SERIES.forEach((s, i) => {
    const lx = 80 + i * 200;
    out.push(`<line x1="${lx}" x2="${lx + 26}" y1="80" y2="80" stroke="${s.colour}" stroke-width="1.8"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`);
    out.push(markerSvg(s.marker, lx + 13, 80, s.colour));
    out.push(`<text class="legend" x="${lx + 32}" y="84">${xml(s.label)}</text>`);
  });
  for (const p of panels) out.push(...panelSvg({ ...p, y: top, width: panelWidth, height: panelHeight }, data));
  out.push('</svg>', '');
  return out.join('\n');
}

// ---- main -----------------------------------------------------------------------------------------

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const run = await estimator(options.engine);
  const model = chartModel();
  /** @type {Point[][]} */
  const data = [];
  for (const s of SERIES) {
    /** @type {Point[]} */
    const points = [];
    for (const m of MICRO_BATCHES) {
      const response = run({ model, pipeline: { pp_degree: PP, vpp_degree: s.vpp, micro_batch_num: m, schedule: s.schedule } });
      if (!response.ok) throw new Error(`${s.schedule} m ${m}: ${JSON.stringify(response.errors)}`);
      const r = response.result;
      const stage0 = r.stages[0];
      points.push({ m, bubble: r.bubble.fraction, stepMs: r.step_time_ms, perMicroBatchMs: r.step_time_ms / m,
        activationGib: stage0.memory.activation_mib / 1024, inFlight: stage0.memory.in_flight_micro_batches });
    }
    data.push(points);
  }
  const decoder = /** @type {any} */ (model).layers[0];
  const perStage = decoder.count / PP;
  const stage = { layers: decoder.count, perStage, F: +(perStage * decoder.forward_ms).toFixed(2), B: +(perStage * decoder.backward_ms).toFixed(2),
    W: +(perStage * decoder.weight_backward_ms).toFixed(2), activationMib: perStage * decoder.activation_mib };
  writeFileSync(options.out, chartSvg(data, stage));
  process.stderr.write(`wrote ${relative(ROOT, options.out)} (${options.engine} engine)\n`);

  const header = ['schedule', 'm', 'step_time_ms', 'step / m (ms)', 'bubble', 'stage 0 in flight', 'stage 0 activation (MiB)'];
  const lines = [`| ${header.join(' | ')} |`, `|---|${header.slice(1).map(() => '---:').join('|')}|`];
  data.forEach((points, i) => {
    for (const p of points)
      lines.push(`| ${SERIES[i].label} | ${p.m} | ${+p.stepMs.toFixed(2)} | ${p.perMicroBatchMs.toFixed(2)} | ${(100 * p.bubble).toFixed(1)}% | ${p.inFlight} | ${+(p.activationGib * 1024).toFixed(1)} |`);
  });
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((e) => {
  process.stderr.write(`chart-micro-batches: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
