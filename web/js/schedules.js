// The schedules the page offers, each with its label, a one-line description and its conditions in words
// (docs/schedules.md): text for people. What a schedule runs (its chunk counts, whether B and W run apart) is the
// engine's: the worker hands over the module's schedules() when it is ready (ScheduleFacts), and the helpers below
// read those facts, so the page keeps no rule of its own. tests/page-rules.test.mjs holds the names equal to the
// engine's.

/** @import {ScheduleFacts} from './types.js' */

/**
 * @typedef {{name: string, label: string, description: string, conditions: string}} ScheduleInfo
 */

/** @type {ScheduleInfo[]} */
export const SCHEDULE_INFO = [
  { name: 'gpipe', label: 'GPipe',
    description: 'Every forward, then every backward: simple, holds all micro batches at once.',
    conditions: 'No conditions.' },
  { name: '1f1b', label: '1F1B',
    description: 'Megatron-LM\'s one-forward-one-backward: stage s holds at most pp − s micro batches.',
    conditions: 'No conditions.' },
  { name: 'interleaved_1f1b', label: 'Interleaved 1F1B',
    description: 'Megatron-LM\'s interleaved 1F1B: vpp chunks per device shrink the bubble by vpp, at more transfers.',
    conditions: 'Needs vpp_degree ≥ 2 and micro batches a multiple of pp_degree.' },
  { name: 'zb_h1', label: 'Zero bubble ZB-H1',
    description: 'Zero-bubble ZB-H1: 1F1B with each backward split into B and W, the Ws filling the cool-down; 1F1B\'s memory.',
    conditions: 'No conditions.' },
  { name: 'zb_h2', label: 'Zero bubble ZB-H2',
    description: 'Zero-bubble ZB-H2: a longer warm-up fills the bubble before the first B; more activation memory than 1F1B.',
    conditions: 'No conditions.' },
  { name: 'zbv', label: 'Zero bubble ZB-V',
    description: 'Zero-bubble ZB-V: two chunks per device in a V, B and W apart; near-zero bubble at 1F1B\'s activation memory.',
    conditions: 'Runs two chunks per device (vpp_degree 2).' },
  { name: 'dualpipev', label: 'DualPipeV',
    description: 'DeepSeek\'s DualPipeV: two chunks in a V, forward and backward of two micro batches overlapped (F&B).',
    conditions: 'Runs two chunks per device (vpp_degree 2) and needs micro batches ≥ 2 × pp_degree.' },
  { name: 'zb_auto', label: 'Zero bubble auto',
    description: 'Zero-bubble automatic schedule: the order is found for the stages\' costs under a memory cap of max_in_flight micro batches (2 × pp unless given; ZB-1p is pp, ZB-2p 2 × pp).',
    conditions: 'Runs one chunk per device; pipeline.max_in_flight is at least 1.' },
  { name: 'interleaved_1f1b_overlap', label: 'Interleaved 1F1B, A2A overlap',
    description: 'Megatron-LM\'s interleaved 1F1B with the MoE all-to-all overlapped: one more warm-up forward, then each step\'s forward and backward run as one F&B pair that hides each one\'s communication.',
    conditions: 'Needs vpp_degree ≥ 2 and micro batches a multiple of pp_degree; no full recompute.' },
  { name: 'v_half', label: 'V-Half',
    description: 'Controllable-memory V-Half: two chunks in a V, B and W apart, about half of 1F1B\'s activation memory at a bubble near half of 1F1B\'s.',
    conditions: 'Runs two chunks per device (vpp_degree 2).' },
  { name: 'v_min', label: 'V-Min',
    description: 'Controllable-memory V-Min: two chunks in a V, about a third of 1F1B\'s activation memory; the bubble grows when F, B and W differ.',
    conditions: 'Runs two chunks per device (vpp_degree 2).' },
  { name: 'interleaved_zero_bubble', label: 'Interleaved zero bubble',
    description: 'PyTorch\'s interleaved zero bubble (ZB1P): interleaved 1F1B in rounds of micro batches with B and W apart, the Ws filling the bubble.',
    conditions: 'Needs vpp_degree ≥ 2 and micro batches a multiple of max(1, micro batches ÷ pp_degree).' },
  { name: 'looped_bfs', label: 'Looped BFS',
    description: 'PyTorch\'s looped breadth-first schedule: every micro batch through one chunk before the next; holds all micro batches of every chunk.',
    conditions: 'Needs vpp_degree ≥ 2.' },
];

/**
 * The schedules that run any chunk count from 2 up (the engine's vpp_degree range for them, docs/contract.md), so that
 * the search's chunk list is theirs.
 */
export const INTERLEAVING_SCHEDULES = ['interleaved_1f1b', 'interleaved_zero_bubble', 'looped_bfs'];

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
 * The engine's facts of a schedule, or undefined before the engine has loaded (or for a name it does not run).
 * @param {ScheduleFacts[]} facts
 * @param {string} name
 * @returns {ScheduleFacts | undefined}
 */
export const scheduleFacts = (facts, name) => facts.find((f) => f.name === name);

/**
 * The vpp_degree to set when a schedule is chosen: the engine's default for it when the one typed is outside the chunk
 * counts it runs; null when the one typed runs, is not a whole number (the engine names it), or the engine has not
 * loaded yet (its plan will say).
 * @param {ScheduleFacts[]} facts the engine's schedules
 * @param {string} schedule
 * @param {string} vppText the vpp_degree field as typed (empty: 1, the engine's default)
 * @returns {string | null}
 */
export function vppForSchedule(facts, schedule, vppText) {
  const runs = scheduleFacts(facts, schedule)?.vpp_degree;
  const trimmed = vppText.trim();
  const vpp = trimmed === '' ? 1 : Number(trimmed);
  if (!runs || !Number.isInteger(vpp)) return null;
  return vpp >= runs.min && vpp <= runs.max ? null : String(runs.default);
}
