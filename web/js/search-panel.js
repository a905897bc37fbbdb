// The search: runs it in the worker with a progress bar and cancel, and draws its results (the scatter with the
// Pareto front, the sortable ranked table, the grouped reasons). Opening a candidate is the page's business:
// rows and points call onOpen.

/** @import {PageState, SearchResult, EngineResponse, Progress, ScheduleFacts} from './types.js' */
/** @import {ErrorBoard} from './errors.js' */
/** @import {Palette} from './theme.js' */
import { byId, el } from './dom.js';
import { t } from './i18n.js';
import { searchRequest } from './requests.js';
import { renderPareto, nearestPoint } from './views/pareto.js';
import { renderSearchTable, renderInfeasibleGroups, renderVerdict, MORE_COLUMNS } from './views/search-table.js';
import { renderInfeasibility } from './views/infeasibility.js';
import { renderCaveats } from './views/summary.js';
import { count } from './format.js';

/**
 * @typedef {{
 *   search: (request: object, onProgress: (progress: Progress) => void) => {result: Promise<EngineResponse>, cancel: () => void},
 *   schedules: () => ScheduleFacts[],
 *   canRun: () => boolean,
 *   errors: ErrorBoard, form: HTMLElement, exclude: HTMLElement,
 *   getState: () => PageState, palette: () => Palette, size: (box: HTMLElement) => {width: number, height?: number},
 *   onOpen: (index: number) => void, onBusy: () => void,
 *   suggest: (inf: import('./types.js').Infeasibility, shape: import('./plan-views.js').Shape) => import('./plan-views.js').SuggestedSearch | null}} SearchHooks
 *   suggest: the search an infeasibility explanation suggests (when nothing fits)
 */

export class SearchPanel {
  /** @param {SearchHooks} hooks */
  constructor(hooks) {
    this.hooks = hooks;
    /** @type {SearchResult | null} */
    this.result = null;
    this.sort = { key: 'rank', descending: false };
    /** Whether the table shows the columns that can go. */
    this.allColumns = false;
    /** @type {number | null} */
    this.selected = null;
    /** @type {{cancel: () => void} | null} */
    this.running = null;
    this.bar = byId('search-progress', HTMLProgressElement);
    this.status = byId('search-progress-text', HTMLElement);
    this.runButton = byId('search-run', HTMLButtonElement);
    this.cancelButton = byId('search-cancel', HTMLButtonElement);
    this.runButton.addEventListener('click', () => this.run({ focus: true }));
    this.cancelButton.addEventListener('click', () => {
      this.running?.cancel();
      this.status.textContent = t('Cancelling…');
    });
    const points = byId('pareto-box', HTMLElement);
    /** @param {Event} event */
    const pointOf = (event) => (event.target instanceof Element ? event.target.closest('[data-index]') : null);
    points.addEventListener('click', (event) => {
      // The point nearest the click, not the topmost element under it: close points' hit areas overlap.
      const svg = points.querySelector('svg#pareto');
      const index = svg instanceof SVGSVGElement ? nearestPoint(svg, event.clientX, event.clientY) : null;
      if (index !== null) hooks.onOpen(index);
    });
    points.addEventListener('keydown', (event) => {
      const point = pointOf(event);
      if (point && (event.key === 'Enter' || event.key === ' ')) {
        event.preventDefault();
        hooks.onOpen(Number(point.getAttribute('data-index')));
      }
    });
  }

  /**
   * Starts a search over the lists in the state's search settings.
   * @param {{focus?: boolean}} [options] focus: move the keyboard focus to the results when they arrive (a search
   *   the person started; not one a link restores)
   */
  run({ focus = false } = {}) {
    const hooks = this.hooks;
    if (this.running || !hooks.canRun()) return;
    hooks.errors.clear('search');
    const started = performance.now();
    this.bar.hidden = false;
    this.bar.removeAttribute('value');
    this.status.textContent = t('Starting the search…');
    this.runButton.disabled = true;
    this.cancelButton.disabled = false;
    const handle = hooks.search(searchRequest(hooks.getState(), hooks.schedules()), ({ done, total }) => {
      const of = total ?? done;
      this.bar.max = Math.max(1, of);
      this.bar.value = done;
      this.status.textContent = `${count(done)} of ${count(of)} combinations · ${((performance.now() - started) / 1000).toFixed(1)} s`;
    });
    this.running = handle;
    hooks.onBusy();
    handle.result.then((response) => {
      if (!response.ok) {
        hooks.errors.set('search', response.errors, { within: hooks.form, exclude: hooks.exclude, prefer: byId('search-panel', HTMLElement) });
        // The first problem in the status line too: an embed of the scatter shows no fields.
        const first = response.errors[0];
        this.status.textContent = t('The search could not run: {first}{more}. The fields with errors are marked in the Search panel.', {
          first: `${first?.message ?? t('the request has errors')}${first?.path ? ` (${first.path})` : ''}`,
          more: response.errors.length > 1 ? t(', and {n} more', { n: response.errors.length - 1 }) : '' });
        this.bar.hidden = true;
        return;
      }
      const result = /** @type {SearchResult} */ (response.result);
      this.result = result;
      this.selected = null;
      hooks.getState().ui.search = true;
      const c = result.counts;
      this.bar.max = 1;
      this.bar.value = 1;
      this.status.textContent = (result.partial ? t('Stopped early, partial result: ') : '') + t('{space} combinations · {evaluated} evaluated · {skipped} skipped · {infeasible} do not fit · {seconds} s',
        { space: count(c.space), evaluated: count(c.evaluated), skipped: count(c.skipped), infeasible: count(c.infeasible), seconds: (result.elapsed_ms / 1000).toFixed(2) });
      this.draw();
      if (focus) {
        const heading = byId('search-results-title', HTMLElement);
        heading.focus({ preventScroll: true });
        heading.scrollIntoView({ block: 'start' });
      }
    }, (error) => {
      this.status.textContent = t('The search stopped: {reason}', { reason: error instanceof Error ? error.message : String(error) });
      this.bar.hidden = true;
    }).finally(() => {
      this.running = null;
      this.runButton.disabled = false;
      this.cancelButton.disabled = true;
      hooks.onBusy();
    });
  }

