// Entry point of the PPB page. State flows one way: inputs -> state -> request -> worker -> response -> views.
// This module owns the state and the last good result and wires the parts in js/ together; each view draws
// itself from data (js/views/), the engine runs in a worker (js/worker-client.js, worker.js).

/** @import {PageState, EngineError, EngineResponse, EstimateResult} from './js/types.js' */
/** @import {NamedPlan} from './js/views/compare.js' */
import { byId, el, copyWithFeedback } from './js/dom.js';
import { initialState, planRequest, exactPlanSections, applyRequestSettings, setPartitionByHand, statedRecomputeCounts,
  openCandidateSettings, DEFAULT_EXAMPLE } from './js/state.js';
import { modelInfo, offsetFromStageLayers, recomputeCounts } from './js/model.js';
import { EngineClient, EngineDiedError, SearchCancelledError } from './js/worker-client.js';
import { ErrorBoard } from './js/errors.js';
import { Banners } from './js/banners.js';
import { Controls } from './js/controls.js';
import { attachModelInput, EXAMPLES, readExample } from './js/model-input.js';
import { singleFile } from './js/single-file.js';
import { readDocument } from './js/model-source.js';
import { buildTransformerForm, setTransformerValues, transformerRequest } from './js/transformer-form.js';
import { decodeState, isStateLink, LinkError } from './js/share.js';
import { attachSharePanel } from './js/share-panel.js';
import { attachExportPanel } from './js/export-panel.js';
import { SearchPanel } from './js/search-panel.js';
import { embedOptions } from './js/embed.js';
import { paletteFor } from './js/theme.js';
import { Tooltip } from './js/tooltip.js';
import { renderSummary } from './js/views/summary.js';
import { renderStageLoads } from './js/views/stage-loads.js';
import { renderStageTable } from './js/views/stage-table.js';
import { attachPartitionDrag } from './js/views/partition-drag.js';
import { TimeViews } from './js/views/timeline-view.js';
import { renderCompare, renderGainCards } from './js/views/compare.js';
import { candidateLabel } from './js/views/pareto.js';
import { num, percent, count } from './js/format.js';

// ---- page parts ------------------------------------------------------------------------------------------------
const form = byId('controls-form', HTMLFormElement);
const transformerBox = byId('transformer-form', HTMLElement);
const results = byId('results', HTMLElement);
const embed = embedOptions(location.search);
const tooltip = new Tooltip();
tooltip.attach(results);
const errors = new ErrorBoard(byId('general-errors', HTMLElement));
const banners = new Banners(byId('banners', HTMLElement));
/** Error groups that mean the inputs, as they stand, cannot be shown. */
const ERROR_GROUPS = ['plan', 'model', 'transformer', 'search'];

/** @type {PageState} */
let state = initialState({ layers: [] }, '');
let info = modelInfo(state.model);
let engineLoaded = false;
let engineFailed = false;

/**
 * The last good plan: the response and the request that made it.
 * @typedef {{response: EngineResponse & {ok: true}, result: EstimateResult, request: Record<string, any>,
 *            command: 'estimate' | 'balance', label: string}} Current
 * @type {Current | null}
 */
let current = null;
/** @type {{a: NamedPlan, b: NamedPlan} | null} */
let comparison = null;
/** Layers per virtual stage while a boundary is being dragged. @type {number[] | null} */
let dragLayers = null;
/** @type {number | null} */
let dragBoundary = null;

/** What boot.js started before the modules loaded: the worker and the default example's fetch. */
const boot = /** @type {{worker: Worker, adopt: () => any[], example: Promise<any> | null} | undefined} */ (/** @type {any} */ (window).__ppbBoot);
const engine = new EngineClient(singleFile?.workerUrl ?? 'worker.js', { onDeath: engineDied }, boot ?? null);
/** The example shown first: the single file has only the one it carries. */
const defaultExample = singleFile?.example.file ?? DEFAULT_EXAMPLE;
const palette = () => paletteFor(state.ui.theme);
const timeViews = new TimeViews({ timeline: byId('timeline-box', HTMLElement), memory: byId('memory-box', HTMLElement) }, tooltip, palette, embed.embed);
const controls = new Controls(form, () => state, {
  onPlanChange: (immediate) => requestPlan(immediate),
  onSearchChange: () => errors.clear('search'),
});

