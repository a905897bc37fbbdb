// What the page needs to know about a model document before the engine has seen it: layer counts, pins and
// the recompute options, read defensively (the document may be invalid; the engine reports that).

/**
 * @typedef {{name: string, layerCount: number, pinnedFirst: number, pinnedLast: number, body: number,
 *            options: string[], layerNames: string[]}} ModelInfo
 */

const MAX_NAMED_LAYERS = 200_000;

/**
 * Summarises a ppb.model.v1 document. Entries with `count` stand for that many layers.
 * @param {any} model
 * @returns {ModelInfo}
 */
export function modelInfo(model) {
  const layers = model && Array.isArray(model.layers) ? model.layers : [];
  let layerCount = 0;
  let pinnedFirst = 0;
  let pinnedLast = 0;
  /** @type {string[]} */
  const options = [];
  /** @type {string[]} */
  const layerNames = [];
  for (const layer of layers) {
    if (!layer || typeof layer !== 'object') continue;
    const raw = Number(layer.count ?? 1);
    const count = Number.isInteger(raw) && raw > 0 ? raw : 1;
    layerCount += count;
    if (layer.pin === 'first') pinnedFirst += count;
    if (layer.pin === 'last') pinnedLast += count;
    const name = typeof layer.name === 'string' ? layer.name : '';
    for (let i = 0; i < count && layerNames.length < MAX_NAMED_LAYERS; ++i) layerNames.push(name);
    if (layer.recompute && typeof layer.recompute === 'object' && !Array.isArray(layer.recompute)) {
      for (const option of Object.keys(layer.recompute)) if (!options.includes(option)) options.push(option);
    }
  }
  return {
    name: model && typeof model.name === 'string' ? model.name : '',
    layerCount,
    pinnedFirst,
    pinnedLast,
    body: Math.max(0, layerCount - pinnedFirst - pinnedLast),
    options,
    layerNames,
  };
}

/**
 * Layer counts per virtual stage for a layer_offset (the interface specification: base = floor(B / V) body layers each plus the
 * offset; pinned-first layers join stage 0, pinned-last layers stage V-1).
 * @param {ModelInfo} info
 * @param {number[]} offsets one per virtual stage
 * @returns {number[]}
 */
export function stageLayersFromOffset(info, offsets) {
  const stages = offsets.length;
  const base = Math.floor(info.body / stages);
  const layers = offsets.map((offset) => base + offset);
  layers[0] += info.pinnedFirst;
  layers[stages - 1] += info.pinnedLast;
  return layers;
}

/**
 * The layer_offset of a partition given as layers per virtual stage (the inverse of stageLayersFromOffset).
 * @param {ModelInfo} info
 * @param {number[]} stageLayers
 * @returns {number[]}
 */
export function offsetFromStageLayers(info, stageLayers) {
  const stages = stageLayers.length;
  const base = Math.floor(info.body / stages);
  return stageLayers.map((count, v) => {
    let body = count;
    if (v === 0) body -= info.pinnedFirst;
    if (v === stages - 1) body -= info.pinnedLast;
    return body - base;
  });
}

/**
 * Per-virtual-stage counts of the layers each recompute option covers, from a plan's layer lists.
 * @param {Record<string, number[]>} layerRecompute option -> expanded layer indices
 * @param {number[]} stageLayers
 * @returns {Record<string, number[]>}
 */
export function recomputeCounts(layerRecompute, stageLayers) {
  /** @type {number[]} */
  const stageOf = [];
  stageLayers.forEach((count, v) => {
    for (let i = 0; i < count; ++i) stageOf.push(v);
  });
  /** @type {Record<string, number[]>} */
  const counts = {};
  for (const [option, layers] of Object.entries(layerRecompute)) {
    const perStage = stageLayers.map(() => 0);
    for (const layer of layers) {
      const v = stageOf[layer];
      if (v !== undefined) perStage[v] += 1;
    }
    counts[option] = perStage;
  }
  return counts;
}
