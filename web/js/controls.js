// The input panel: pipeline, device, partition and search controls bound to the state. Inputs write their text
// into the state as typed (the engine validates); the page then asks for a new plan or nothing (search settings
// wait for "Run search"). Lists that depend on the model (recompute options) are rebuilt when it changes.

/** @import {PageState, Settings, SearchSettings, ScheduleFacts, EngineResponse, ClusterResult} from './types.js' */
/** @import {ModelInfo} from './model.js' */
import { el } from './dom.js';
import { t } from './i18n.js';
import { count } from './format.js';
import { INTERLEAVING_SCHEDULES, OFFERED_SCHEDULES, scheduleInfo, vppForSchedule } from './schedules.js';
import { clusterRequest, hasCluster } from './requests.js';
import { fillDeviceSelect, setDeviceValue } from './devices.js';
/** @import {DevicePresetFacts} from './types.js' */

/** Text inputs of the plan settings, by their name attribute. */
const PLAN_FIELDS = /** @type {const} */ (['pp_degree', 'vpp_degree', 'micro_batch_num', 'global_batch_size', 'micro_batch_size', 'dp_degree',
  'memory_limit_mib', 'reserved_mib', 'p2p_bandwidth_gbs', 'p2p_latency_ms', 'layer_offset']);
/** Text inputs of the search settings: name attribute -> key. */
const SEARCH_FIELDS = /** @type {const} */ ({ search_world_size: 'world_size', search_global_batch_size: 'global_batch_size',
  search_micro_batch_size: 'micro_batch_size', search_tp_degree: 'tp_degree', search_cp_degree: 'cp_degree',
  search_ep_degree: 'ep_degree', search_expert_tp_degree: 'expert_tp_degree', search_sharding: 'sharding', search_pp_degree: 'pp_degree', search_vpp_degree: 'vpp_degree', search_micro_batch_num: 'micro_batch_num', search_top_k: 'top_k' });

const PARTITION_HINTS = {
  even: 'Even split: ⌊B / V⌋ body layers per virtual stage, the remainder on the first ones; no recompute.',
  ppb: 'PPB chooses the partition and the recompute of every layer: the lowest simulated step time that fits the memory limit.',
  explicit: 'Your layer_offset: body layers minus the even share, per virtual stage (they sum to B mod V). Drag the boundaries in Stage loads to change it.',
};

/**
 * @typedef {{onPlanChange: (immediate: boolean) => void, onSearchChange: () => void,
 *            onToOffsets: (s: Settings) => boolean, schedules: () => ScheduleFacts[],
 *            cluster: (request: object) => Promise<EngineResponse>}} ControlHooks
 *   onToOffsets: the partition turns to layer_offset; returns whether it set the settings from the plan shown;
 *   schedules: the engine's schedules (empty before it has loaded); cluster: the engine's `cluster` answer to a
 *   request (rejected only when the engine cannot load)
 */

export class Controls {
  /**
   * @param {HTMLFormElement} form
   * @param {() => PageState} getState
   * @param {ControlHooks} hooks
   */
  constructor(form, getState, hooks) {
    this.form = form;
    this.getState = getState;
    this.hooks = hooks;
    /** The model info of the last show(). @type {ModelInfo | null} */
    this.info = null;
    /** The cluster request asked last (its text), so that only its answer is shown and nothing is asked twice. */
    this.clusterAsked = '';
    this.buildSchedules();
    this.buildDevices();
    form.addEventListener('submit', (event) => event.preventDefault());
    form.addEventListener('input', (event) => this.onInput(event));
    form.addEventListener('change', (event) => this.onInput(event));
  }

