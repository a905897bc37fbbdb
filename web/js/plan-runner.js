// Runs the plan the inputs describe: state -> request -> worker -> response. One request runs at a time and only
// the newest inputs run next (typing waits a moment; a drag sends many changes and the engine sees as many as it
// keeps up with); an answer to older inputs is dropped, and a call that has already run for a while is cancelled by
// the new inputs rather than waited for. The views are marked out of date at once; a call that takes a while shows
// its progress and a Cancel button (js/work-status.js). Keeps the last good plan with its comparison and hands
// both to the views; an error goes beside its field and leaves the last plan on screen, marked stale.

/** @import {EngineResponse, EstimateResult, PageState, LinkedPlan} from './types.js' */
/** @import {NamedPlan} from './views/compare.js' */
/** @import {Banners} from './banners.js' */
/** @import {ErrorBoard} from './errors.js' */
/** @import {PageStatus} from './page-status.js' */
/** @import {Store} from './store.js' */
/** @import {EngineClient} from './worker-client.js' */
/** @import {WorkStatus} from './work-status.js' */
/** @import {Job} from './worker-client.js' */
import { planRequest } from './requests.js';
import { t } from './i18n.js';
import { EngineDiedError, CancelledError } from './worker-client.js';
import { describeBalance, SHOW_AFTER_MS } from './work-status.js';
import { debounce } from './debounce.js';

/** How long typing waits before its plan is asked for. */
const TYPING_DELAY_MS = 220;

/**
 * The last good plan: the response and the request that made it.
 * @typedef {{response: EngineResponse & {ok: true}, result: EstimateResult, request: Record<string, any>,
 *            command: 'estimate' | 'balance', label: string, interim?: boolean, held?: LinkedPlan | null,
 *            asked?: number}} ShownPlan
 *   interim: the best plan so far of a balance still running (its final answer replaces it); held: a PPB plan that
 *   came with a link, estimated as it is (not balanced here)
 * @typedef {{a: NamedPlan, b: NamedPlan}} Comparison
 * @typedef {{engine: EngineClient, store: Store, status: PageStatus, errors: ErrorBoard, banners: Banners,
 *            work: WorkStatus, form: HTMLElement, exclude: HTMLElement,
 *            onPlan: (plan: ShownPlan, comparison: Comparison | null) => void, onRequest?: () => void,
 *            onComparison?: (comparison: Comparison) => void,
 *            onModelChecked?: (model: any, response: EngineResponse) => boolean}} RunnerParts
 *   onRequest: the inputs changed (work that follows a plan is out of date); onComparison: the comparison of the plan
 *   shown came after it (a plan a link carried)
 *   form, exclude: where the plan's errors go (the controls, not the transformer form)
 */

/**
 * The label of the plan the settings make.
 * @param {PageState} state
 * @returns {string}
 */
function planLabel(state) {
  const s = state.settings;
  if (s.partition === 'ppb') return 'PPB plan';
  if (s.partition === 'even') return 'even split';
  return state.ui.openPlan || 'your layer_offset';
}

export class PlanRunner {
  /** @param {RunnerParts} parts */
  constructor(parts) {
    this.parts = parts;
    /** @type {ShownPlan | null} */
    this.current = null;
    /** @type {Comparison | null} */
    this.comparison = null;
    /** Inputs changed since the last request was sent. */
    this.pending = false;
    this.running = false;
    /** The plan asked for while typing, once the typing pauses. */
    this.typing = debounce(() => { void this.runAll(); }, TYPING_DELAY_MS);
    /** The plan call in flight. @type {Job | null} */
    this.job = null;
    /** The person stopped the last call: its answer is not shown, and nothing runs until the inputs change. */
    this.stopped = false;
    /** Counts the plans asked for: the plan shown answers the latest when its count is this. */
    this.asked = 0;
    /** @type {(() => void)[]} who waits for the plans asked for to be done (idle()) */
    this.idleWaiters = [];
  }

