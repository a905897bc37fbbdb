// Draws the plan shown into the views: the summary, the stage loads with their draggable boundaries, the per-stage
// table, the layer_offset line, the timeline and memory (js/views/timeline-view.js) and the comparison. Every
// chart is drawn again from the data; while a boundary is dragged the stage loads show the dragged partition
// until the engine's answer for it arrives.

/** @import {ShownPlan, Comparison} from './plan-runner.js' */
/** @import {Store} from './store.js' */
/** @import {Palette} from './theme.js' */
/** @import {TimeViews} from './views/timeline-view.js' */
/** @import {Infeasibility, ScheduleFacts} from './types.js' */
import { byId, el } from './dom.js';
import { scheduleFacts } from './schedules.js';
import { percent, count, scheduleName } from './format.js';
import { t } from './i18n.js';
import { engineSentence } from './engine-text.js';

import { renderSummary, renderCaveats } from './views/summary.js';
import { renderStageLoads } from './views/stage-loads.js';
import { renderStageTable } from './views/stage-table.js';
import { renderCompare, renderGainCards } from './views/compare.js';
import { renderInfeasibility } from './views/infeasibility.js';

/**
 * @typedef {{label: string, run: () => void}} SuggestedSearch
 * @typedef {{store: Store, timeViews: TimeViews, palette: () => Palette,
 *            size: (box: HTMLElement) => {width: number, height?: number},
 *            suggest: (inf: Infeasibility, shape: Shape) => SuggestedSearch | null,
 *            schedules: () => ScheduleFacts[]}} ViewParts
 *   suggest: the search an infeasibility explanation suggests, as a button's label and action; schedules: the
 *   engine's schedules
 * @typedef {{pp_degree: number, vpp_degree: number, micro_batch_num: number, schedule: string}} Shape
 */

export class PlanViews {
  /** @param {ViewParts} parts */
  constructor(parts) {
    this.parts = parts;
    /** @type {ShownPlan | null} */
    this.plan = null;
    /** @type {Comparison | null} */
    this.comparison = null;
    /** Layers per virtual stage while a boundary is being dragged. @type {number[] | null} */
    this.dragLayers = null;
    /** @type {number | null} */
    this.dragBoundary = null;
  }

  /**
   * Shows a new plan and its comparison.
   * @param {ShownPlan} plan
   * @param {Comparison | null} comparison
   */
  show(plan, comparison) {
    this.plan = plan;
    this.comparison = comparison;
    this.draw();
  }

  /**
   * The comparison of the plan shown, arrived after it.
   * @param {Comparison} comparison
   */
  showComparison(comparison) {
    this.comparison = comparison;
    this.drawCompare();
  }

  /** Draws every view of the plan again (a new plan, a new theme, a new size). */
  draw() {
    if (!this.plan) return;
    const { result } = this.plan;
    const training = this.plan.request.training ?? {};
    const samplesPerStep = typeof training.global_batch_size === 'number' ? training.global_batch_size : undefined;
    const weightApart = scheduleFacts(this.parts.schedules(), result.schedule ?? '')?.weight_apart === true;
    // The charts' boxes measured before anything is written: a size read after a write makes the browser lay the
    // page out there and then, once per chart (on the first plan, most of the drawing's time).
    const sizes = { stageLoads: this.parts.size(byId('stage-loads-box', HTMLElement)), compare: this.parts.size(byId('compare-box', HTMLElement)) };
    byId('summary', HTMLElement).replaceChildren(...[renderSummary(result, { planLabel: this.describePlan(), samplesPerStep, weightApart }),
      renderCaveats(result.caveats, 'plan-caveats')].filter((node) => node !== null));
    this.showInfeasibility();
    byId('linked-plan', HTMLElement).hidden = !this.plan.held;
    byId('embed-caption', HTMLElement).textContent = this.caption();
    this.drawStageLoads(sizes.stageLoads);
    byId('stage-table-box', HTMLElement).replaceChildren(renderStageTable(result));
    this.showOffset();
    this.parts.timeViews.setData(result);
    this.drawCompare(sizes.compare);
  }

  /** Why the plan (a balance's) cannot fit and what would, with a button for the search that would find it. */
  showInfeasibility() {
    const box = byId('infeasibility-box', HTMLElement);
    const result = this.plan?.result;
    const inf = this.plan?.command === 'balance' ? result?.infeasibility : null;
    if (!result || !inf) {
      box.replaceChildren();
      return;
    }
    const shape = { pp_degree: result.pp_degree ?? result.stages.length, vpp_degree: result.vpp_degree ?? 1,
      micro_batch_num: result.micro_batch_num ?? 1, schedule: result.schedule ?? '1f1b' };
    const search = this.parts.suggest(inf, shape);
    box.replaceChildren(renderInfeasibility(inf, { onSearch: search?.run ?? null, searchLabel: search?.label ?? '' }));
  }