  /** @param {Event} event */
  onInput(event) {
    const target = event.target;
    if (!(target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement)) return;
    if (target.closest('#transformer-form, #model-source-paste') || target.id === 'model-file' || target.id === 'example-select') return;
    const state = this.getState();
    const s = state.settings;
    const name = target.name;
    const isText = target instanceof HTMLInputElement && target.type === 'text';
    // Text fields update on every keystroke; radios, selects and checkboxes on change.
    if (isText && event.type === 'change') return;
    if ((PLAN_FIELDS).includes(/** @type {any} */ (name))) {
      s[/** @type {typeof PLAN_FIELDS[number]} */ (name)] = target.value;
      if (name === 'layer_offset') {
        this.leaveExactRecompute(s);
        s.stage_layers = null;
        state.ui.openPlan = '';
      }
      if (name === 'pp_degree') this.askCluster(state.search, s.pp_degree);
      this.hooks.onPlanChange(false);
    } else if (name === 'device_preset') {
      s.device_preset = target.value;
      this.showDevice(s);
      this.hooks.onPlanChange(true);
    } else if (name === 'schedule') {
      s.schedule = target.value;
      // A schedule that runs another chunk count gets it, rather than an error (its layer_offset, one per virtual
      // stage, no longer applies).
      const vpp = vppForSchedule(this.hooks.schedules(), s.schedule, s.vpp_degree);
      if (vpp !== null) {
        s.vpp_degree = vpp;
        this.setValue('vpp_degree', vpp);
        if (s.partition === 'explicit') this.clearOffsets(s);
      }
      this.showScheduleHint(s.schedule);
      this.hooks.onPlanChange(true);
    } else if (name === 'batch_mode') {
      s.batch_mode = target.value === 'global' ? 'global' : 'micro_batch_num';
      this.showModes(s);
      this.hooks.onPlanChange(true);
    } else if (name === 'partition') {
      const next = target.value === 'even' ? 'even' : target.value === 'explicit' ? 'explicit' : 'ppb';
      // To layer_offset from another mode: start from the plan shown (its offsets and recompute), not the even split.
      if (next === 'explicit' && s.partition !== 'explicit' && this.hooks.onToOffsets(s) && this.info) this.show(state, this.info);
      s.partition = next;
      this.showModes(s);
      this.hooks.onPlanChange(true);
    } else if (name === 'recompute_option') {
      s.recompute_options = [...this.form.querySelectorAll('input[name=recompute_option]')]
        .filter((box) => /** @type {HTMLInputElement} */ (box).checked).map((box) => /** @type {HTMLInputElement} */ (box).value);
      this.hooks.onPlanChange(true);
    } else if (name === 'recompute_count') {
      this.leaveExactRecompute(s);
      s.recompute_counts[target.dataset.option ?? ''] = target.value;
      this.hooks.onPlanChange(false);
    } else if (name in SEARCH_FIELDS) {
      state.search[SEARCH_FIELDS[/** @type {keyof typeof SEARCH_FIELDS} */ (name)]] = target.value;
      this.showSearch(state);
      this.hooks.onSearchChange();
    } else if (name === 'search_schedule') {
      state.search.schedule = [...this.form.querySelectorAll('input[name=search_schedule]')]
        .filter((box) => /** @type {HTMLInputElement} */ (box).checked).map((box) => /** @type {HTMLInputElement} */ (box).value);
      this.showSearch(state);
      this.hooks.onSearchChange();
    }
  }

  /**
   * The schedule picker and the search's schedule boxes, from the schedules the page offers.
   */
  buildSchedules() {
    const select = this.form.querySelector('#schedule');
    select?.replaceChildren(...OFFERED_SCHEDULES.map((info) => el('option', { text: info.label, attrs: { value: info.name, title: t(info.description) } })));
    this.form.querySelector('#search-schedules')?.replaceChildren(...OFFERED_SCHEDULES.map((info) => el('label', { attrs: { title: `${t(info.description)} ${t(info.conditions)}` } }, [
      el('input', { attrs: { type: 'checkbox', name: 'search_schedule', value: info.name } }), ` ${info.name}`,
    ])));
  }