  /**
   * Resolves once no plan is being computed (at once when none is).
   * @returns {Promise<void>}
   */
  idle() {
    return this.running ? new Promise((resolve) => { this.idleWaiters.push(resolve); }) : Promise.resolve();
  }

  /** Whether the plan shown is the one the inputs describe (asked for by the latest inputs, and they have no error). */
  upToDate() {
    return this.current !== null && this.current.asked === this.asked && !this.parts.errors.has('plan');
  }

  /**
   * Asks for the plan the inputs describe. New inputs ask for a new plan: a PPB plan that came with a link is
   * dropped (and balanced anew) unless keepPlan says the inputs are the same (the link just opened, a pin, a restart).
   * @param {boolean} immediate false while typing: wait a moment for more
   * @param {{keepPlan?: boolean}} [options]
   */
  request(immediate, { keepPlan = false } = {}) {
    if (!keepPlan) this.parts.store.state.plan = null;
    ++this.asked;
    this.pending = true;
    this.parts.onRequest?.();
    this.stopped = false;
    this.parts.status.setStopped(false);
    this.parts.status.setBusy('plan', true);
    this.parts.status.setComputing(true);
    // A call that has run for a while is out of date now: stop it rather than wait for it.
    if (this.job && performance.now() - this.job.started >= SHOW_AFTER_MS) this.job.cancel();
    if (immediate) this.typing.now();
    else this.typing.schedule();
  }

