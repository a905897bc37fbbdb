// Long engine work made visible: every call the page tracks (a plan, a model import, an export) that runs for
// more than SHOW_AFTER_MS gets a line above the views with what it is, how long it has run, its progress where the
// engine reports one (a balance in slices: nodes searched, best plan so far, lower bound) and a Cancel button.
// Short calls never show, so typing does not flicker.

/** @import {Job} from './worker-client.js' */
/** @import {Progress} from './types.js' */
import { el } from './dom.js';
import { t } from './i18n.js';
import { grouped, ms } from './format.js';

/** Calls shorter than this are not shown. */
export const SHOW_AFTER_MS = 300;

/**
 * @typedef {{label: string, describe?: (progress: Progress) => string, onCancel?: () => void}} TrackOptions
 *   onCancel: called after the person pressed Cancel (the job is cancelled first)
 */

export class WorkStatus {
  /** @param {HTMLElement} box the container of the lines (role status) */
  constructor(box) {
    this.box = box;
  }

  /**
   * Tracks a job until it settles. Returns a function that feeds it progress (for the job's onProgress).
   * @param {Job} job
   * @param {TrackOptions} options
   * @returns {(progress: Progress) => void}
   */
  track(job, { label, describe, onCancel }) {
    const text = el('span', { class: 'work-text', text: `${label}…` });
    const bar = el('progress', { attrs: { 'aria-label': label } });
    // label: already in the page's language (the callers' t()).
    const detail = el('span', { class: 'work-detail muted' });
    const cancel = el('button', { class: 'button small', text: t('Cancel'), attrs: { type: 'button', 'data-cancel': '' }, on: {
      click: () => {
        job.cancel();
        text.textContent = t('{label}: cancelling…', { label });
        cancel.disabled = true;
        onCancel?.();
      },
    } });
    const line = el('div', { class: 'work-line', data: { work: job.command } }, [text, bar, detail, cancel]);
    /** @type {Progress | null} */
    let last = null;
    const update = () => {
      const elapsed = `${((performance.now() - job.started) / 1000).toFixed(1)} s`;
      const said = last && describe ? describe(last) : '';
      detail.textContent = said ? `${elapsed} · ${said}` : elapsed;
      if (last && last.total !== null && last.total > 0) {
        bar.max = last.total;
        bar.value = last.done;
      }
    };
    const show = window.setTimeout(() => {
      update();
      this.box.append(line);
      this.box.hidden = false;
    }, SHOW_AFTER_MS);
    const tick = window.setInterval(() => { if (line.isConnected) update(); }, 100);
    const done = () => {
      clearTimeout(show);
      clearInterval(tick);
      line.remove();
      this.box.hidden = this.box.childElementCount === 0;
    };
    job.result.then(done, done);
    return (progress) => {
      last = progress;
      if (line.isConnected) update();
    };
  }
}

/**
 * A line shown at once for work the page does itself before the engine gets it (reading a dropped file): what it
 * is, a bar without a measure, and how long it has run. Shown from the first frame, since a large file keeps the
 * page busy for a while before any engine call starts.
 * @param {HTMLElement} box the container of the lines
 * @param {string} label already in the page's language
 * @returns {{done: () => void}}
 */
export function showPageWork(box, label) {
  const started = performance.now();
  const detail = el('span', { class: 'work-detail muted', text: '0.0 s' });
  const line = el('div', { class: 'work-line', data: { work: 'read' } }, [el('span', { class: 'work-text', text: `${label}…` }),
    el('progress', { attrs: { 'aria-label': label } }), detail]);
  box.append(line);
  box.hidden = false;
  const tick = window.setInterval(() => { detail.textContent = `${((performance.now() - started) / 1000).toFixed(1)} s`; }, 100);
  return { done: () => {
    clearInterval(tick);
    line.remove();
    box.hidden = box.childElementCount === 0;
  } };
}

/**
 * What a balance in slices has done so far, from its progress (the engine's progress writer): its phase, nodes
 * searched (its `done`), the best plan's step time, the lower bound proven below it.
 * @param {Progress} p
 * @returns {string}
 */
export function describeBalance(p) {
  const parts = [];
  if (p.phase) parts.push(p.phase);
  parts.push(t('{n} nodes', { n: grouped(p.done) }));
  if (p.incumbent_ms !== null) parts.push(t('best so far {time}', { time: ms(p.incumbent_ms) }));
  // A bound of 0 proves nothing yet ("no plan below 0 ms"): said only once it is above 0.
  if (p.lower_bound_ms !== null && p.lower_bound_ms > 0) parts.push(t('no plan below {time}', { time: ms(p.lower_bound_ms) }));
  return parts.join(' · ');
}