  /**
   * The device presets the engine knows, by id and the part each names (the engine's list, from its ready message;
   * none before it).
   * @param {DevicePresetFacts[]} [devices]
   */
  buildDevices(devices = []) {
    const select = this.form.querySelector('#device-preset');
    if (select instanceof HTMLSelectElement) fillDeviceSelect(select, devices, t('none: the figures below'));
  }

  /**
   * With a device preset, the figures left empty are the preset's (the engine fills them), and the fields say so.
   * @param {Settings} s
   */
  showDevice(s) {
    const hint = this.form.querySelector('#device-preset-hint');
    if (hint) {
      hint.textContent = s.device_preset
        ? t('The preset fills every figure left empty: memory, reserved memory, peak TFLOP/s (for MFU) and the link to the next stage.')
        : '';
    }
    for (const name of /** @type {const} */ (['memory_limit_mib', 'reserved_mib', 'p2p_bandwidth_gbs'])) {
      const field = this.form.elements.namedItem(name);
      if (field instanceof HTMLInputElement) field.placeholder = s.device_preset ? t('the preset\'s') : '';
    }
  }

  /**
   * The chosen schedule's one-line description and conditions below the picker.
   * @param {string} schedule
   */
  showScheduleHint(schedule) {
    const hint = this.form.querySelector('#schedule-hint');
    const info = scheduleInfo(schedule);
    if (hint) hint.textContent = info ? `${t(info.description)} ${t(info.conditions)}` : '';
  }

  /**
   * An explicit partition whose virtual stages changed in number: back to the even split, without counts.
   * @param {Settings} s
   */
  clearOffsets(s) {
    s.layer_offset = '';
    s.stage_layers = null;
    s.recompute_counts = {};
    s.recompute_layers = null;
    this.setValue('layer_offset', '');
    if (this.info) this.showRecompute(s, this.info);
  }

  /**
   * Recompute given as exact layer lists (a plan opened from PPB or the search) turns into per-stage counts as
   * soon as the person edits the partition by hand.
   * @param {Settings} s
   */
  leaveExactRecompute(s) {
    if (!s.recompute_layers) return;
    s.recompute_layers = null;
    this.form.querySelector('#recompute-layers-note')?.setAttribute('hidden', '');
  }

  /**
   * Writes the whole state into the controls (after loading a model, a link or a plan).
   * @param {PageState} state
   * @param {ModelInfo} info
   */
  show(state, info) {
    this.info = info;
    const s = state.settings;
    for (const name of PLAN_FIELDS) this.setValue(name, s[name]);
    this.setValue('schedule', s.schedule);
    this.setValue('device_preset', s.device_preset);
    this.showDevice(s);
    this.showScheduleHint(s.schedule);
    for (const [name, key] of Object.entries(SEARCH_FIELDS)) this.setValue(name, state.search[/** @type {keyof SearchSettings} */ (key)]);
    for (const box of this.form.querySelectorAll('input[name=search_schedule]')) {
      const input = /** @type {HTMLInputElement} */ (box);
      input.checked = state.search.schedule.includes(input.value);
    }
    this.showRecompute(s, info);
    this.showModes(s);
    this.showSearch(state);
  }

  /**
   * The search panel's derived parts: how candidates are ranked, the micro batch list only without a cluster, the
   * chunk list only with interleaving, and what the cluster gives the plan's pp (askCluster).
   * @param {PageState} state
   */
  showSearch(state) {
    const q = state.search;
    const cluster = hasCluster(q);
    const hint = this.form.querySelector('#search-hint');
    if (hint) {
      hint.textContent = cluster
        ? t('What to run on this cluster: every valid pp, schedule and chunk count, each balanced by PPB, all on the same global batch, ranked by throughput.')
        : t('No cluster (devices empty): every combination below, each balanced by PPB, ranked by time per sample (micro batch counts differ).');
    }
    const m = this.form.querySelector('#search-m');
    if (m instanceof HTMLInputElement) {
      m.disabled = cluster;
      m.title = cluster ? t('With a cluster, micro batches follow from the global batch and dp.') : '';
    }
    const vpp = this.form.querySelector('#search-vpp');
    if (vpp instanceof HTMLInputElement) vpp.disabled = !q.schedule.some((name) => INTERLEAVING_SCHEDULES.includes(name));
    this.askCluster(q, state.settings.pp_degree);
  }