/** @param {HTMLElement} box */
const widthOf = (box) => Math.max(320, Math.floor(box.clientWidth || 800));
/**
 * A chart's size: its box's width, and in embed mode its height too (charts fit the frame).
 * @param {HTMLElement} box
 * @returns {{width: number, height?: number}}
 */
const sizeOf = (box) => ({ width: widthOf(box), height: embed.embed && box.clientHeight > 0 ? box.clientHeight : undefined });

const searchPanel = new SearchPanel({
  search: (request, onProgress) => engine.search(request, onProgress),
  hasProgress: () => engine.info.features.searchSession,
  canRun: () => engineLoaded,
  errors,
  form,
  exclude: transformerBox,
  getState: () => state,
  palette,
  size: sizeOf,
  onOpen: openCandidate,
  onBusy: updateBodyState,
});

// ---- page state (body[data-state]) -------------------------------------------------------------------------------
let planPending = false;
let planRunning = false;
/** A model, link or state is being read or imported. */
let inputPending = false;

/** @param {boolean} pending */
function setInputPending(pending) {
  inputPending = pending;
  updateBodyState();
}

function updateBodyState() {
  let value = 'ready';
  if (!engineLoaded && !engineFailed) value = 'loading';
  else if (planPending || planRunning || searchPanel.running || inputPending) value = 'busy';
  else if (engineFailed || ERROR_GROUPS.some((group) => errors.has(group))) value = 'error';
  document.body.dataset.state = value;
}

/**
 * Marks the views as showing an older result than the inputs ask for.
 * @param {boolean} isStale
 */
function setStale(isStale) {
  const stale = isStale && current !== null;
  results.classList.toggle('stale', stale);
  results.dataset.stale = String(stale);
  if (stale) banners.show('stale', 'warn', 'The inputs have errors (shown beside the fields). The views show the last good result.', { role: 'status' });
  else banners.remove('stale');
}

// ---- running plans -------------------------------------------------------------------------------------------------
let debounce = 0;

/**
 * Asks for the plan the inputs describe. Typing waits a moment; one request runs at a time and only the newest
 * inputs run next (a drag sends many changes, the engine sees as many as it can keep up with).
 * @param {boolean} immediate
 */
function requestPlan(immediate) {
  planPending = true;
  updateBodyState();
  clearTimeout(debounce);
  if (immediate) runPlans();
  else debounce = window.setTimeout(runPlans, 220);
}

async function runPlans() {
  if (planRunning) return;
  planRunning = true;
  try {
    while (planPending) {
      planPending = false;
      await runPlan();
    }
  } finally {
    planRunning = false;
    updateBodyState();
  }
}

/** The label of the plan the settings make. */
function planLabel() {
  const s = state.settings;
  if (s.partition === 'ppb') return 'PPB plan';
  if (s.partition === 'even') return 'even split';
  return state.ui.openPlan || 'your layer_offset';
}

async function runPlan() {
  if (!engineLoaded) return;
  const { command, request } = planRequest(state);
  let response;
  try {
    response = await engine.call(command, request);
  } catch (error) {
    if (error instanceof EngineDiedError || error instanceof SearchCancelledError) {
      planPending = true;
      await engine.ready.catch(() => {});
      return;
    }
    banners.show('plan-failure', 'error', `The plan could not be computed: ${error instanceof Error ? error.message : error}`);
    return;
  }
  if (planPending) return; // newer inputs are waiting; this answer is already out of date
  if (!response.ok) {
    errors.set('plan', response.errors, { within: form, exclude: transformerBox });
    setStale(true);
    return;
  }
  errors.clear('plan');
  banners.remove('plan-failure');
  const result = /** @type {EstimateResult} */ (response.result);
  const label = planLabel();
  comparison = await comparisonFor(result, request, command, label);
  current = { response, result, request, command, label };
  setStale(false);
  renderPlan();
}

/**
 * The comparison to show with a plan: a pinned plan against this one; PPB against its even split; an explicit
 * plan against the even split.
 * @param {EstimateResult} result
 * @param {Record<string, any>} request
 * @param {'estimate' | 'balance'} command
 * @param {string} label
 * @returns {Promise<{a: NamedPlan, b: NamedPlan} | null>}
 */
