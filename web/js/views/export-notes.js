// What an export wrote, beside its download (issue 17 point 2: exports never change the plan silently): whether the
// written plan is the plan shown, that plan's own estimate (step time, largest peak against the limit, fits), every
// change the engine made so a launcher can run it (`result.exported.changes`) and every note (`result.json.notes`);
// or, when the engine refused (EXPORT_PLAN_DOES_NOT_FIT), why nothing was written. The engine's sentences stay
// English, marked so.

/** @import {EngineError} from '../types.js' */
import { el } from '../dom.js';
import { ms, mib } from '../format.js';
import { t } from '../i18n.js';

/**
 * @typedef {{plan_kept: boolean, feasible: boolean, step_time_ms: number, peak_mib: number, peak_stage: number,
 *            changes: string[]}} ExportedPlan the exported plan's own estimate (result.exported)
 */

/** @param {unknown} list */
const strings = (list) => (Array.isArray(list) ? list.filter((item) => typeof item === 'string') : []);

/**
 * A titled list of the engine's sentences, or nothing when there are none.
 * @param {string} title
 * @param {string[]} items
 * @param {string} className
 */
function sentences(title, items, className) {
  if (items.length === 0) return [];
  return [el('p', { class: 'export-list-title', text: title }),
    el('ul', { class: className, attrs: { lang: 'en' } }, items.map((item) => el('li', { text: item })))];
}

/**
 * The notes of an export that was written.
 * @param {string} label the export's name, translated
 * @param {{json?: {notes?: unknown}, exported?: ExportedPlan}} result the export result
 * @param {number | undefined} limit the memory limit, MiB
 * @returns {{nodes: HTMLElement[], warn: boolean}}
 */
export function exportNotes(label, result, limit) {
  const notes = strings(result.json?.notes);
  const exported = result.exported;
  /** @type {HTMLElement[]} */
  const nodes = [];
  if (exported) {
    const changes = strings(exported.changes);
    const kept = exported.plan_kept === true;
    nodes.push(el('p', { class: 'export-notes-title', attrs: { 'data-plan-kept': String(kept) }, text: kept
      ? t('{label}: downloaded; it runs the plan shown.', { label })
      : t('{label}: downloaded; it runs a different plan from the one shown, which a launcher can express:', { label }) }));
    const fits = exported.feasible ? t('fits') : t('does not fit');
    nodes.push(el('p', { class: 'export-estimate', attrs: { 'data-feasible': String(exported.feasible) }, text: limit
      ? t('The written plan: step time {time}, largest peak {peak} on stage {s} against the {limit} limit: it {fits}.', {
        time: ms(exported.step_time_ms), peak: mib(exported.peak_mib), s: exported.peak_stage, limit: mib(limit), fits })
      : t('The written plan: step time {time}, largest peak {peak} on stage {s}.', { time: ms(exported.step_time_ms), peak: mib(exported.peak_mib), s: exported.peak_stage }) }));
    nodes.push(...sentences(t('What changed:'), changes, 'export-changes'));
    nodes.push(...sentences(t('Notes:'), notes, 'export-note-list'));
    return { nodes, warn: !kept || !exported.feasible || notes.length > 0 };
  }
  nodes.push(el('p', { class: 'export-notes-title', text: notes.length > 0
    ? t('{label}: downloaded, but it does not run exactly the plan shown:', { label })
    : t('{label}: downloaded; it states the plan shown.', { label }) }));
  nodes.push(...sentences(t('Notes:'), notes, 'export-note-list'));
  return { nodes, warn: notes.length > 0 };
}

/**
 * An export the engine refused to write: the plan a launcher could run would not fit.
 * @param {string} label
 * @param {EngineError[]} errors
 * @returns {HTMLElement[]}
 */
export function exportRefusal(label, errors) {
  return [
    el('p', { class: 'export-notes-title', attrs: { 'data-refused': 'true' }, text: t('{label}: not written.', { label }) }),
    el('ul', { class: 'export-refusal', attrs: { lang: 'en' } }, errors.map((error) => el('li', { text: error.message }))),
  ];
}
