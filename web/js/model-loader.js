// Puts models in place: the default example at start, an example, a file (picked, dropped or pasted: a model, a
// SAPP layer file, a transformer description or a request, each read through the engine's import command; a
// Hugging Face config.json, which the engine turns into a description that fills the transformer form) and the
// transformer form. A model that cannot be read changes nothing: its problem goes beside its source and the last
// result stays, current (it is still the plan of the model in place). A saved page state that arrives as a file goes to onState.

/** @import {EngineError, EngineResponse, PageState} from './types.js' */
/** @import {Incoming, SourceKind, Example} from './model-input.js' */
/** @import {Banners} from './banners.js' */
/** @import {Controls} from './controls.js' */
/** @import {ErrorBoard} from './errors.js' */
/** @import {PageStatus} from './page-status.js' */
/** @import {PlanRunner} from './plan-runner.js' */
/** @import {SearchPanel} from './search-panel.js' */
/** @import {Store} from './store.js' */
/** @import {EngineClient, Job} from './worker-client.js' */
/** @import {WorkStatus} from './work-status.js' */
import { byId, el } from './dom.js';
import { CancelledError } from './worker-client.js';
import { initialState } from './state.js';
import { putModel, applyExampleDefaults, applyFormSettings } from './settings-edits.js';
import { attachModelInput, EXAMPLES, readExample } from './model-input.js';
import { readDocument } from './model-source.js';
import { buildTransformerForm, descriptionValues, setTransformerValues, transformerRequest, transformerValues } from './transformer-form.js';
import { numberField } from './requests.js';
import { count, mib } from './format.js';
import { showPageWork } from './work-status.js';
import { t } from './i18n.js';

/**
 * @typedef {{engine: EngineClient, store: Store, status: PageStatus, errors: ErrorBoard, banners: Banners,
 *            work: WorkStatus, controls: Controls, searchPanel: SearchPanel, runner: PlanRunner,
 *            form: HTMLElement, transformerBox: HTMLElement, onState: (state: PageState) => void,
 *            onSourceChange: () => void}} LoaderParts
 *   onSourceChange: the person chose another model source (the state's ui.modelSource changed)
 */

export class ModelLoader {
  /** @param {LoaderParts} parts */
  constructor(parts) {
    this.parts = parts;
    /** The import in flight (a newer model cancels it). @type {Job | null} */
    this.job = null;
    /** Counts the models asked for, so that only the newest is put in place. */
    this.reads = 0;
    /** The line saying a file is being read, from its drop until it is read (or refused). @type {{done: () => void} | null} */
    this.readingLine = null;
    /**
     * A model put in place before the engine has read it (a ppb.model.v1 document), with the state before it: the
     * first plan checks it, and if the engine refuses the model, the state before comes back.
     * @type {{model: any, previous: PageState, example: string, kind: SourceKind, name: string} | null}
     */
    this.probation = null;
  }

  /**
   * The first plan of a model on probation has come back: the model stays (its notes are shown), or, when the
   * engine refused it, the state before it comes back and the problems go beside the model's source.
   * @param {any} model the model of the request that was answered
   * @param {EngineResponse} response
   * @returns {boolean} whether the model was refused (the response is then the loader's, not a plan's)
   */
  modelChecked(model, response) {
    const probation = this.probation;
    if (!probation || probation.model !== model) return false;
    this.probation = null;
    const refused = response.ok ? [] : response.errors.filter((e) => e.path === '/model' || e.path.startsWith('/model/'));
    if (refused.length === 0) {
      this.showImportNotes((response.warnings ?? []).filter((w) => w.path === '/model' || w.path.startsWith('/model/')));
      return false;
    }
    const { store, controls, searchPanel } = this.parts;
    store.replace(probation.previous);
    // The example menu names the example in place again, if the model taken back was one.
    byId('example-select', HTMLSelectElement).value = probation.example;
    this.showModel();
    this.showSource();
    controls.show(store.state, store.info);
    searchPanel.clear();
    this.problem(probation.kind, refused.map((e) => ({ ...e, message: `${probation.name}: ${e.message}` })));
    return true;
  }

