// Entry point of the PPB page: builds the parts and wires them together; the work is done in js/. State flows one
// way: inputs (js/controls.js, js/model-loader.js, links) -> state (js/store.js) -> request (js/requests.js) ->
// worker (js/plan-runner.js, js/worker-client.js, worker.js) -> response -> views (js/plan-views.js, js/views/).
// js/page-status.js says what the page as a whole is doing.

/** @import {PageState} from './js/types.js' */
import { byId, copyWithFeedback, download } from './js/dom.js';
import { TEMPLATE_MODEL } from './js/template.js';
import { initialState, DEFAULT_EXAMPLE } from './js/state.js';
import { exactPlanSections } from './js/requests.js';
import { linkedPlan } from './js/linked-plan.js';
import { setPartitionByHand, statedRecomputeCounts, openCandidateSettings, keepPlanAsOffsets, applySuggestedSearch, takeEngineOffsets } from './js/settings-edits.js';
import { Store } from './js/store.js';
import { EngineClient, CancelledError, EngineDiedError } from './js/worker-client.js';
import { ErrorBoard } from './js/errors.js';
import { Banners } from './js/banners.js';
import { PageStatus } from './js/page-status.js';
import { PlanRunner } from './js/plan-runner.js';
import { WorkStatus } from './js/work-status.js';
import { PlanViews } from './js/plan-views.js';
import { ModelLoader } from './js/model-loader.js';
import { Controls } from './js/controls.js';
import { ThemeSwitch } from './js/theme-switch.js';
import { singleFile } from './js/single-file.js';
import { setTransformerDevices, setTransformerValues } from './js/transformer-form.js';
import { decodeState, isStateLink, LinkError, MAX_LINK_CHARS } from './js/share.js';
import { AddressBar, isTabLink, readTabState } from './js/address-bar.js';
import { attachSharePanel } from './js/share-panel.js';
import { attachExportPanel } from './js/export-panel.js';
import { SearchPanel } from './js/search-panel.js';
import { SchedulePanel } from './js/schedule-panel.js';
import { embedOptions, showEmbedLayout, updateOpenLink } from './js/embed.js';
import { Tooltip } from './js/tooltip.js';
import { attachPartitionDrag } from './js/views/partition-drag.js';
import { TimeViews } from './js/views/timeline-view.js';
import { candidateLabel } from './js/views/pareto.js';
import { num, count } from './js/format.js';
import { prepareTextWidths } from './js/svg.js';
import { attachJumpLinks } from './js/jump-links.js';
import { browserLanguage, pageLanguage, setLanguage, t } from './js/i18n.js';

// ---- the parts ---------------------------------------------------------------------------------------------------
const form = byId('controls-form', HTMLFormElement);
const transformerBox = byId('transformer-form', HTMLElement);
const results = byId('results', HTMLElement);
const embed = embedOptions(location.search);
// The language first, before any part writes text: the address's lang parameter (share links and embeds carry it),
// else the browser's. A state that names another language (a state file) switches it when it is opened.
setLanguage(embed.lang ?? browserLanguage(navigator.languages));
const tooltip = new Tooltip();
tooltip.attach(results);
const errors = new ErrorBoard(byId('general-errors', HTMLElement));
const banners = new Banners(byId('banners', HTMLElement));
const store = new Store(initialState({ layers: [] }, ''));
const status = new PageStatus({ body: document.body, results, engineLine: byId('engine-status', HTMLElement), banners, errors,
  hasResult: () => runner.current !== null });

/** What boot.js started before the modules loaded: the worker and the default example's fetch. */
const boot = /** @type {{worker: Worker, adopt: () => any[], example: Promise<any> | null} | undefined} */ (/** @type {any} */ (window).__ppbBoot);
const engine = new EngineClient(singleFile?.workerUrl ?? 'worker.js', {
  onDeath: (reason) => status.engineDied(reason, engine, () => runner.request(true, { keepPlan: true })),
}, boot ?? null);
/** The example shown first: the single file has only the one it carries. */
const defaultExample = singleFile?.example.file ?? DEFAULT_EXAMPLE;

const address = new AddressBar({ getState: shareState, enabled: !embed.embed, onKept: showKept });
const theme = new ThemeSwitch(byId('theme-button', HTMLButtonElement), store, () => {
  redrawAll();
  address.changed();
}, embed.embed ? embed.theme : null);
/** Charts fill their boxes' height: an embed sized by its frame (not one that tells the frame its height). */
const fit = embed.embed && !embed.autoHeight;
const palette = () => theme.palette();

