// The engine's device presets (`device.preset`, docs/devices.md) in the page's pickers: the page keeps no list of its
// own. The worker hands the engine's list over with its ready message (the module's devicePresets(): the id a request
// carries, the part it names and the figures, which stay the engine's to fill); until then a picker holds only the
// value a state or link gave it, which the list keeps when it comes. tests/web/transformer.test.mjs checks that the
// engine accepts each preset offered.

/** @import {DevicePresetFacts} from './types.js' */
import { el } from './dom.js';

/**
 * Sets a device picker's value; a value it has no option for yet (the engine's list has not come) gets one of its
 * own, so that the value stays until the list comes.
 * @param {HTMLSelectElement} select
 * @param {string} value
 */
export function setDeviceValue(select, value) {
  if (value && ![...select.options].some((option) => option.value === value)) {
    select.append(el('option', { text: value, attrs: { value } }));
  }
  select.value = value;
}

/**
 * Fills a device picker with the engine's presets after its "none" option, keeping the value it holds (one the
 * engine does not know stays, for the engine to refuse beside the field).
 * @param {HTMLSelectElement} select
 * @param {DevicePresetFacts[]} devices
 * @param {string} noneLabel already in the page's language
 */
export function fillDeviceSelect(select, devices, noneLabel) {
  const value = select.value;
  select.replaceChildren(el('option', { text: noneLabel, attrs: { value: '' } }),
    ...devices.map((d) => el('option', { text: `${d.id} · ${d.name}`, attrs: { value: d.id } })));
  setDeviceValue(select, value);
}

/** `training.sharding`'s values (docs/contract.md): ZeRO stages 0 to 3. */
export const SHARDINGS = /** @type {const} */ (['none', 'optimizer', 'optimizer_and_grads', 'full']);