async function comparisonFor(result, request, command, label) {
  const pinned = state.compare.pinned;
  try {
    if (pinned) {
      const response = await engine.call('estimate', { ...pinned.request, model: state.model });
      if (response.ok) return { a: { label: pinned.label, result: response.result }, b: { label, result } };
      banners.show('pinned', 'warn', `The pinned plan no longer fits these inputs: ${response.errors[0]?.message ?? ''}`);
      return null;
    }
    if (command === 'balance' && result.baseline) return { a: { label: 'even split', result: result.baseline }, b: { label, result } };
    if (state.settings.partition === 'explicit') {
      const pipeline = { ...request.pipeline };
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

// ---- drawing ---------------------------------------------------------------------------------------------------
function renderPlan() {
  if (!current) return;
  const { result } = current;
  const training = current.request.training ?? {};
  const samplesPerStep = typeof training.global_batch_size === 'number' ? training.global_batch_size : undefined;
  byId('summary', HTMLElement).replaceChildren(renderSummary(result, { planLabel: describePlan(), samplesPerStep }));
  drawStageLoads();
  byId('stage-table-box', HTMLElement).replaceChildren(renderStageTable(result));
  showOffset();
  timeViews.setData(result);
  drawCompare();
}

/** A sentence on how the shown plan was made. */
function describePlan() {
  if (!current) return '';
  const method = current.result.method;
  if (current.command === 'balance' && method) {
    if (method.proven_optimal) return 'PPB plan, proven optimal';
    if (typeof method.within_tolerance === 'number') return `PPB plan, within ${percent(method.within_tolerance)} of the optimum`;
    return 'PPB plan';
  }
  return current.label;
}

function drawStageLoads() {
  if (!current) return;
  const box = byId('stage-loads-box', HTMLElement);
  const focused = document.activeElement?.closest?.('.boundary')?.getAttribute('data-boundary');
  box.replaceChildren(renderStageLoads(current.result, { ...sizeOf(box), palette: palette(), info, stageLayers: dragLayers, dragging: dragBoundary }));
  if (focused !== undefined && focused !== null) {
    const handle = box.querySelector(`.boundary[data-boundary="${focused}"]`);
    if (handle instanceof SVGElement) handle.focus();
  }
}

function showOffset() {
  if (!current) return;
  const offsets = dragLayers ? offsetFromStageLayers(info, dragLayers) : current.result.layer_offset;
  byId('offset-value', HTMLElement).textContent = `[${offsets.join(', ')}]`;
  const vpp = current.result.vpp_degree ?? 1;
  byId('offset-note', HTMLElement).textContent = `${describePlan()}${vpp > 1 ? ` · ${offsets.length} virtual stages, chunk-major` : ''}`;
  // The engine's own sentences on why a PPB plan is not proven optimal (a budget reached, a schedule
  // without proof), as text.
  const method = current.command === 'balance' ? current.result.method : undefined;
  const notes = method && !method.proven_optimal ? method.notes ?? [] : [];
  const list = byId('method-notes', HTMLElement);
  list.replaceChildren(...notes.map((note) => el('li', { text: note })));
  list.hidden = notes.length === 0;
}

function drawCompare() {
  const box = byId('compare-box', HTMLElement);
  const cards = byId('compare-cards', HTMLElement);
  byId('unpin-plan', HTMLButtonElement).hidden = !state.compare.pinned;
  if (!comparison) {
    cards.replaceChildren(el('p', { class: 'hint', text: state.settings.partition === 'even'
      ? 'Choose PPB or a layer_offset to compare it with the even split, or pin this plan and change the inputs to compare any two plans.'
      : 'Nothing to compare yet.' }));
    box.replaceChildren();
    return;
  }
  const { a, b } = comparison;
  cards.replaceChildren(...renderGainCards(a, b));
  box.replaceChildren(renderCompare(a, b, { ...sizeOf(box), palette: palette() }));
}

function redrawAll() {
  if (current) renderPlan();
  searchPanel.draw();
}

// ---- theme -----------------------------------------------------------------------------------------------------
function applyTheme() {
  const theme = state.ui.theme;
  document.documentElement.dataset.theme = theme;
  // The scheme the page's styles follow: "auto" resolved against the system, as for the charts.
  document.documentElement.dataset.scheme = palette().name;
  const button = byId('theme-button', HTMLButtonElement);
  button.textContent = `Theme: ${theme}`;
  button.setAttribute('aria-label', theme === 'auto' ? 'Colour theme: follows the system' : `Colour theme: ${theme}`);
}

byId('theme-button', HTMLButtonElement).addEventListener('click', () => {
  state.ui.theme = state.ui.theme === 'auto' ? 'light' : state.ui.theme === 'light' ? 'dark' : 'auto';
  applyTheme();
  redrawAll();
});
matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
  if (state.ui.theme !== 'auto') return;
  applyTheme();
  redrawAll();
});

// ---- models ------------------------------------------------------------------------------------------------------
/**
 * Puts a new model in place: its own recompute options, no pinned plan, no explicit partition, no search results;
 * a request file's settings, when given, fill the controls.
 * @param {any} model
 * @param {string} label
 * @param {any} [request] a request file the model came from
 */
function setModel(model, label, request = null) {
  errors.clear('model');
  errors.clear('transformer');
  state.model = model;
  state.modelLabel = label;
  state.compare.pinned = null;
  const s = state.settings;
  s.recompute_options = null;
  s.layer_offset = '';
  s.recompute_counts = {};
  s.recompute_layers = null;
  state.ui.openPlan = '';
  state.ui.search = false;
  if (request) applyRequestSettings(s, request);
  info = modelInfo(model);
  showModel();
  controls.show(state, info);
  searchPanel.clear();
  requestPlan(true);
}

function showModel() {
  byId('model-name', HTMLElement).textContent = state.modelLabel || info.name || 'unnamed model';
  byId('model-meta', HTMLElement).textContent =
    ` · ${count(info.layerCount)} layers (${count(info.body)} body${info.pinnedFirst + info.pinnedLast > 0 ? `, ${info.pinnedFirst + info.pinnedLast} pinned` : ''})`;
}

/**
 * Where a model source's errors go.
 * @param {import('./js/model-input.js').SourceKind} kind
 * @returns {HTMLElement}
 */
function sourceField(kind) {
  if (kind === 'paste') return byId('model-paste', HTMLTextAreaElement).closest('.field') ?? form;
  if (kind === 'example') return byId('example-select', HTMLSelectElement).closest('.field') ?? form;
  return byId('drop-target', HTMLElement);
}

/**
 * Shows a problem with a model source; the last result stays, marked stale.
 * @param {import('./js/model-input.js').SourceKind} kind
 * @param {EngineError[]} problems
 */
function modelProblem(kind, problems) {
  errors.set('model', problems, { target: sourceField(kind) });
  setStale(true);
  updateBodyState();
}

/**
 * A document arrived (example, file, drop, paste): reads it and puts it in place, or says what is wrong.
 * @param {import('./js/model-input.js').Incoming} incoming
 */
async function onIncoming(incoming) {
  setInputPending(true);
  try {
    errors.clear('model');
    await engine.ready.catch(() => {});
    const reading = await readDocument(incoming, (request) => engine.call('import', request));
    if (reading.kind === 'problem') modelProblem(incoming.kind, reading.errors);
    else if (reading.kind === 'state') applyState(reading.state);
    else {
      setModel(reading.model, reading.label, reading.request);
      // A request's own sections are not part of a model; their fields are not worth a note.
      showImportNotes(reading.warnings.filter((w) => !(reading.request && w.code === 'UNKNOWN_FIELD')));
    }
  } finally {
    setInputPending(false);
  }
}

/** @param {EngineError[]} warnings */
function showImportNotes(warnings) {
  const panel = byId('model-panel', HTMLElement);
  panel.querySelector('.import-warnings')?.remove();
  if (warnings.length === 0) return;
  panel.append(el('details', { class: 'import-warnings' }, [
    el('summary', { text: `${warnings.length} import note${warnings.length === 1 ? '' : 's'}` }),
    el('ul', {}, warnings.slice(0, 50).map((w) => el('li', { text: `${w.path ? `${w.path}: ` : ''}${w.message}` }))),
  ]));
}

attachModelInput({
  select: byId('example-select', HTMLSelectElement),
  file: byId('model-file', HTMLInputElement),
  paste: byId('model-paste', HTMLTextAreaElement),
  pasteButton: byId('paste-button', HTMLButtonElement),
  overlay: byId('drop-overlay', HTMLElement),
}, {
  onReading: () => setInputPending(true),
  onIncoming: (incoming) => { onIncoming(incoming); },
  onProblem: (kind, message) => {
    inputPending = false;
    modelProblem(kind, [{ code: 'READ_FAILED', path: '', message }]);
  },
});

buildTransformerForm(transformerBox, {
  onBuild: async (values) => {
    errors.clear('transformer');
    setInputPending(true);
    try {
      await engine.ready.catch(() => {});
      const response = await engine.call('import', transformerRequest(values));
      if (!response.ok) {
        errors.set('transformer', response.errors, { within: transformerBox });
        setStale(true);
        return;
      }
      setModel(response.result.model, `${response.result.model.name || 'transformer'} (transformer form)`);
      state.transformer = values;
    } catch (error) {
      errors.set('transformer', [{ code: 'ENGINE', path: '', message: String(error instanceof Error ? error.message : error) }], { within: transformerBox });
    } finally {
      setInputPending(false);
    }
  },
});

// ---- the state as a whole: links, files ---------------------------------------------------------------------------
/**
 * Replaces the whole state (from a link or a state file).
 * @param {PageState} next
 */
function applyState(next) {
  state = next;
  info = modelInfo(state.model);
  errors.clear('model');
  applyTheme();
  if (state.transformer) setTransformerValues(transformerBox, state.transformer);
  showModel();
  controls.show(state, info);
  searchPanel.clear();
  requestPlan(true);
  if (state.ui.search && (!embed.embed || embed.views.includes('pareto'))) searchPanel.run();
}

/**
 * Opens a state link; a broken one gives a message and changes nothing.
 * @param {string} hash
 * @param {string} fallback what the page shows instead, for the message
 * @returns {Promise<boolean>} whether the link was read
 */
async function loadFromLink(hash, fallback) {
  setInputPending(true);
  try {
    const linked = await decodeState(hash);
    await engine.ready.catch(() => {});
    applyState(linked);
    banners.remove('link');
    return true;
  } catch (error) {
    const message = error instanceof LinkError ? error.message : `The link could not be read (${error instanceof Error ? error.message : error}).`;
    banners.show('link', 'error', `${message} ${fallback}`);
    return false;
  } finally {
    setInputPending(false);
  }
}

window.addEventListener('hashchange', () => {
  if (isStateLink(location.hash)) loadFromLink(location.hash, 'The page keeps what it shows.');
});

attachSharePanel({ getState: () => state, getName: () => info.name });
attachExportPanel({
  call: (command, request) => engine.call(command, request),
  errors,
  banners,
  getState: () => state,
  getShown: () => current,
  getName: () => info.name,
});

// ---- partition by hand -----------------------------------------------------------------------------------------
attachPartitionDrag(byId('stage-loads-box', HTMLElement), {
  getLayers: () => dragLayers ?? current?.result.stage_layers ?? null,
  getInfo: () => info,
  onChange: (layers, boundary, done) => {
    if (!current) return;
    const s = state.settings;
    // The recompute in force goes along: the counts typed, or the shown plan's.
    const counts = s.partition === 'explicit' && !s.recompute_layers
      ? statedRecomputeCounts(s)
      : current.result.recompute_counts ?? recomputeCounts(current.result.layer_recompute, current.result.stage_layers);
    setPartitionByHand(s, info, layers, counts);
    state.ui.openPlan = 'dragged by hand';
    dragLayers = done ? null : layers;
    dragBoundary = done ? null : boundary;
    controls.show(state, info);
    drawStageLoads();
    showOffset();
    requestPlan(true);
  },
});

byId('offset-copy', HTMLButtonElement).addEventListener('click', (event) =>
  copyWithFeedback(/** @type {HTMLButtonElement} */ (event.currentTarget), byId('offset-value', HTMLElement).textContent ?? ''));

// ---- comparison and search -----------------------------------------------------------------------------------------
byId('pin-plan', HTMLButtonElement).addEventListener('click', () => {
  if (!current) return;
  const r = current.result;
  state.compare.pinned = { label: `pinned: ${describePlan()} (pp ${r.pp_degree}, ${num(r.step_time_ms)} ms)`, request: exactPlanSections(r, current.request) };
  requestPlan(true);
});
byId('unpin-plan', HTMLButtonElement).addEventListener('click', () => {
  state.compare.pinned = null;
  banners.remove('pinned');
  requestPlan(true);
});

/**
 * Opens a search candidate's plan in the views (as an explicit plan with its exact recompute layers).
 * @param {number} index
 */
function openCandidate(index) {
  const candidate = searchPanel.result?.candidates[index];
  if (!candidate) return;
  openCandidateSettings(state.settings, candidate, recomputeCounts);
  state.ui.openPlan = `search #${index + 1}: ${candidateLabel(candidate)}`;
  controls.show(state, info);
  searchPanel.select(index);
  requestPlan(true);
  document.querySelector('[data-view="summary"]')?.scrollIntoView({ behavior: 'smooth', block: 'start' });
}

// ---- zoom buttons, resizing ----------------------------------------------------------------------------------------
byId('zoom-in', HTMLButtonElement).addEventListener('click', () => timeViews.zoom(0.5));
byId('zoom-out', HTMLButtonElement).addEventListener('click', () => timeViews.zoom(2));
byId('zoom-reset', HTMLButtonElement).addEventListener('click', () => timeViews.setWindow(null));

let lastSize = '';
new ResizeObserver(() => {
  const size = `${results.clientWidth}x${embed.embed ? results.clientHeight : 0}`;
  if (size === lastSize) return;
  lastSize = size;
  requestAnimationFrame(redrawAll);
}).observe(results);

// ---- worker death --------------------------------------------------------------------------------------------------
/** @param {string} reason */
function engineDied(reason) {
  engineLoaded = false;
  updateBodyState();
  banners.show('engine-died', 'error', `The engine stopped (${reason}). It has been restarted; your inputs are kept and the plan is computed again.`);
  byId('engine-status', HTMLElement).textContent = 'Restarting the engine…';
  engine.ready.then(() => {
    engineLoaded = true;
    byId('engine-status', HTMLElement).textContent = `Engine ${engine.info.version} restarted`;
    requestPlan(true);
  }, (error) => {
    engineFailed = true;
    banners.show('engine-died', 'error', `The engine stopped and could not be restarted: ${error instanceof Error ? error.message : error}. Reload the page.`);
    updateBodyState();
  });
}

// ---- start -----------------------------------------------------------------------------------------------------
/** Test and automation hooks: the last response, the state, and a way to crash the worker. */
/** @type {any} */ (window).__ppb = {
  get last() { return current?.response ?? null; },
  get lastRequest() { return current?.request ?? null; },
  get comparison() { return comparison; },
  get search() { return searchPanel.result; },
  get state() { return state; },
  get features() { return engine.info.features; },
  crashWorker: (/** @type {'abort' | 'throw'} */ how = 'throw') => engine.crashForTest(how),
};

/** Embed mode: only the chosen views, each filling its share of the frame. */
function setUpEmbed() {
  document.body.classList.add('embed');
  for (const view of document.querySelectorAll('.view[data-view]')) {
    const name = view.getAttribute('data-view') ?? '';
    view.classList.toggle('embed-shown', embed.views.includes(name) || (name === 'search' && embed.views.includes('pareto')));
  }
  // This page's own file (index.html or ppb.html); './' where the address names none.
  const page = location.pathname.slice(location.pathname.lastIndexOf('/') + 1) || './';
  byId('embed-open', HTMLAnchorElement).href = `${page}${location.hash}`;
}

/** The default example as the first state. */
async function loadDefault() {
  try {
    const model = await (boot?.example ?? readExample(defaultExample).then((text) => JSON.parse(text)));
    const example = EXAMPLES.find((e) => e.file === defaultExample);
    state = { ...initialState(model, model.name ?? example?.label ?? defaultExample), ui: { ...state.ui } };
    info = modelInfo(model);
    showModel();
    controls.show(state, info);
    byId('example-select', HTMLSelectElement).value = defaultExample;
  } catch (error) {
    banners.show('example', 'error', `The default example could not be loaded (${error instanceof Error ? error.message : error}). Choose a file to start.`);
  }
  await engine.ready.catch(() => {});
  if (state.model.layers?.length) requestPlan(true);
}

async function start() {
  if (embed.embed) setUpEmbed();
  applyTheme();
  engine.ready.then((engineInfo) => {
    engineLoaded = true;
    byId('engine-status', HTMLElement).textContent = `Engine ${engineInfo.version} · WASM`;
    updateBodyState();
  }, (error) => {
    engineFailed = true;
    byId('engine-status', HTMLElement).textContent = 'Engine not loaded';
    banners.show('engine', 'error', `${error instanceof Error ? error.message : error}. Reload the page; if it persists, the site is missing ppb_engine.wasm.`);
    updateBodyState();
  });
  const linked = isStateLink(location.hash) && await loadFromLink(location.hash, 'The page shows the default example instead.');
  if (!linked) await loadDefault();
  updateBodyState();
}

start();