// ---- the language: an embed's parameter, else the state's (from a link), else the browser's ------------------------
const languageButton = byId('lang-button', HTMLButtonElement);
/** Puts the page in the state's language (deciding it first when the state has none), before anything is drawn. */
function applyLanguage() {
  const ui = store.state.ui;
  const language = embed.lang ?? ui.lang ?? pageLanguage();
  // Kept in the state, so share links and embeds open in the same language.
  ui.lang = language;
  if (language !== pageLanguage()) setLanguage(language);
  languageButton.textContent = language === 'zh' ? 'English' : '中文';
  languageButton.lang = language === 'zh' ? 'en' : 'zh-CN';
  languageButton.title = t(language === 'zh' ? 'Language: Chinese; click for English' : 'Language: English; click for Chinese');
  theme.apply();
}
// The other language: the address takes it (lang parameter) and the state, and the page starts again in it, so
// every text is drawn anew.
languageButton.addEventListener('click', async () => {
  const next = pageLanguage() === 'zh' ? 'en' : 'zh';
  store.state.ui.lang = next;
  await address.write(++address.version).catch(() => {});
  const url = new URL(location.href);
  url.searchParams.set('lang', next);
  history.replaceState(history.state, '', url.href);
  location.reload();
});
/** @param {HTMLElement} box */
const widthOf = (box) => Math.max(320, Math.floor(box.clientWidth || 800));
/**
 * A chart's size: its box's width, and in embed mode its height too (charts fit the frame).
 * @param {HTMLElement} box
 * @returns {{width: number, height?: number}}
 */
const sizeOf = (box) => ({ width: widthOf(box), height: fit && box.clientHeight > 0 ? box.clientHeight : undefined });

const timeViews = new TimeViews({ timeline: byId('timeline-box', HTMLElement), memory: byId('memory-box', HTMLElement),
  details: byId('op-details', HTMLElement), stages: byId('memory-stages', HTMLElement) }, tooltip, palette, fit);
const controls = new Controls(form, () => store.state, {
  onPlanChange: (immediate) => runner.request(immediate),
  onSearchChange: () => {
    errors.clear('search');
    address.changed();
  },
  onToOffsets: (s) => {
    if (!runner.upToDate() || !runner.current) return false;
    keepPlanAsOffsets(s, runner.current.result);
    store.state.ui.openPlan = `${runner.current.label} as a layer_offset`;
    return true;
  },
  schedules: () => engine.info.schedules,
  cluster: askCluster,
});
const views = new PlanViews({ store, timeViews, palette, size: sizeOf, suggest: suggestedSearch, schedules: () => engine.info.schedules });
const work = new WorkStatus(byId('work', HTMLElement));
const runner = new PlanRunner({ engine, store, status, errors, banners, work, form, exclude: transformerBox,
  onRequest: () => schedulePanel.inputsChanged(),
  onPlan: (plan, comparison) => {
    // A partition dragged by hand went as stage_layers: its layer_offset is the engine's answer.
    if (takeEngineOffsets(store.state.settings, plan.request, plan.result)) controls.setValue('layer_offset', store.state.settings.layer_offset);
    views.show(plan, comparison);
    // An embed shows only the views it names, and none of them is this one. A balance's best plan so far is
    // compared under every schedule once it is final.
    if (!embed.embed && !plan.interim) schedulePanel.update(plan);
    address.changed();
    if (embed.embed) updateOpenLink(shareState(), embed.theme);
  },
  onComparison: (comparison) => views.showComparison(comparison),
  onModelChecked: (model, response) => loader.modelChecked(model, response) });
const schedulePanel = new SchedulePanel({ engine, status, getModel: () => store.state.model, palette, size: sizeOf, onOpen: openSchedule });
const searchPanel = new SearchPanel({
  search: (request, onProgress) => engine.run('search', request, { onProgress }),
  schedules: () => engine.info.schedules,
  canRun: () => status.engineLoaded,
  errors,
  form,
  exclude: transformerBox,
  getState: () => store.state,
  palette,
  size: sizeOf,
  onOpen: openCandidate,
  onBusy: () => {
    status.setBusy('search', searchPanel.running !== null);
    address.changed();
  },
  suggest: suggestedSearch,
});
const loader = new ModelLoader({ engine, store, status, errors, banners, work, controls, searchPanel, runner, form, transformerBox,
  onState: applyState, onSourceChange: () => address.changed() });
