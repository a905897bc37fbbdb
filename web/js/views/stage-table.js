// The per-stage numbers behind the stage-loads chart, as a table (for reading exact values, for screen readers
// and for tests that compare the page with the engine's JSON).

/** @import {EstimateResult} from '../types.js' */
import { el } from '../dom.js';
import { num, count } from '../format.js';
import { t } from '../i18n.js';

const COLUMNS = ['Stage', 'Layers', 'Forward ms', 'Backward ms', 'Recompute ms', 'Send ms', 'Busy ms / step', 'Bubble ms / step', 'Activations MiB', 'Peak MiB', 'Over limit MiB'];

/**
 * @param {EstimateResult} result
 * @returns {HTMLTableElement}
 */
export function renderStageTable(result) {
  const over = new Map(result.violations.map((v) => [v.stage, v.over_mib ?? 0]));
  const rows = result.stages.map((st) => {
    const layers = st.layers.map(([b, e]) => (e - b === 1 ? `${b}` : `${b}–${e - 1}`)).join(', ');
    const n = st.layers.reduce((a, [b, e]) => a + e - b, 0);
    /** @type {[string, number | null][]} */
    const cells = [
      ['forward_ms', st.time.forward_ms], ['backward_ms', st.time.backward_ms], ['recompute_ms', st.time.recompute_ms],
      ['send_ms', st.time.send_ms], ['busy_ms', st.time.busy_ms], ['bubble_ms', st.time.bubble_ms],
      ['activation_mib', st.memory.activation_mib], ['peak_mib', st.memory.peak_mib], ['over_mib', over.get(st.stage) ?? null],
    ];
    return el('tr', { data: { stage: st.stage }, class: over.has(st.stage) ? 'over-limit' : '' }, [
      el('th', { text: String(st.stage), attrs: { scope: 'row' } }),
      el('td', { text: `${count(n)} (${layers})`, data: { field: 'layers', value: n } }),
      ...cells.map(([field, value]) => el('td', { text: value === null ? '' : num(value), data: value === null ? { field } : { field, value } })),
    ]);
  });
  return el('table', { class: 'stage-table', attrs: { id: 'stage-table' } }, [
    el('caption', { text: t('Per stage: times per micro batch unless marked per step; memory at the peak') }),
    el('thead', {}, [el('tr', {}, COLUMNS.map((c) => el('th', { text: t(c), attrs: { scope: 'col' } })))]),
    el('tbody', {}, rows),
  ]);
}