  /**
   * dp and the micro batches the cluster gives the plan's pp_degree, in words: the engine's `cluster` answer (the
   * search's own rule), shown when it comes; only the newest question's answer is shown.
   * @param {SearchSettings} q
   * @param {string} ppText the plan's pp_degree as typed
   */
  askCluster(q, ppText) {
    const dp = this.form.querySelector('#search-dp');
    const line = this.form.querySelector('#search-cluster-hint');
    if (!(dp instanceof HTMLElement) || !(line instanceof HTMLElement)) return;
    if (!hasCluster(q)) {
      this.clusterAsked = '';
      dp.textContent = 'no cluster';
      line.textContent = t('Give the devices to search what runs on a cluster of that size.');
      line.removeAttribute('lang');
      return;
    }
    const request = clusterRequest(q, ppText);
    const text = JSON.stringify(request);
    if (text === this.clusterAsked) return;
    this.clusterAsked = text;
    this.hooks.cluster(request).then((response) => {
      if (this.clusterAsked !== text) return;
      const said = describeCluster(response);
      dp.textContent = said.dpText;
      line.textContent = said.sentence;
      // The engine's own sentences are English; the page's are translated.
      if (said.engineWords) line.setAttribute('lang', 'en');
      else line.removeAttribute('lang');
    }, () => {
      // The engine did not load: the next change asks again.
      if (this.clusterAsked === text) this.clusterAsked = '';
    });
  }

  /**
   * @param {string} name
   * @param {string | string[]} value
   */
  setValue(name, value) {
    const field = this.form.elements.namedItem(name);
    if (field instanceof HTMLSelectElement && name === 'device_preset') setDeviceValue(field, String(value));
    else if (field instanceof HTMLInputElement || field instanceof HTMLSelectElement) field.value = String(value);
  }

  /**
   * Radio groups and which fields show, by mode.
   * @param {Settings} s
   */
  showModes(s) {
    for (const radio of this.form.querySelectorAll('input[type=radio]')) {
      const input = /** @type {HTMLInputElement} */ (radio);
      if (input.name === 'batch_mode') input.checked = input.value === s.batch_mode;
      if (input.name === 'partition') input.checked = input.value === s.partition;
    }
    this.toggle('#micro-batch-field', s.batch_mode === 'micro_batch_num');
    this.toggle('#batch-fields', s.batch_mode === 'global');
    this.toggle('#explicit-fields', s.partition === 'explicit');
    const hint = this.form.querySelector('#partition-hint');
    if (hint) hint.textContent = t(PARTITION_HINTS[s.partition]);
  }

  /**
   * @param {string} selector
   * @param {boolean} visible
   */
  toggle(selector, visible) {
    const node = this.form.querySelector(selector);
    if (node instanceof HTMLElement) node.hidden = !visible;
  }