loader.attach();

/**
 * The engine's `cluster` answer for the search panel. A quick question: it does not keep a cancelled call's worker
 * alive (retryable), and is asked again of the new worker when the one it went to was replaced (a cancel, a death).
 * @param {object} request
 * @returns {Promise<import('./js/types.js').EngineResponse>}
 */
async function askCluster(request) {
  // The page's first plan goes first: the hint is not worth delaying it.
  if (!runner.current) await runner.idle();
  for (;;) {
    try {
      return await engine.run('cluster', request, { retryable: true }).result;
    } catch (error) {
      if (!(error instanceof CancelledError || error instanceof EngineDiedError)) throw error;
      await engine.ready;
    }
  }
}

function redrawAll() {
  views.draw();
  schedulePanel.draw();
  searchPanel.draw();
}

// ---- the state as a whole: links, state files ----------------------------------------------------------------------
/**
 * The state as links and state files carry it: with the PPB plan shown (a balance's final answer to these very
 * inputs, or the plan a link brought), so that opening it shows that plan without balancing again.
 * @returns {PageState}
 */
function shareState() {
  const state = store.state;
  const current = runner.current;
  let plan = null;
  if (state.settings.partition === 'ppb' && current && runner.upToDate()) {
    if (current.held) plan = current.held;
    else if (current.command === 'balance' && !current.interim) plan = linkedPlan(current.result);
  }
  return { ...state, plan };
}

/**
 * Replaces the whole state (from a link or a state file).
 * @param {PageState} next
 */
function applyState(next) {
  store.replace(next);
  applyLanguage();
  byId('example-select', HTMLSelectElement).value = '';
  errors.clear('model');
  theme.apply();
  if (next.transformer) setTransformerValues(transformerBox, next.transformer);
  loader.showModel();
  loader.showSource();
  controls.show(next, store.info);
  searchPanel.clear();
  // A PPB plan the state carries is shown as it is (an estimate), not balanced again.
  runner.request(true, { keepPlan: true });
  runSearchIfShown(next.ui.search);
}

/**
 * Runs the search a state had, or the one an embed of the scatter shows (whatever the state: an embed has no
 * button to start it; what stops it is said in its status line).
 * @param {boolean} hadSearch
 */
function runSearchIfShown(hadSearch) {
  if (embed.embed ? embed.views.includes('pareto') : hadSearch) searchPanel.run();
}

/**
 * Says where the work is kept when the address cannot hold it as a share link.
 * @param {import('./js/address-bar.js').Kept} kept
 * @param {number} chars
 */
function showKept(kept, chars) {
  const size = t('{n} characters compressed; a link holds up to {limit}', { n: count(chars), limit: count(MAX_LINK_CHARS) });
  if (kept === 'link') banners.remove('kept');
  else if (kept === 'tab') {
    banners.show('kept', 'info', t('This model is too large for a share link ({size}). Reload and Back in this tab keep your work; ' +
      'the address works only in this tab. To keep it elsewhere or pass it on, use Export → State file.', { size }));
  } else {
    banners.show('kept', 'warn', t('This model is too large for a share link ({size}) and this tab could not keep it: a reload shows ' +
      'the default example. Save your work with Export → State file.', { size }));
  }
}

/**
 * Opens a state link (or a key to a state this tab keeps); a broken one gives a message and changes nothing.
 * @param {string} hash
 * @param {string} fallback what the page shows instead, for the message
 * @returns {Promise<boolean>} whether the link was read
 */
async function loadFromLink(hash, fallback) {
  status.setBusy('input', true);
  try {
    const linked = await (isTabLink(hash) ? readTabState(hash) : decodeState(hash));
    await engine.ready.catch(() => {});
    applyState(linked);
    banners.remove('link');
    return true;
  } catch (error) {
    const message = error instanceof LinkError ? error.message : t('The link could not be read ({reason}).', { reason: error instanceof Error ? error.message : String(error) });
    banners.show('link', 'error', `${message} ${fallback}`);
    return false;
  } finally {
    status.setBusy('input', false);
  }
}

window.addEventListener('hashchange', () => {
  if (isStateLink(location.hash)) loadFromLink(location.hash, t('The page keeps what it shows.'));
});