  /**
   * A partition being dragged (layers per virtual stage, the boundary held), or null for none: the stage loads
   * and the offset line show it at once.
   * @param {number[] | null} layers
   * @param {number | null} boundary
   */
  drag(layers, boundary) {
    this.dragLayers = layers;
    this.dragBoundary = boundary;
    this.drawStageLoads();
    this.showOffset();
  }

  /**
   * One line naming the plan shown: the model, its pipeline shape and schedule (the caption of an embed, whose
   * readers do not see the controls).
   */
  caption() {
    if (!this.plan) return '';
    const r = this.plan.result;
    const { state, info } = this.parts.store;
    const name = info.name || state.modelLabel || 'model';
    return t('{name} · pp {pp} · vpp {vpp} · {m} micro batches · {schedule}', { name, pp: r.pp_degree ?? r.stages.length, vpp: r.vpp_degree ?? 1,
      m: count(r.micro_batch_num ?? 0), schedule: scheduleName(r.schedule ?? '') });
  }

  /** A sentence on how the shown plan was made. */
  describePlan() {
    if (!this.plan) return '';
    const method = this.plan.result.method;
    const held = this.plan.held;
    if (held) {
      // A PPB plan from a link: how its balance ended, as the link says.
      if (held.proven) return t('PPB plan, proven optimal');
      if (held.within !== null) return t('PPB plan, within {share} of the optimum', { share: percent(held.within) });
      return t('PPB plan');
    }
    if (this.plan.command === 'balance' && method) {
      if (this.plan.interim) return t('PPB: the best plan so far, still balancing');
      if (method.proven_optimal) return t('PPB plan, proven optimal');
      if (typeof method.within_tolerance === 'number') return t('PPB plan, within {share} of the optimum', { share: percent(method.within_tolerance) });
      return t('PPB plan');
    }
    return t(this.plan.label);
  }

  /** @param {{width: number, height?: number}} [size] the box's size, when measured already */
  drawStageLoads(size) {
    if (!this.plan) return;
    const box = byId('stage-loads-box', HTMLElement);
    const focused = document.activeElement?.closest?.('.boundary')?.getAttribute('data-boundary');
    const tabStop = Number(box.querySelector('.boundary[tabindex="0"]')?.getAttribute('data-boundary') ?? 0);
    box.replaceChildren(renderStageLoads(this.plan.result, { ...(size ?? this.parts.size(box)), palette: this.parts.palette(),
      info: this.parts.store.info, stageLayers: this.dragLayers, dragging: this.dragBoundary, activeBoundary: tabStop }));
    if (focused !== undefined && focused !== null) {
      const handle = box.querySelector(`.boundary[data-boundary="${focused}"]`);
      if (handle instanceof SVGElement) handle.focus();
    }
  }

  showOffset() {
    if (!this.plan) return;
    const { result, command } = this.plan;
    // The engine's offsets of the plan shown: while a boundary is dragged, those of its last answer (the page converts
    // no partition form itself).
    const offsets = result.layer_offset;
    byId('offset-value', HTMLElement).textContent = `[${offsets.join(', ')}]`;
    const vpp = result.vpp_degree ?? 1;
    byId('offset-note', HTMLElement).textContent = `${this.describePlan()}${vpp > 1 ? t(' · {n} virtual stages, chunk-major', { n: offsets.length }) : ''}`;
    // The engine's own sentences on why a PPB plan is not proven optimal (a budget reached, a schedule
    // without proof), as text.
    const method = command === 'balance' ? result.method : undefined;
    const notes = method && !method.proven_optimal ? method.notes ?? [] : [];
    const list = byId('method-notes', HTMLElement);
    list.replaceChildren(...notes.map((note) => engineSentence(note)).map(({ text, lang }) => el('li', { text, attrs: { lang } })));
    list.hidden = notes.length === 0;
  }

  /** @param {{width: number, height?: number}} [size] the box's size, when measured already */
  drawCompare(size) {
    const state = this.parts.store.state;
    const box = byId('compare-box', HTMLElement);
    const cards = byId('compare-cards', HTMLElement);
    byId('unpin-plan', HTMLButtonElement).hidden = !state.compare.pinned;
    if (!this.comparison) {
      cards.replaceChildren(el('p', { class: 'hint', text: state.settings.partition === 'even'
        ? t('Choose PPB or a layer_offset to compare it with the even split, or pin this plan and change the inputs to compare any two plans.')
        : t('Nothing to compare yet.') }));
      box.replaceChildren();
      return;
    }
    const { a, b } = this.comparison;
    cards.replaceChildren(...renderGainCards(a, b));
    box.replaceChildren(renderCompare(a, b, { ...(size ?? this.parts.size(box)), palette: this.parts.palette() }));
  }
}
