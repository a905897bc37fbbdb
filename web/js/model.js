// What the page needs to know about a model document before the engine has seen it: layer counts, pins and
// the recompute options, read defensively (the document may be invalid; the engine reports that). Only what the
// document says: every rule on partitions (layer_offset <-> stage_layers, recompute counts per stage) is the
// engine's, read from its answers.

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