attachJumpLinks(document);
attachSharePanel({ getState: shareState, getName: () => store.info.name });
const exportPanel = attachExportPanel({
  run: (request) => {
    const job = engine.run('export', request);
    work.track(job, { label: 'Writing the export' });
    return job.result;
  },
  errors,
  banners,
  getState: () => store.state,
  getShown: () => runner.current,
  getName: () => store.info.name,
});

// ---- partition by hand -----------------------------------------------------------------------------------------
attachPartitionDrag(byId('stage-loads-box', HTMLElement), {
  getLayers: () => views.dragLayers ?? runner.current?.result.stage_layers ?? null,
  getInfo: () => store.info,
  onChange: (layers, boundary, done) => {
    const current = runner.current;
    if (!current) return;
    const { state, info } = store;
    const s = state.settings;
    // The recompute in force goes along: the counts typed, or the shown plan's.
    const counts = s.partition === 'explicit' && !s.recompute_layers
      ? statedRecomputeCounts(s)
      : current.result.recompute_counts;
    setPartitionByHand(s, info, layers, counts);
    state.ui.openPlan = 'dragged by hand';
    controls.show(state, info);
    views.drag(done ? null : layers, done ? null : boundary);
    runner.request(true);
  },
});

// ---- newcomers: the template file; the docs (not in the single file, which carries no docs) ----------------------
byId('template-download', HTMLButtonElement).addEventListener('click', () =>
  download(new Blob([JSON.stringify(TEMPLATE_MODEL, null, 2)], { type: 'application/json' }), 'ppb-model-template.json'));
// The docs lie beside the page in docs/ (tools/docs-site.mjs); links are made here, so the single file's markup
// names no file it does not carry.
if (!singleFile) {
  for (const link of document.querySelectorAll('a[data-doc]')) link.setAttribute('href', `docs/${link.getAttribute('data-doc')}`);
  for (const node of document.querySelectorAll('#docs-link, .docs-only')) /** @type {HTMLElement} */ (node).hidden = false;
}

byId('offset-copy', HTMLButtonElement).addEventListener('click', (event) =>
  copyWithFeedback(/** @type {HTMLButtonElement} */ (event.currentTarget), byId('offset-value', HTMLElement).textContent ?? ''));

// ---- comparison and search -----------------------------------------------------------------------------------------
byId('pin-plan', HTMLButtonElement).addEventListener('click', () => {
  const current = runner.current;
  if (!current) return;
  const r = current.result;
  store.state.compare.pinned = { label: `pinned: ${views.describePlan()} (pp ${r.pp_degree}, ${num(r.step_time_ms)} ms)`,
    request: exactPlanSections(r, current.request) };
  runner.request(true, { keepPlan: true });
});
byId('unpin-plan', HTMLButtonElement).addEventListener('click', () => {
  store.state.compare.pinned = null;
  banners.remove('pinned');
  runner.request(true, { keepPlan: true });
});
// A PPB plan that came with a link: balance these inputs here.
byId('rebalance', HTMLButtonElement).addEventListener('click', () => runner.request(true));

/**
 * The search an infeasibility explanation suggests, as a button: its label (worked out on a copy of the settings)
 * and what it does (the search settings set, shown, and the search run).
 * @param {import('./js/types.js').Infeasibility} inf
 * @param {import('./js/plan-views.js').Shape} shape
 * @returns {import('./js/plan-views.js').SuggestedSearch | null}
 */
function suggestedSearch(inf, shape) {
  const state = store.state;
  const preview = { ...state, search: { ...state.search }, settings: { ...state.settings } };
  const pps = applySuggestedSearch(preview, inf, shape);
  if (!pps) return null;
  const option = inf.recompute_option !== null ? t(', recompute {option} allowed', { option: inf.recompute_option }) : '';
  const label = t('Search pp_degree {list} with {schedule}{option}', { list: pps.join(', '), schedule: shape.schedule, option });
  return { label, run: () => {
    applySuggestedSearch(state, inf, shape);
    controls.show(state, store.info);
    errors.clear('search');
    address.changed();
    // A recompute option allowed changes the plan too.
    if (inf.recompute_option !== null) runner.request(true);
    searchPanel.run({ focus: true });
  } };
}

/**
 * Shows the plan with another schedule, at the chunk count the comparison ran it with; a layer_offset of another
 * number of virtual stages no longer applies (the comparison used the even split for it too).
 * @param {import('./js/types.js').CompareRow} row
 */