  /**
   * The engine's import of a request, shown as long work when it takes a while, and cancelling the import before
   * it (a newer model makes it pointless).
   * @param {object} request
   * @param {string} label
   */
  importModel(request, label) {
    this.job?.cancel();
    const job = this.parts.engine.run('import', request);
    this.job = job;
    this.parts.work.track(job, { label });
    const forget = () => { if (this.job === job) this.job = null; };
    job.result.then(forget, forget);
    return job.result;
  }

  /** Wires the model sources (examples, file, drop, paste) and the transformer form. */
  attach() {
    const { status, transformerBox } = this.parts;
    attachModelInput({
      select: byId('example-select', HTMLSelectElement),
      file: byId('model-file', HTMLInputElement),
      paste: byId('model-paste', HTMLTextAreaElement),
      pasteButton: byId('paste-button', HTMLButtonElement),
      overlay: byId('drop-overlay', HTMLElement),
    }, {
      onReading: (file) => {
        status.setBusy('input', true);
        this.readingLine?.done();
        this.readingLine = file ? showPageWork(this.parts.work.box, t('Reading {name} ({size})', { name: file.name, size: mib(file.size / 2 ** 20) })) : null;
      },
      onBytes: (bytes) => this.parts.engine.offerDocument(bytes),
      onIncoming: (incoming) => { this.read(incoming); },
      onProblem: (kind, message) => {
        this.readingDone();
        this.problem(kind, [{ code: 'READ_FAILED', path: '', message }]);
        status.setBusy('input', false);
      },
    });
    buildTransformerForm(transformerBox, { onBuild: (values) => this.buildTransformer(values) });
    for (const radio of document.querySelectorAll('input[name="model_source"]')) {
      radio.addEventListener('change', () => {
        const value = /** @type {HTMLInputElement} */ (radio).value;
        this.parts.store.state.ui.modelSource = value === 'transformer' || value === 'paste' ? value : 'file';
        this.showSource();
        this.parts.onSourceChange();
      });
    }
  }

  /** The file is read (put in place, or refused): its line goes. */
  readingDone() {
    this.readingLine?.done();
    this.readingLine = null;
  }

  /**
   * The Model panel shows the source the state names, whole: the file inputs (examples, file), the transformer form
   * (a description, with presets) or the box for a pasted config; the choice at its top says which.
   */
  showSource() {
    const source = this.parts.store.state.ui.modelSource;
    for (const radio of document.querySelectorAll('input[name="model_source"]')) {
      const input = /** @type {HTMLInputElement} */ (radio);
      input.checked = input.value === source;
    }
    byId('model-source-file', HTMLElement).hidden = source !== 'file';
    byId('model-source-transformer', HTMLElement).hidden = source !== 'transformer';
    byId('model-source-paste', HTMLElement).hidden = source !== 'paste';
  }

  /**
   * The transformer form's values through the engine's generator; the model it makes replaces the current one.
   * @param {Record<string, string | boolean>} values
   * @param {string} [from] where the values came from, for the model's label
   * @returns {Promise<boolean>} whether the model was built
   */
  async buildTransformer(values, from = 'transformer form') {
    const { status, errors, engine, transformerBox } = this.parts;
    errors.clear('transformer');
    status.setBusy('input', true);
    try {
      await engine.ready.catch(() => {});
      const response = await this.importModel(transformerRequest(values), t('Generating the model'));
      if (!response.ok) {
        errors.set('transformer', response.errors, { within: transformerBox });
        status.setStale(true);
        return false;
      }
      this.setModel(response.result.model, `${response.result.model.name || 'transformer'} (${from})`, { form: values });
      return true;
    } catch (error) {
      if (!(error instanceof CancelledError)) {
        errors.set('transformer', [{ code: 'ENGINE', path: '', message: String(error instanceof Error ? error.message : error) }], { within: transformerBox });
      }
      return false;
    } finally {
      status.setBusy('input', false);
    }
  }

