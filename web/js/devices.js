// The engine's device presets (`device.preset`, docs/devices.md) as the page offers them: the id the request
// carries and the part it names. The figures stay in the engine, which fills what a request leaves out; the page
// keeps only the names, and tests/web/transformer.test.mjs checks that the engine accepts each of them.

/** @typedef {{id: string, name: string}} DevicePreset */

/** @type {DevicePreset[]} */
export const DEVICE_PRESETS = [
  { id: 'h100_sxm', name: 'NVIDIA H100 SXM5 80 GB' },
  { id: 'h200', name: 'NVIDIA H200 SXM 141 GB' },
  { id: 'h800', name: 'NVIDIA H800 SXM5 80 GB' },
  { id: 'b200', name: 'NVIDIA B200 180 GB' },
  { id: 'a100_80gb', name: 'NVIDIA A100 SXM4 80 GB' },
  { id: 'mi300x', name: 'AMD Instinct MI300X 192 GB' },
  { id: 'ascend_910b', name: 'Huawei Ascend 910B 64 GB' },
];

/** The ids, for checking untrusted state. */
export const DEVICE_PRESET_IDS = DEVICE_PRESETS.map((preset) => preset.id);

/** `training.sharding`'s values (docs/contract.md): ZeRO stages 0 to 3. */
export const SHARDINGS = /** @type {const} */ (['none', 'optimizer', 'optimizer_and_grads', 'full']);