function openSchedule(row) {
  const { state, info } = store;
  const s = state.settings;
  // A balanced row opens its own plan exactly, as a search candidate does.
  const compared = schedulePanel.request?.pipeline;
  if (schedulePanel.result?.plans === 'balanced' && row.plan && compared) {
    openCandidateSettings(s, { pp_degree: compared.pp_degree, vpp_degree: row.vpp_degree, micro_batch_num: compared.micro_batch_num,
      schedule: row.schedule, plan: row.plan });
    state.ui.openPlan = `${row.schedule} at its best`;
    controls.show(state, info);
    runner.request(true);
    return;
  }
  s.schedule = row.schedule;
  s.vpp_degree = String(row.vpp_degree);
  if (s.partition === 'explicit' && !row.partition_as_given) controls.clearOffsets(s);
  controls.show(state, info);
  runner.request(true);
}

/**
 * Opens a search candidate's plan in the views (as an explicit plan with its exact recompute layers).
 * @param {number} index
 */
function openCandidate(index) {
  const candidate = searchPanel.result?.candidates[index];
  if (!candidate) return;
  const { state, info } = store;
  openCandidateSettings(state.settings, candidate);
  state.ui.openPlan = `search #${index + 1}: ${candidateLabel(candidate)}`;
  controls.show(state, info);
  searchPanel.select(index);
  runner.request(true);
  // The keyboard follows the eye: to the plan just opened.
  const summary = document.querySelector('[data-view="summary"]');
  if (summary instanceof HTMLElement) {
    summary.focus({ preventScroll: true });
    summary.scrollIntoView({ behavior: 'smooth', block: 'start' });
  }
}

// ---- zoom buttons, resizing ----------------------------------------------------------------------------------------
byId('zoom-in', HTMLButtonElement).addEventListener('click', () => timeViews.zoom(0.5));
byId('zoom-out', HTMLButtonElement).addEventListener('click', () => timeViews.zoom(2));
byId('zoom-reset', HTMLButtonElement).addEventListener('click', () => timeViews.setWindow(null));

/** Draws the charts again when the results change width (in embed mode, height too). */
function redrawOnResize() {
  let lastSize = '';
  new ResizeObserver(() => {
    const size = `${results.clientWidth}x${fit ? results.clientHeight : 0}`;
    if (size === lastSize) return;
    lastSize = size;
    requestAnimationFrame(redrawAll);
  }).observe(results);
}
redrawOnResize();

// ---- start -----------------------------------------------------------------------------------------------------
/**
 * Test and automation hooks, read-only: the last response, the state, counts. Nothing here kills the worker: the
 * recovery tests reach into it themselves (tests/web/helpers.mjs, crashWorker).
 */
/** @type {any} */ (window).__ppb = {
  get last() { return runner.current?.response ?? null; },
  /** Whether the plan shown is a balance's best plan so far (the balance goes on). */
  get interim() { return runner.current?.interim ?? false; },
  get lastRequest() { return runner.current?.request ?? null; },
  get comparison() { return runner.comparison; },
  get search() { return searchPanel.result; },
  get schedules() { return schedulePanel.result ? { request: schedulePanel.request, result: schedulePanel.result } : null; },
  get cancelledCalls() { return engine.cancelledCalls; },
  get modelsSent() { return engine.modelsSent; },
  /** Files' bytes handed to the engine as they arrived and not yet adopted as a model or dropped. */
  get offersPending() { return engine.offers.size; },
  get warmUpMs() { return engine.warmUpMs; },
  get lastExport() { return exportPanel.lastExport; },
  get state() { return store.state; },
};

async function start() {
  applyLanguage();
  if (embed.embed) showEmbedLayout(embed);
  theme.apply();
  status.watchLoad(engine);
  // The device pickers offer the engine's presets, which come with its ready message.
  engine.ready.then((info) => {
    controls.buildDevices(info.devices);
    setTransformerDevices(transformerBox, info.devices);
  }, () => {});
  // While the engine loads (after the page's first frame): the charts' fonts looked up and the page laid out, so
  // that drawing the first plan does neither.
  requestAnimationFrame(() => setTimeout(() => {
    prepareTextWidths();
    void results.clientWidth;
  }));
  const linked = isStateLink(location.hash) && await loadFromLink(location.hash, t('The page shows the default example instead.'));
  if (!linked) {
    await loader.loadDefault(boot?.example ?? null, defaultExample);
    // The example's plan went at once; a search (an embed's scatter) starts once the engine has loaded.
    await engine.ready.catch(() => {});
    runSearchIfShown(false);
  }
  status.update();
}

start();