  /**
   * A Hugging Face config.json: the engine imports it as a transformer description, which fills the transformer
   * form (what the form has no field for is kept beside it, js/transformer-form.js), and the form then builds the
   * model with its own parallelism, training and device. The form's sequence length goes with the config: a config
   * states the longest context, not the length trained at.
   * @param {any} config the document: a config.json, or {"hf_config": ...}
   * @param {Incoming} incoming
   */
  async importConfig(config, incoming) {
    const { transformerBox } = this.parts;
    /** @type {Record<string, any>} */
    const request = 'hf_config' in config ? { ...config } : { hf_config: config };
    const seqLength = numberField(String(transformerValues(transformerBox)['/transformer/seq_length'] ?? ''));
    if (request.seq_length === undefined && Number.isInteger(seqLength) && Number(seqLength) > 0) request.seq_length = seqLength;
    // A file named for its model names the description; most are just "config.json" (the engine then uses model_type).
    const base = incoming.name.replace(/\.json$/i, '');
    if (request.name === undefined && incoming.kind === 'file' && base && base.toLowerCase() !== 'config') request.name = base;
    let response;
    try {
      response = await this.importModel(request, t('Reading {name}', { name: incoming.name }));
    } catch (error) {
      if (!(error instanceof CancelledError)) {
        this.problem(incoming.kind, [{ code: 'ENGINE', path: '', message: `${incoming.name} could not be read: ${error instanceof Error ? error.message : error}` }]);
      }
      return;
    }
    if (!response.ok) {
      this.problem(incoming.kind, response.errors.map((e) => ({ ...e, message: `${incoming.name}: ${e.message}` })));
      return;
    }
    setTransformerValues(transformerBox, descriptionValues(response.result.transformer));
    this.parts.store.state.ui.modelSource = 'transformer';
    this.showSource();
    if (await this.buildTransformer(transformerValues(transformerBox), `from ${incoming.name}`)) this.showImportNotes(response.warnings ?? []);
  }

  /**
   * The default example as the first state; the plan is asked for once the engine runs.
   * @param {Promise<any> | null} early the example's fetch started by boot.js, if any
   * @param {string} file the example's file name
   */
  async loadDefault(early, file) {
    const { store, controls, banners, runner } = this.parts;
    try {
      const model = await (early ?? readExample(file).then((text) => JSON.parse(text)));
      const example = EXAMPLES.find((e) => e.file === file);
      const state = { ...initialState(model, model.name ?? example?.label ?? file), ui: { ...store.state.ui } };
      if (example) applyExampleDefaults(state, example);
      store.replace(state);
      // Asked for at once, first (before the controls' own questions, such as the cluster's): the worker runs it as
      // soon as the engine has loaded, without waiting for the page to hear so.
      if (store.state.model.layers?.length) runner.request(true);
      this.showModel();
      controls.show(store.state, store.info);
      byId('example-select', HTMLSelectElement).value = file;
    } catch (error) {
      banners.show('example', 'error', t('The default example could not be loaded ({reason}). Choose a file to start.', { reason: error instanceof Error ? error.message : String(error) }));
    }
  }

  /**
   * Puts a new model in place (see putModel) and asks for its plan.
   * @param {any} model
   * @param {string} label
   * @param {{request?: any, example?: Example | null, form?: Record<string, string | boolean>, pasted?: boolean}} [from] where the model
   *   came from: a request file (its settings fill the controls), a bundled example (its stated hardware and cluster
   *   set the settings), or the transformer form's values (its cluster, pp, batch and device set them; the Model
   *   panel then shows the form); pasted: the model was pasted (the panel stays on the paste box)
   */
  setModel(model, label, { request = null, example = null, form, pasted = false } = {}) {
    const { store, errors, controls, searchPanel, runner } = this.parts;
    errors.clear('model');
    errors.clear('transformer');
    putModel(store.state, model, label, request);
    if (example) applyExampleDefaults(store.state, example);
    if (form) applyFormSettings(store.state, form);
    // The form's values the model was built from (a link restores them), none for a model from elsewhere.
    store.state.transformer = form ?? null;
    store.state.ui.modelSource = form ? 'transformer' : pasted ? 'paste' : 'file';
    // The picker names the example shown, or nothing once another model replaced it.
    byId('example-select', HTMLSelectElement).value = example?.file ?? '';
    store.replace(store.state);
    this.showModel();
    this.showSource();
    controls.show(store.state, store.info);
    searchPanel.clear();
    runner.request(true);
  }

