// What the page as a whole is doing, said in three places: body[data-state] for tests and automation (loading,
// busy, error, ready), the stale mark on the results with its banner, and the engine's status line with its
// banners (not loaded; stopped and restarted; could not be restarted). The parts that run things say when they
// are busy; this module decides what that adds up to.

/** @import {Banners} from './banners.js' */
/** @import {ErrorBoard} from './errors.js' */
/** @import {EngineClient} from './worker-client.js' */
import { t } from './i18n.js';

/** Error groups that mean the inputs, as they stand, cannot be shown. */
const ERROR_GROUPS = ['plan', 'model', 'transformer', 'search'];

/** @param {unknown} error */
const messageOf = (error) => (error instanceof Error ? error.message : String(error));

/**
 * What is in flight: a plan (or inputs waiting to be sent), the schedules compared, a search, a model, link
 * or state being read.
 * @typedef {'plan' | 'schedules' | 'search' | 'input'} BusyWith
 * @typedef {{body: HTMLElement, results: HTMLElement, engineLine: HTMLElement, banners: Banners, errors: ErrorBoard,
 *            hasResult: () => boolean}} StatusParts
 */

export class PageStatus {
  /** @param {StatusParts} parts hasResult: whether the views show a plan (only a shown plan can be stale) */
  constructor(parts) {
    this.parts = parts;
    /** @type {Set<BusyWith>} */
    this.busy = new Set();
    /** The engine answers (it has loaded and is not being restarted). */
    this.engineLoaded = false;
    /** The engine could not be loaded or restarted: only a reload helps. */
    this.engineFailed = false;
    /** Why the views are out of date: the inputs have errors, a result is being computed, it was stopped. */
    this.staleByErrors = false;
    this.computing = false;
    this.stopped = false;
  }

  /**
   * @param {BusyWith} what
   * @param {boolean} busy
   */
  setBusy(what, busy) {
    if (busy) this.busy.add(what);
    else this.busy.delete(what);
    this.update();
  }

  /** Sets body[data-state] from the engine, what is in flight and the errors shown. */
  update() {
    let value = 'ready';
    if (!this.engineLoaded && !this.engineFailed) value = 'loading';
    else if (this.busy.size > 0) value = 'busy';
    else if (this.engineFailed || ERROR_GROUPS.some((group) => this.parts.errors.has(group))) value = 'error';
    this.parts.body.dataset.state = value;
  }

  /**
   * Marks the views as showing an older result than the inputs ask for, because the inputs have errors.
   * @param {boolean} isStale
   */
  setStale(isStale) {
    const { banners } = this.parts;
    this.staleByErrors = isStale && this.parts.hasResult();
    if (this.staleByErrors) banners.show('stale', 'warn', t('The inputs have errors (shown beside the fields). The views show the last good result.'), { role: 'status' });
    else banners.remove('stale');
    this.showStale();
  }

  /**
   * Marks the views as out of date at once while a new result is being computed (drawn dimmed only when it takes
   * a moment, so typing does not flicker).
   * @param {boolean} computing
   */
  setComputing(computing) {
    this.computing = computing && this.parts.hasResult();
    this.showStale();
  }

  /**
   * The last computation was stopped (cancelled by the person): the views stay marked until the next result.
   * @param {boolean} stopped
   * @param {() => void} [again] computes the inputs again
   */
  setStopped(stopped, again) {
    const { banners } = this.parts;
    this.stopped = stopped && this.parts.hasResult();
    if (this.stopped) {
      banners.show('stopped', 'info', t('Stopped. The views show the previous result; change an input or compute again.'),
        { action: again ? { label: t('Compute again'), run: again } : undefined });
    } else banners.remove('stopped');
    this.showStale();
  }

  showStale() {
    const { results } = this.parts;
    const stale = this.staleByErrors || this.stopped;
    results.classList.toggle('stale', stale);
    results.classList.toggle('recomputing', this.computing && !stale);
    results.dataset.stale = String(stale || this.computing);
  }

  /**
   * Follows the engine's first load.
   * @param {EngineClient} engine
   */
  watchLoad(engine) {
    const { engineLine, banners } = this.parts;
    engine.ready.then((info) => {
      this.engineLoaded = true;
      engineLine.textContent = t('Engine {version} · WASM', { version: info.version });
      this.update();
    }, (error) => {
      this.engineFailed = true;
      engineLine.textContent = t('Engine not loaded');
      banners.show('engine', 'error', `${messageOf(error)}. Reload the page; if it persists, the site is missing ppb_engine.wasm.`);
      this.update();
    });
  }

  /**
   * The worker died and the client is starting a new one: says so, and calls onRestarted once the new one runs.
   * @param {string} reason
   * @param {EngineClient} engine
   * @param {() => void} onRestarted
   */
  engineDied(reason, engine, onRestarted) {
    const { engineLine, banners } = this.parts;
    this.engineLoaded = false;
    this.update();
    banners.show('engine-died', 'error', t('The engine stopped ({reason}). It has been restarted; your inputs are kept and the plan is computed again.', { reason }));
    engineLine.textContent = t('Restarting the engine…');
    engine.ready.then(() => {
      this.engineLoaded = true;
      engineLine.textContent = t('Engine {version} restarted', { version: engine.info.version });
      onRestarted();
    }, (error) => {
      this.engineFailed = true;
      banners.show('engine-died', 'error', t('The engine stopped and could not be restarted: {reason}. Reload the page.', { reason: messageOf(error) }));
      this.update();
    });
  }
}
