// Schedules side by side: after each plan is shown, one `compare` call runs that plan (its partition and recompute
// stated exactly) under every schedule, or, when the page asks for each schedule at its best, balances every
// schedule's shape (compare.plans "balanced"), and the table and small multiples (js/views/schedules.js) are drawn from
// its answer, once the plans stop coming for a moment. Only the newest plan's comparison is shown; a comparison
// that has run a while is cancelled by new inputs. Choosing a row is the page's business (onOpen).

/** @import {CompareResult, CompareRow, EngineResponse} from './types.js' */
/** @import {ShownPlan} from './plan-runner.js' */
/** @import {EngineClient, Job} from './worker-client.js' */
/** @import {PageStatus} from './page-status.js' */
/** @import {Palette} from './theme.js' */
import { byId, el } from './dom.js';
import { t } from './i18n.js';
import { exactPlanSections } from './requests.js';
import { CancelledError, EngineDiedError } from './worker-client.js';
import { SHOW_AFTER_MS } from './work-status.js';
import { debounce } from './debounce.js';
import { renderScheduleTable, renderScheduleBars, renderScheduleVerdict } from './views/schedules.js';

/** How long the plans must stop coming before their comparison runs. */
const SETTLE_MS = 150;

/**
 * @typedef {{engine: EngineClient, status: PageStatus, getModel: () => any, palette: () => Palette,
 *            size: (box: HTMLElement) => {width: number, height?: number}, onOpen: (row: CompareRow) => void}} SchedulePanelParts
 */

/**
 * The compare request for a plan shown: its exact partition and recompute (kept by the schedules of its shape),
 * without the timeline.
 * @param {ShownPlan} plan
 * @param {any} model
 * @returns {Record<string, any>}
 */
export function compareRequest(plan, model, balanced = false) {
  const sections = exactPlanSections(plan.result, plan.request);
  if (!balanced) return { model, ...sections };
  // Each schedule at its best: PPB balances every schedule's shape, with the recompute options the plan's
  // balance allowed (every option the model offers when the plan was not balanced).
  const pipeline = { ...sections.pipeline };
  for (const key of ['layer_offset', 'stage_layers', 'stage_partition', 'recompute', 'recompute_layers']) delete pipeline[key];
  const options = plan.request.balance?.recompute_options;
  return { model, ...sections, pipeline, compare: { plans: 'balanced' }, ...(options ? { balance: { recompute_options: options } } : {}) };
}

/** Whether the page asks for each schedule at its best. */
const balancedChosen = () => document.querySelector('input[name="schedule_plans"][value="balanced"]:checked') !== null;

export class SchedulePanel {
  /** @param {SchedulePanelParts} parts */
  constructor(parts) {
    this.parts = parts;
    /** @type {CompareResult | null} */
    this.result = null;
    /** The request of the comparison shown (a test hook). @type {Record<string, any> | null} */
    this.request = null;
    /** @type {{schedule: string, vpp: number} | null} */
    this.current = null;
    /** @type {Job | null} */
    this.job = null;
    /** The memory limit of the plan compared. @type {number | undefined} */
    this.limit = undefined;
    /** The plan to compare next (the newest). @type {ShownPlan | null} */
    this.next = null;
    /** The newest plan compared, to compare again when the choice of plans changes. @type {ShownPlan | null} */
    this.last = null;
    /** The balanced request drawn (without the model): a new plan of the same shape needs no new balances. */
    this.drawnKey = '';
    for (const input of document.querySelectorAll('input[name="schedule_plans"]')) {
      input.addEventListener('change', () => {
        this.showHint();
        if (this.last) this.update(this.last);
      });
    }
    this.running = false;
    this.version = 0;
    /** The comparison's run, once the plans stop coming for SETTLE_MS. */
    this.settled = debounce(() => {
      if (!this.running) this.runAll();
    }, SETTLE_MS);
  }