  /** Forgets the results (a new model). */
  clear() {
    this.result = null;
    this.selected = null;
    this.status.textContent = t('No search run yet. Set the lists in the Search panel and press Run search.');
    this.bar.hidden = true;
    this.draw();
  }

  /** @param {number | null} index the candidate shown in the views */
  select(index) {
    this.selected = index;
    this.draw();
  }

  draw() {
    const box = byId('pareto-box', HTMLElement);
    const table = byId('search-table-box', HTMLElement);
    const groups = byId('infeasible-box', HTMLElement);
    const verdict = byId('search-verdict-box', HTMLElement);
    const result = this.result;
    if (!result) {
      verdict.replaceChildren();
      box.replaceChildren();
      table.replaceChildren();
      groups.replaceChildren();
      return;
    }
    const limit = memoryLimit(result, this.hooks.getState().settings.memory_limit_mib);
    verdict.replaceChildren(renderVerdict(result, { limit }));
    // What every candidate's estimate leaves out, under the verdict it qualifies.
    const caveats = renderCaveats(result.caveats, 'search-caveats');
    if (caveats) verdict.append(caveats);
    // Nothing fits: why, for the candidate closest to fitting (the first), and the search that would find a plan.
    const closest = result.candidates[0];
    if (result.infeasibility && closest) {
      const search = this.hooks.suggest(result.infeasibility, closest);
      verdict.append(renderInfeasibility(result.infeasibility, { onSearch: search?.run ?? null, searchLabel: search?.label ?? '' }));
    }
    box.replaceChildren(renderPareto(result, { ...this.hooks.size(box), palette: this.hooks.palette(), selected: this.selected, limit }));
    // The columns that can go (tokens per device, time per sample, bubble, gain) wait behind a toggle, so that the
    // table fits a 1280 px window without sideways scroll.
    const toggle = el('button', { class: 'button small more-columns', text: this.allColumns ? t('Fewer columns')
      : t('{n} more columns', { n: MORE_COLUMNS }),
    attrs: { type: 'button', id: 'search-more-columns', 'aria-expanded': String(this.allColumns), 'aria-controls': 'search-table',
      title: t('tokens / s / device, ms / sample, bubble, faster than even split') },
    on: { click: () => {
      this.allColumns = !this.allColumns;
      this.draw();
      byId('search-more-columns', HTMLButtonElement).focus();
    } } });
    table.replaceChildren(toggle, renderSearchTable(result, {
      allColumns: this.allColumns,
      sort: this.sort,
      selected: this.selected,
      onSort: (sort) => {
        this.sort = sort;
        this.draw();
        const active = table.querySelector('th[aria-sort]:not([aria-sort="none"]) button');
        if (active instanceof HTMLButtonElement) active.focus();
      },
      onOpen: this.hooks.onOpen,
    }));
    groups.replaceChildren(el('h3', { text: t('Why candidates do not fit') }), renderInfeasibleGroups(result));
  }
}

/**
 * The memory limit the search ran under: the one typed, else the one a device preset filled in, which the engine's
 * verdict gives as the winner's peak plus its headroom (`best.headroom_mib`, the limit less that peak).
 * @param {SearchResult} result
 * @param {string} typed the Device panel's memory limit as typed
 * @returns {number | undefined}
 */
export function memoryLimit(result, typed) {
  const stated = Number(typed);
  if (typed.trim() !== '' && Number.isFinite(stated) && stated > 0) return stated;
  const best = result.best;
  const peak = best ? result.candidates[best.candidate]?.peak_mib : null;
  return typeof best?.headroom_mib === 'number' && typeof peak === 'number' ? peak + best.headroom_mib : undefined;
}
