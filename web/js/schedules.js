// The schedules the page offers, each with a one-line description and its conditions (docs/schedules.md), and
// the chunk count (vpp_degree) each one runs with, so that choosing a schedule sets a vpp_degree it can run.

/**
 * @typedef {{name: string, label: string, description: string, conditions: string,
 *            vpp: 'one' | 'two' | 'two-or-more', apart?: boolean}} ScheduleInfo
 *   vpp: the chunk counts the schedule runs: 1 only, exactly 2, or 2 and more; apart: B and W run apart, so the span
 *   (the iteration time when steps overlap) differs from the step time
 */

/** @type {ScheduleInfo[]} */
export const SCHEDULE_INFO = [
  { name: 'gpipe', label: 'GPipe', vpp: 'one',
    description: 'Every forward, then every backward: simple, holds all micro batches at once.',
    conditions: 'No conditions.' },
  { name: '1f1b', label: '1F1B', vpp: 'one',
    description: 'Megatron-LM\'s one-forward-one-backward: stage s holds at most pp − s micro batches.',
    conditions: 'No conditions.' },
  { name: 'interleaved_1f1b', label: 'Interleaved 1F1B', vpp: 'two-or-more',
    description: 'Megatron-LM\'s interleaved 1F1B: vpp chunks per device shrink the bubble by vpp, at more transfers.',
    conditions: 'Needs vpp_degree ≥ 2 and micro batches a multiple of pp_degree.' },
  { name: 'zb_h1', apart: true, label: 'Zero bubble ZB-H1', vpp: 'one',
    description: 'Zero-bubble ZB-H1: 1F1B with each backward split into B and W, the Ws filling the cool-down; 1F1B\'s memory.',
    conditions: 'No conditions.' },
  { name: 'zb_h2', apart: true, label: 'Zero bubble ZB-H2', vpp: 'one',
    description: 'Zero-bubble ZB-H2: a longer warm-up fills the bubble before the first B; more activation memory than 1F1B.',
    conditions: 'No conditions.' },
  { name: 'zbv', apart: true, label: 'Zero bubble ZB-V', vpp: 'two',
    description: 'Zero-bubble ZB-V: two chunks per device in a V, B and W apart; near-zero bubble at 1F1B\'s activation memory.',
    conditions: 'Runs two chunks per device (vpp_degree 2).' },
  { name: 'dualpipev', apart: true, label: 'DualPipeV', vpp: 'two',
    description: 'DeepSeek\'s DualPipeV: two chunks in a V, forward and backward of two micro batches overlapped (F&B).',
    conditions: 'Runs two chunks per device (vpp_degree 2) and needs micro batches ≥ 2 × pp_degree.' },
];

/** The schedule names the page offers: every schedule the engine runs, in the engine's order. */
export const SCHEDULES = SCHEDULE_INFO.map((info) => info.name);
/** What the picker and the search offer. */
export const OFFERED_SCHEDULES = SCHEDULE_INFO.filter((info) => SCHEDULES.includes(info.name));

/**
 * @param {string} name
 * @returns {ScheduleInfo | undefined}
 */
export const scheduleInfo = (name) => SCHEDULE_INFO.find((info) => info.name === name);

/**
 * The vpp_degree to set when a schedule is chosen, or null when the one typed already runs (or is not a number:
 * the engine names it).
 * @param {string} schedule
 * @param {string} vppText the vpp_degree field as typed
 * @returns {string | null}
 */
export function vppForSchedule(schedule, vppText) {
  const info = scheduleInfo(schedule);
  const trimmed = vppText.trim();
  const vpp = trimmed === '' ? 1 : Number(trimmed);
  if (!info || !Number.isInteger(vpp)) return null;
  if (info.vpp === 'one') return vpp === 1 ? null : '1';
  if (info.vpp === 'two') return vpp === 2 ? null : '2';
  return vpp >= 2 ? null : '2';
}