  /**
   * New inputs: the comparison waiting is for an old plan (the new plan brings its own), and one that has run a
   * while is out of date; stop it rather than wait for it.
   */
  inputsChanged() {
    ++this.version;
    this.settled.cancel();
    this.next = null;
    if (this.job && performance.now() - this.job.started >= SHOW_AFTER_MS) this.job.cancel();
    if (!this.running) this.parts.status.setBusy('schedules', false);
  }

  /**
   * Compares the plan shown under every schedule, once the plans stop coming for a moment: a dragged boundary
   * makes a plan after another, and seven more estimates between two of them would slow the drag.
   * @param {ShownPlan} plan
   */
  update(plan) {
    this.last = plan;
    this.next = plan;
    this.parts.status.setBusy('schedules', true);
    this.settled.schedule();
  }

  async runAll() {
    this.running = true;
    try {
      while (this.next) {
        const plan = this.next;
        this.next = null;
        await this.runOne(plan);
      }
    } finally {
      this.running = false;
      // Busy until the newest plan's comparison is drawn, or new inputs made it moot.
      if (!this.next) this.parts.status.setBusy('schedules', false);
    }
  }

  /** @param {ShownPlan} plan */
  async runOne(plan) {
    const version = this.version;
    const balanced = balancedChosen();
    const request = compareRequest(plan, this.parts.getModel(), balanced);
    // Balanced rows do not depend on the partition shown: a dragged boundary balances nothing again.
    const key = balanced ? JSON.stringify({ ...request, model: undefined }) : '';
    if (balanced && key === this.drawnKey && this.result?.plans === 'balanced') {
      this.current = { schedule: plan.result.schedule ?? '', vpp: plan.result.vpp_degree ?? 1 };
      this.draw();
      return;
    }
    /** @type {EngineResponse} */
    let response;
    const job = this.parts.engine.run('compare', request);
    this.job = job;
    try {
      response = await job.result;
    } catch (error) {
      if (error instanceof CancelledError || error instanceof EngineDiedError) return;
      this.showProblem(error instanceof Error ? error.message : String(error));
      return;
    } finally {
      this.job = null;
    }
    // A newer plan waits, or the inputs changed since: this answer is not the one to show.
    if (this.next || version !== this.version) return;
    if (!response.ok) {
      this.showProblem(response.errors.map((e) => e.message).join(' '));
      return;
    }
    const shown = { ...request };
    delete shown.model;
    this.request = shown;
    this.result = /** @type {CompareResult} */ (response.result);
    this.drawnKey = key;
    this.current = { schedule: plan.result.schedule ?? '', vpp: plan.result.vpp_degree ?? 1 };
    this.limit = plan.result.stages[0]?.memory.limit_mib ?? undefined;
    this.draw();
  }

  /** @param {string} message */
  showProblem(message) {
    this.result = null;
    byId('schedules-verdict-box', HTMLElement).replaceChildren(el('p', { class: 'muted', text: t('The schedules could not be compared: ') },
      [el('span', { text: message, attrs: { lang: 'en' } })]));
    byId('schedules-box', HTMLElement).replaceChildren();
    byId('schedule-table-box', HTMLElement).replaceChildren();
  }

  /** The hint under the choice of plans says what the rows run. */
  showHint() {
    byId('schedule-plans-hint', HTMLElement).textContent = balancedChosen()
      ? t('Each schedule\'s own best plan under the memory limit: PPB balances every schedule (they share one work budget), so a schedule that needs another partition or recompute to fit is not judged by the plan shown.')
      : t('The plan shown under every schedule; a schedule that runs another number of chunks gets the even split (marked *).');
  }

  /** Draws the comparison again (a new answer, theme or size). */
  draw() {
    const result = this.result;
    if (!result) return;
    const box = byId('schedules-box', HTMLElement);
    byId('schedules-verdict-box', HTMLElement).replaceChildren(renderScheduleVerdict(result));
    box.replaceChildren(renderScheduleBars(result, { width: this.parts.size(box).width, palette: this.parts.palette(),
      limit: this.limit ?? undefined, current: this.current }));
    byId('schedule-table-box', HTMLElement).replaceChildren(renderScheduleTable(result, { current: this.current, onOpen: this.parts.onOpen }));
  }
}