  async runAll() {
    if (this.running) return;
    this.running = true;
    try {
      while (this.pending) {
        this.pending = false;
        await this.runOne();
      }
    } finally {
      this.running = false;
      this.parts.status.setBusy('plan', this.pending);
      if (!this.pending) this.parts.status.setComputing(false);
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  /** The person pressed Cancel: the views keep the previous result, marked, until the inputs change. */
  stop() {
    this.stopped = true;
    this.pending = false;
    this.typing.cancel();
    this.parts.status.setStopped(true, () => this.request(true, { keepPlan: true }));
  }

  async runOne() {
    const { engine, store, status, errors, banners } = this.parts;
    // Before the engine has loaded the request waits for it in the worker; an engine that failed to load runs none.
    if (status.engineFailed) return;
    const { command, request, held } = planRequest(store.state);
    const asked = this.asked;
    // A model that could not be read before these inputs were sent is old news once their plan is shown.
    const modelProblemBefore = errors.has('model');
    let response;
    /** @type {(progress: import('./types.js').Progress) => void} */
    let progressTo = () => {};
    performance.mark('ppb:plan-sent');
    /** @type {Promise<void>} the drawing of the balance's best plan so far, if one is under way */
    let interimShown = Promise.resolve();
    let drawingInterim = false;
    const onInterim = (/** @type {EngineResponse} */ interim) => {
      // A balance that takes a while sends its best plan so far: drawn at once (one at a time), refined by the next.
      if (drawingInterim || this.pending || this.stopped || !interim.ok) return;
      drawingInterim = true;
      interimShown = this.show(interim, request, command, modelProblemBefore, true, null, asked).finally(() => { drawingInterim = false; });
    };
    const job = engine.run(command, request, { onProgress: (progress) => progressTo(progress), onInterim });
    this.job = job;
    progressTo = this.parts.work.track(job, {
      label: t(command === 'balance' ? 'Balancing (PPB)' : 'Estimating the plan'),
      describe: describeBalance,
      onCancel: () => this.stop(),
    });
    try {
      response = await job.result;
      performance.mark('ppb:plan-answered');
    } catch (error) {
      if (error instanceof CancelledError) return; // newer inputs follow, or the person stopped it
      if (error instanceof EngineDiedError) {
        // The restarted engine gets the same inputs again.
        this.pending = true;
        await engine.ready.catch(() => {});
        return;
      }
      // An engine that could not be loaded is said once, by the page's status.
      if (error !== engine.loadError) banners.show('plan-failure', 'error', `The plan could not be computed: ${error instanceof Error ? error.message : error}`);
      return;
    } finally {
      this.job = null;
    }
    await interimShown;
    await this.show(response, request, command, modelProblemBefore, false, held, asked);
  }

  /**
   * Shows an answer: the plan, or the errors beside their fields.
   * @param {EngineResponse} response
   * @param {Record<string, any>} request
   * @param {'estimate' | 'balance'} command
   * @param {boolean} modelProblemBefore a model problem was shown when the request was sent
   * @param {boolean} interim the best plan so far of a balance that goes on
   * @param {LinkedPlan | null} held the PPB plan a link carried, estimated as it is
   * @param {number} asked the count of the plan asked for (this.asked when it was sent)
   */
  async show(response, request, command, modelProblemBefore, interim, held, asked) {
    const { store, status, errors, banners } = this.parts;
    // Newer inputs are waiting, or the person stopped this call (a balance in slices still answers with its best
    // plan so far): this answer is not the one to show.
    if (this.pending || this.stopped) return;
    // The first plan of a model the engine had not read yet: if the engine refused the model, the loader takes
    // it back and this answer is not a plan's.
    if (this.parts.onModelChecked?.(request.model, response)) return;
    if (!response.ok && held) {
      // The plan a link carried does not run here (another engine, another model): PPB balances these inputs anew.
      store.state.plan = null;
      this.pending = true;
      return;
    }
    if (!response.ok) {
      errors.set('plan', response.errors, { within: this.parts.form, exclude: this.parts.exclude });
      status.setStale(true);
      return;
    }
    errors.clear('plan');
    if (modelProblemBefore) errors.clear('model');
    banners.remove('plan-failure');
    const result = /** @type {EstimateResult} */ (response.result);
    const label = planLabel(store.state);
    // A plan a link carried is drawn at once; its comparison (an estimate of the even split) follows it.
    const comparison = held ? null : await this.comparisonFor(result, request, command, label, held);
    if (interim && (this.pending || this.stopped)) return;
    this.comparison = comparison;
    this.current = { response, result, request, command, label, interim, held, asked };
    status.setStale(false);
    // The best plan so far is the answer to these inputs, still improving: not dimmed as out of date.
    if (interim) status.setComputing(false);
    performance.mark(interim ? 'ppb:interim-planned' : 'ppb:planned');
    this.parts.onPlan(this.current, this.comparison);
    performance.mark(interim ? 'ppb:interim-drawn' : 'ppb:drawn');
    if (held) {
      const shown = this.current;
      const later = await this.comparisonFor(result, request, command, label, held);
      if (this.current !== shown || !later) return;
      this.comparison = later;
      this.parts.onComparison?.(later);
    }
  }

  /**
   * The comparison to show with a plan: a pinned plan against this one; PPB against its even split; an explicit
   * plan against the even split.
   * @param {EstimateResult} result
   * @param {Record<string, any>} request
   * @param {'estimate' | 'balance'} command
   * @param {string} label
   * @param {LinkedPlan | null} held a linked PPB plan: compared with the even split, as its balance was
   * @returns {Promise<Comparison | null>}
   */
  async comparisonFor(result, request, command, label, held) {
    const { engine, store, banners } = this.parts;
    const state = store.state;
    const pinned = state.compare.pinned;
    try {
      if (pinned) {
        const response = await engine.call('estimate', { ...pinned.request, model: state.model });
        if (response.ok) return { a: { label: pinned.label, result: response.result }, b: { label, result } };
        banners.show('pinned', 'warn', `The pinned plan no longer fits these inputs: ${response.errors[0]?.message ?? ''}`);
        return null;
      }
      if (command === 'balance' && result.baseline) return { a: { label: 'even split', result: result.baseline }, b: { label, result } };
      if (state.settings.partition === 'explicit' || held) {
        const pipeline = { ...request.pipeline };
        delete pipeline.stage_layers;
        delete pipeline.layer_offset;
        delete pipeline.recompute;
        delete pipeline.include_timeline;
        const response = await engine.call('estimate', { ...request, pipeline });
        if (response.ok) return { a: { label: 'even split', result: response.result }, b: { label, result } };
      }
    } catch {
      // A comparison is extra; the plan itself is shown either way.
    }
    return null;
  }
}