  /**
   * The recompute option checkboxes (for PPB and the search) and the per-option count fields (explicit plans).
   * Option names come from the file: they are set as text.
   * @param {Settings} s
   * @param {ModelInfo} info
   */
  showRecompute(s, info) {
    const list = this.form.querySelector('#recompute-option-list');
    const counts = this.form.querySelector('#recompute-count-list');
    const note = this.form.querySelector('#recompute-layers-note');
    if (!list || !counts) return;
    if (info.options.length === 0) {
      list.replaceChildren(el('p', { class: 'hint', text: t('This model offers no recompute options.') }));
      counts.replaceChildren(el('p', { class: 'hint', text: t('No recompute options in this model.') }));
    } else {
      list.replaceChildren(...info.options.map((option) => el('label', {}, [
        el('input', { attrs: { type: 'checkbox', name: 'recompute_option', value: option, checked: s.recompute_options === null || s.recompute_options.includes(option) } }),
        ` ${option}`,
      ])));
      counts.replaceChildren(...info.options.map((option, i) => {
        const id = `recompute-count-${i}`;
        const input = el('input', { attrs: { id, type: 'text', name: 'recompute_count', autocomplete: 'off', spellcheck: 'false', placeholder: t('none') }, data: { option } });
        input.value = s.recompute_counts[option] ?? '';
        return el('div', { class: 'field inline-field', attrs: { 'data-error-for': `/pipeline/recompute/${option.replace(/~/g, '~0').replace(/\//g, '~1')}` } }, [
          el('label', { text: option, attrs: { for: id } }), input,
        ]);
      }));
    }
    if (note instanceof HTMLElement) {
      note.hidden = !s.recompute_layers;
      note.textContent = s.recompute_layers ? 'The layers to recompute come from the opened plan; the counts below show them per stage. Editing the partition turns them into counts.' : '';
    }
  }
}

/**
 * The engine's answer on a cluster in words: dp at the plan's pp (the field beside the devices) and a sentence with
 * dp and the micro batches, or the rule the cluster breaks (the engine's sentence, or the page's for the two rules it
 * words itself). Only the engine's numbers are shown; nothing is derived here.
 * @param {EngineResponse} response
 * @returns {{dpText: string, sentence: string, engineWords: boolean}}
 */
export function describeCluster(response) {
  if (!response.ok) return { dpText: '–', sentence: response.errors[0]?.message ?? '', engineWords: true };
  const r = /** @type {ClusterResult} */ (response.result);
  const problem = r.problems[0];
  if (r.dp_degree === null) {
    if (problem?.code === 'CLUSTER_NOT_DIVISIBLE') {
      return { dpText: '–', engineWords: false, sentence: t('At pp {pp}: {world} devices do not divide into pipelines of pp {pp} × tp {tp} × cp {cp} = {replica}.',
        { pp: r.pp_degree, world: count(r.world_size), tp: r.tp_degree, cp: r.cp_degree, replica: count(r.pp_degree * r.tp_degree * r.cp_degree) }) };
    }
    return { dpText: '–', sentence: problem?.message ?? '', engineWords: true };
  }
  const dpText = t('{dp} at pp {pp}', { dp: count(r.dp_degree), pp: r.pp_degree });
  // Expert parallelism takes no devices of its own: it lies within a stage's dp × cp × tp ranks, which it must divide.
  const base = (r.ep_degree ?? 1) > 1
    ? t('dp = devices / (pp × tp × cp), with ep {ep} × expert tp dividing dp × cp × tp; at pp {pp}: dp {dp}', { ep: count(r.ep_degree), pp: r.pp_degree, dp: count(r.dp_degree) })
    : t('dp = devices / (pp × tp × cp); at pp {pp}: dp {dp}', { pp: r.pp_degree, dp: count(r.dp_degree) });
  if (r.micro_batch_num !== null) {
    return { dpText, engineWords: false,
      sentence: `${base}${t(', ')}${t('{m} micro batches of {mbs}', { m: count(r.micro_batch_num), mbs: count(r.micro_batch_size) })}${t('.')}` };
  }
  if (problem?.code === 'BATCH_NOT_DIVISIBLE' && r.global_batch_size !== null) {
    return { dpText, engineWords: false, sentence: `${base}${t(', ')}${t('the global batch {gbs} does not divide into dp {dp} × micro batch size {mbs}',
      { gbs: count(r.global_batch_size), dp: count(r.dp_degree), mbs: count(r.micro_batch_size) })}${t('.')}` };
  }
  if (problem) return { dpText, sentence: problem.message, engineWords: true };
  return { dpText, sentence: `${base}${t('.')}`, engineWords: false };
}