  /** The model's name, layer counts and, for a generated model, its parameters above the controls. */
  showModel() {
    const { state, info } = this.parts.store;
    byId('model-name', HTMLElement).textContent = state.modelLabel || info.name || 'unnamed model';
    const pinned = info.pinnedFirst + info.pinnedLast;
    const layers = pinned > 0
      ? t(' · {n} layers ({body} body, {pinned} pinned)', { n: count(info.layerCount), body: count(info.body), pinned })
      : t(' · {n} layers ({body} body)', { n: count(info.layerCount), body: count(info.body) });
    // The generator's counts (model.total_params, and the MTP modules apart, as DeepSeek-V3's 671B leaves them out).
    const total = state.model?.total_params;
    const mtp = state.model?.mtp_params;
    const params = typeof total !== 'number' ? ''
      : typeof mtp === 'number' && mtp > 0 ? t(' · {n} parameters + {mtp} in MTP modules', { n: count(total), mtp: count(mtp) })
        : t(' · {n} parameters', { n: count(total) });
    const meta = byId('model-meta', HTMLElement);
    meta.textContent = layers + params;
    meta.dataset.totalParams = typeof total === 'number' ? String(total) : '';
    meta.dataset.mtpParams = typeof mtp === 'number' ? String(mtp) : '';
  }

  /**
   * A document arrived (example, file, drop, paste): reads it and puts it in place, or says what is wrong.
   * @param {Incoming} incoming
   */
  async read(incoming) {
    const { status, errors, engine, store } = this.parts;
    const read = ++this.reads;
    // The file's bytes went to the engine as they arrived: adopted below if they hold the model, else forgotten.
    let offer = incoming.offer ?? null;
    status.setBusy('input', true);
    // The views are out of date from now on: another model is coming.
    status.setComputing(true);
    try {
      errors.clear('model');
      await engine.ready.catch(() => {});
      const reading = await readDocument(incoming, (request) => this.importModel(request, t('Reading {name}', { name: incoming.name })),
        engine.info.limits);
      if (read !== this.reads || reading.kind === 'cancelled') return; // a newer model was asked for meanwhile, or Cancel
      if (reading.kind === 'problem') this.problem(incoming.kind, reading.errors);
      else if (reading.kind === 'state') this.parts.onState(reading.state);
      else if (reading.kind === 'hf_config') await this.importConfig(reading.config, incoming);
      else {
        // The model crosses to the worker once: the file as it arrived where the file holds the model (a model
        // document or a request, read by the engine with the first plan; an imported model is the engine's answer,
        // not the file), else the file's own text where the file is the model.
        if (!reading.checked && (offer !== null || reading.text !== null)) {
          engine.keepModel(reading.model, reading.text, offer);
          offer = null;
        }
        const { model, ...rest } = store.state;
        this.probation = reading.checked ? null
          : { model: reading.model, previous: { ...structuredClone(rest), model }, example: byId('example-select', HTMLSelectElement).value,
            kind: incoming.kind, name: incoming.name };
        this.setModel(reading.model, reading.label, { request: reading.request, pasted: incoming.kind === 'paste',
          example: incoming.kind === 'example' ? EXAMPLES.find((e) => e.file === incoming.name) ?? null : null });
        // An unchecked model's notes come with its first plan.
        this.showImportNotes(reading.warnings);
      }
    } finally {
      if (offer !== null) engine.dropOffer(offer);
      if (read === this.reads) {
        this.readingDone();
        status.setBusy('input', false);
        if (!status.busy.has('plan')) status.setComputing(false);
      }
    }
  }

  /**
   * Shows a problem with a model source beside it. The model in place stays, and so does its result, which is still
   * current: nothing is marked stale, and no banner speaks of fields.
   * @param {SourceKind} kind
   * @param {EngineError[]} problems
   */
  problem(kind, problems) {
    const { errors, form } = this.parts;
    /** @type {HTMLElement} */
    let target = byId('drop-target', HTMLElement);
    if (kind === 'paste') target = byId('model-paste', HTMLTextAreaElement).closest('.field') ?? form;
    else if (kind === 'example') target = byId('example-select', HTMLSelectElement).closest('.field') ?? form;
    errors.set('model', problems, { target });
    this.parts.status.update();
  }

  /** @param {EngineError[]} warnings */
  showImportNotes(warnings) {
    const panel = byId('model-panel', HTMLElement);
    panel.querySelector('.import-warnings')?.remove();
    if (warnings.length === 0) return;
    panel.append(el('details', { class: 'import-warnings' }, [
      el('summary', { text: `${warnings.length} import note${warnings.length === 1 ? '' : 's'}` }),
      el('ul', {}, warnings.slice(0, 50).map((w) => el('li', { text: `${w.path ? `${w.path}: ` : ''}${w.message}` }))),
    ]));
  }
}
