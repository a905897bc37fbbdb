// The interactive parts of the timeline and the memory chart: one shared time window (zoom and pan), redraws
// batched per animation frame, tooltips found by lookup (binary search per row) rather than by listeners on
// thousands of boxes, and one selected operation (picked by click, tap or keyboard) described in a details panel.
// Drawing itself is done by the pure renderers in timeline.js and memory.js.

/** @import {EstimateResult, TimelineOp} from '../types.js' */
/** @import {Palette} from '../theme.js' */
/** @import {Tooltip} from '../tooltip.js' */
/** @import {TimeWindow} from './time-zoom.js' */
import { indexTimeline, renderTimeline, timelineLayout, timelineLegendHeight, opAt, idleAround, nearestOp } from './timeline.js';
import { renderMemory, memoryLayout, memoryLegendHeight, levelAt, peakOf, stageStroke } from './memory.js';
import { attachTimeZoom, clampWindow, zoomWindow } from './time-zoom.js';
import { ms, mib, num } from '../format.js';
import { el } from '../dom.js';
import { t } from '../i18n.js';
import { s as svgElement } from '../svg.js';
import { BoxGeometry } from './box-geometry.js';
import { debounce } from '../debounce.js';
import { swapChart } from './swap-chart.js';

/** Stages the memory chart draws in colour by default (its palette's distinct colours). */
const MEMORY_COLOURED = 8;

/** What an operation is, in words: "F3 · forward of micro batch 3". */
const OP_TEXT = /** @type {Record<string, string>} */ ({ F: 'forward of micro batch {m}', B: 'backward of micro batch {m}', W: 'weight gradient of micro batch {m}',
  'F&B': 'forward of micro batch {m} overlapped with the backward of micro batch {b}' });

/**
 * An operation's name and what it is: "F3 · forward of micro batch 3", "F3&B1 · forward of micro batch 3 overlapped
 * with the backward of micro batch 1"; a B whose W runs apart says it computes the input gradient only.
 * @param {TimelineOp} op
 */
function opTitle(op) {
  if (op.op === 'F&B') {
    const b = op.backward_micro_batch ?? '?';
    return `F${op.micro_batch}&B${b} · ${t(OP_TEXT['F&B'], { m: op.micro_batch, b })}`;
  }
  if (op.op === 'B' && op.weight_apart) return `B${op.micro_batch} · ${t('input-gradient backward of micro batch {m} (its W runs later)', { m: op.micro_batch })}`;
  return `${op.op}${op.micro_batch} · ${OP_TEXT[op.op] ? t(OP_TEXT[op.op], { m: op.micro_batch }) : op.op}`;
}

/**
 * Where an operation runs, in words: its stage and virtual stage (for an F&B, the forward's and the backward's chunk).
 * @param {TimelineOp} op
 */
function opPlace(op) {
  if (op.op === 'F&B') {
    return t('stage {s}: forward of micro batch {m} on virtual stage {v}, backward of micro batch {b} on virtual stage {bv}', { s: op.stage,
      m: op.micro_batch, v: op.virtual_stage, b: op.backward_micro_batch ?? '?', bv: op.backward_virtual_stage ?? '?' });
  }
  return t('stage {s}, virtual stage {v}', { s: op.stage, v: op.virtual_stage });
}

export class TimeViews {
  /**
   * @param {{timeline: HTMLElement, memory: HTMLElement, details: HTMLElement, stages: HTMLElement}} boxes details:
   *   where the selected operation is described; stages: the memory chart's stage picker and its peak
   * @param {Tooltip} tooltip
   * @param {() => Palette} palette
   * @param {boolean} [fitHeight] charts fill their boxes' height (embed mode)
   */
  constructor(boxes, tooltip, palette, fitHeight = false) {
    this.boxes = boxes;
    this.fitHeight = fitHeight;
    this.tooltip = tooltip;
    this.palette = palette;
    /** @type {EstimateResult | null} */
    this.result = null;
    /** @type {import('./timeline.js').TimelineIndex | null} */
    this.index = null;
    /** @type {TimeWindow | null} null: the whole step */
    this.window = null;
    /** The draw of the next frame. */
    this.drawing = debounce(() => this.draw(), 'frame');
    /** @type {number | null} micro batch under the pointer */
    this.hoverMicroBatch = null;
    /** @type {{stage: number, i: number} | null} the selected operation: its stage and place in the stage's row */
    this.selected = null;
    /** @type {TimelineOp | null} the selected operation as last shown (found again in new data) */
    this.lastSelected = null;
    /** @type {Set<number> | null} the stages the memory chart draws (null: all) */
    this.shownStages = null;
    /** @type {number | null} the stage the memory chart draws bold */
    this.highlightStage = null;
    // Before the zoom's own keys: with an operation selected, the arrows move the selection instead of panning.
    boxes.timeline.addEventListener('keydown', (event) => this.selectionKey(event));
    this.watchClicks(boxes.timeline);
    /** Sizes and places of the two boxes, kept without reading layout per event. */
    this.geometry = { timeline: new BoxGeometry(boxes.timeline), memory: new BoxGeometry(boxes.memory) };
    for (const [name, box] of Object.entries({ timeline: boxes.timeline, memory: boxes.memory })) {
      const geometry = name === 'timeline' ? this.geometry.timeline : this.geometry.memory;
      box.dataset.ownTooltip = '';
      attachTimeZoom(box, {
        plot: () => this.plot(name),
        chartX: (clientX) => geometry.chartPoint({ clientX, clientY: 0 }, this.width(box)).x,
        scale: () => this.width(box) / Math.min(this.width(box), geometry.size().width || this.width(box)),
        getWindow: () => this.currentWindow(),
        extent: () => this.extent(),
        setWindow: (w) => this.setWindow(w),
      });
    }
    boxes.timeline.addEventListener('pointermove', (event) => this.hoverTimeline(event));
    boxes.timeline.addEventListener('pointerleave', () => this.clearHover());
    boxes.memory.addEventListener('pointermove', (event) => this.hoverMemory(event));
    boxes.memory.addEventListener('pointerleave', () => this.clearHover());
  }

  /** @returns {TimeWindow} */
  extent() {
    return [0, this.result?.step_time_ms || 1];
  }

  /** @returns {TimeWindow} */
  currentWindow() {
    return this.window ?? this.extent();
  }

  /**
   * @param {string} name
   * @returns {{x0: number, x1: number, width: number} | null}
   */
  plot(name) {
    const width = this.width(name === 'timeline' ? this.boxes.timeline : this.boxes.memory);
    const layout = name === 'timeline' ? this.timelineLayout(width) : this.memoryLayout(width);
    return { x0: layout.x0, x1: layout.x1, width };
  }

  /** @param {HTMLElement} box */
  geometryOf(box) {
    return box === this.boxes.timeline ? this.geometry.timeline : this.geometry.memory;
  }

  /**
   * The width a chart is drawn at: its box's (known without reading layout).
   * @param {HTMLElement} box
   */
  width(box) {
    return Math.max(320, Math.floor(this.geometryOf(box).size().width || 800));
  }

  /**
   * The height to fill, in embed mode.
   * @param {HTMLElement} box
   * @returns {number | undefined}
   */
  height(box) {
    const height = this.fitHeight ? this.geometryOf(box).size().height : 0;
    return height > 0 ? Math.floor(height) : undefined;
  }

  /** @param {number} width */
  timelineLayout(width) {
    return timelineLayout(width, this.result?.stages.length ?? 1, this.height(this.boxes.timeline),
      timelineLegendHeight(width, this.index ?? { hasW: false, hasFB: false }, this.result?.vpp_degree ?? 1));
  }

  /** @param {number} width */
  memoryLayout(width) {
    const result = this.result;
    return memoryLayout(width, this.height(this.boxes.memory), result ? memoryLegendHeight(width, result, this.palette(), this.shownStages) : undefined);
  }

  /**
   * New data: keeps the zoom when the step is about the same length, otherwise shows the whole step.
   * @param {EstimateResult} result
   */
  setData(result) {
    const previous = this.result?.step_time_ms;
    const pp = result.stages.length;
    if (this.result?.stages.length !== pp) {
      // Up to 8 stages each has its own colour and all are drawn; beyond, colours repeat and 32 coloured lines
      // cannot be told apart, so the peak stage is drawn in colour over the others in grey until more are picked.
      const peak = peakOf(result);
      this.shownStages = pp > MEMORY_COLOURED && peak ? new Set([peak.stage]) : null;
      this.highlightStage = null;
    }
    this.result = result;
    this.showStagePicker();
    this.index = indexTimeline(result.timeline ?? [], pp, result.step_time_ms);
    if (this.window && previous && Math.abs(previous - result.step_time_ms) / previous < 0.5) {
      this.window = clampWindow(this.window, this.extent());
    } else {
      this.window = null;
    }
    this.reselect();
    this.redraw();
  }

  /**
   * Shows a time window (null: the whole step); a window that is the one shown draws nothing (a pan against the
   * end, a zoom past its limit).
   * @param {TimeWindow | null} window
   */
  setWindow(window) {
    const extent = this.extent();
    const next = window && (window[0] > extent[0] || window[1] < extent[1]) ? clampWindow(window, extent) : null;
    const now = this.window;
    if (next === now || (next && now && next[0] === now[0] && next[1] === now[1])) return;
    this.window = next;
    this.redraw();
  }

  /** @param {number} factor below 1 zooms in */
  zoom(factor) {
    const [a, b] = this.currentWindow();
    this.setWindow(zoomWindow([a, b], (a + b) / 2, factor, this.extent()));
  }

  /** Draws on the next frame (several changes in one frame draw once). */
  redraw() {
    this.drawing.schedule();
  }

  /** Draws now. */
  draw() {
    this.drawing.cancel();
    const result = this.result;
    if (!result || !this.index) return;
    const palette = this.palette();
    const window = this.currentWindow();
    const timeline = renderTimeline(this.index, {
      width: this.width(this.boxes.timeline), height: this.height(this.boxes.timeline), palette, window, pp: result.stages.length, vpp: result.vpp_degree ?? 1,
      selected: this.selectedOp(),
      truncated: result.timeline_truncated
        ? { operations: result.timeline_operations ?? this.index.count, limit: result.timeline_limit ?? this.index.count } : null,
    });
    swapChart(this.boxes.timeline, timeline);
    swapChart(this.boxes.memory, renderMemory(result, { width: this.width(this.boxes.memory), height: this.height(this.boxes.memory), palette, window,
      until: result.timeline_truncated ? this.index.lastStart : undefined, shown: this.shownStages, highlight: this.highlightStage }));
    if (this.hoverMicroBatch !== null) this.highlight(this.hoverMicroBatch);
  }

  /**
   * Pointer position in chart coordinates.
   * @param {HTMLElement} box
   * @param {MouseEvent} event
   */
  local(box, event) {
    if (!box.firstElementChild) return null;
    const width = this.width(box);
    return { ...this.geometryOf(box).chartPoint(event, width), width };
  }

  /** @param {PointerEvent} event */
  hoverTimeline(event) {
    const index = this.index;
    if (!index || event.buttons) return;
    const hit = this.hitTimeline(event);
    if (!hit) {
      this.clearHover();
      return;
    }
    const { stage, time, op } = hit;
    if (op) {
      this.tooltip.show(event.clientX, event.clientY, [
        opTitle(op),
        opPlace(op),
        `${num(op.start_ms)} – ${num(op.end_ms)} ms (${ms(op.end_ms - op.start_ms)})`,
      ]);
      if (this.hoverMicroBatch !== op.micro_batch) this.highlight(op.micro_batch);
    } else {
      const [from, to] = idleAround(index, stage, time);
      this.tooltip.show(event.clientX, event.clientY, [t('Bubble on stage {s}', { s: stage }), t('idle {from} – {to} ms ({time})', { from: num(from), to: num(to), time: ms(to - from) })]);
      this.highlight(null);
    }
  }

  /**
   * Outlines every box of one micro batch, so its path through the pipeline shows.
   * @param {number | null} microBatch
   */
  highlight(microBatch) {
    this.hoverMicroBatch = microBatch;
    const svg = this.boxes.timeline.querySelector('svg');
    if (!svg) return;
    for (const node of svg.querySelectorAll('rect.hover')) node.classList.remove('hover');
    if (microBatch === null) return;
    for (const node of svg.querySelectorAll(`rect[data-micro-batch="${microBatch}"], rect[data-backward-micro-batch="${microBatch}"]`)) node.classList.add('hover');
  }

  /** @param {PointerEvent} event */
  hoverMemory(event) {
    const result = this.result;
    const at = this.local(this.boxes.memory, event);
    const svg = this.boxes.memory.querySelector('svg');
    if (!result || !at || !svg || event.buttons) return;
    const layout = this.memoryLayout(at.width);
    const cursor = svg.querySelector('.cursor');
    if (at.x < layout.x0 || at.x > layout.x1 || at.y < layout.top - 10 || at.y > layout.bottom + 10) {
      this.clearHover();
      return;
    }
    const [a, b] = this.currentWindow();
    const time = a + ((at.x - layout.x0) / (layout.x1 - layout.x0)) * (b - a);
    cursor?.setAttribute('x1', String(at.x));
    cursor?.setAttribute('x2', String(at.x));
    cursor?.setAttribute('visibility', 'visible');
    const stages = result.stages.map((_, i) => i).filter((i) => !this.shownStages || this.shownStages.has(i));
    const lines = stages.slice(0, 16).map((i) => {
      const stage = result.stages[i];
      const level = levelAt(result.memory_timeline?.[i] ?? [], time);
      return t('stage {i}: {memory} (activations {activation})', { i, memory: mib(stage.memory.static_mib + stage.memory.reserved_mib + level), activation: mib(level) });
    });
    if (stages.length > 16) lines.push(t('… {n} more stages', { n: stages.length - 16 }));
    this.tooltip.show(event.clientX, event.clientY, [t('at {time}', { time: ms(time) }), ...lines]);
  }

  /**
   * The memory chart's stage picker: which stage peaks, and a button per stage (pressed: drawn; pointer over or
   * focus: drawn bold), with All and "Peak stage only".
   */
  showStagePicker() {
    const result = this.result;
    const box = this.boxes.stages;
    if (!result) return;
    const palette = this.palette();
    const peak = peakOf(result);
    const limit = result.stages[0]?.memory.limit_mib;
    const shown = this.shownStages;
    /**
     * @param {string} label
     * @param {string} name
     * @param {() => void} run
     */
    const action = (label, name, run) => el('button', { class: 'button small ghost', text: label, attrs: { type: 'button', 'data-stages': name },
      on: { click: run } });
    const chips = result.stages.map((_, i) => {
      const { color, dash } = stageStroke(i, palette);
      const swatch = svgElement('svg', { width: 16, height: 8, 'aria-hidden': 'true', class: 'swatch' },
        [svgElement('line', { x1: 0, x2: 16, y1: 4, y2: 4, stroke: color, 'stroke-width': 2.5, 'stroke-dasharray': dash })]);
      return el('button', {
        class: 'stage-chip', attrs: { type: 'button', 'aria-pressed': String(!shown || shown.has(i)), 'data-stage': i, 'aria-label': t(peak?.stage === i ? 'stage {i} (peak)' : 'stage {i}', { i }) },
        on: {
          click: () => this.toggleStage(i),
          pointerenter: () => this.highlightMemory(i),
          pointerleave: () => this.highlightMemory(null),
          focus: () => this.highlightMemory(i),
          blur: () => this.highlightMemory(null),
        },
      }, [swatch, String(i)]);
    });
    // Schedules that run W apart from B hold part of each micro batch's activation until its W: the lines include it.
    const heldForW = (result.timeline ?? []).some((op) => op.op === 'W')
      ? el('p', { class: 'hint memory-w-note', attrs: { id: 'memory-w-note' },
        text: t('B and W run apart here: each line includes the activation a W still needs after its B (weight_activation_mib), held until that W runs.') })
      : null;
    box.replaceChildren(
      el('p', { class: 'memory-peak-line', attrs: { id: 'memory-peak' }, text: peak
        ? t('Peak: stage {s}, {memory}{share}, first reached at {time}.', { s: peak.stage, memory: mib(peak.mib),
          share: limit ? t(' ({pct} % of the {limit} limit)', { pct: Math.round((peak.mib / limit) * 100), limit: mib(limit) }) : '', time: ms(peak.at) })
        : '' }),
      el('div', { class: 'stage-chips', attrs: { role: 'group', 'aria-label': t('Stages drawn in colour in the memory chart (the others in grey)') } }, [
        action(t('All in colour'), 'all', () => this.showStages(null)),
        action(t('Peak stage only'), 'peak', () => this.showStages(peak ? new Set([peak.stage]) : null)),
        ...chips,
      ]),
    );
    if (heldForW) box.append(heldForW);
  }

  /**
   * @param {Set<number> | null} stages null: all
   */
  showStages(stages) {
    this.shownStages = stages && this.result && stages.size < this.result.stages.length ? stages : null;
    this.showStagePicker();
    this.draw();
  }

  /** @param {number} stage */
  toggleStage(stage) {
    const pp = this.result?.stages.length ?? 0;
    const shown = new Set(this.shownStages ?? Array.from({ length: pp }, (_, i) => i));
    if (shown.has(stage)) shown.delete(stage);
    else shown.add(stage);
    this.showStages(shown.size === 0 ? new Set([stage]) : shown);
    /** @type {HTMLElement | null} */ (this.boxes.stages.querySelector(`.stage-chip[data-stage="${stage}"]`))?.focus();
  }

  /** @param {number | null} stage */
  highlightMemory(stage) {
    if (this.highlightStage === stage) return;
    this.highlightStage = stage;
    this.redraw();
  }

  /** @returns {TimelineOp | null} */
  selectedOp() {
    return this.selected ? this.index?.rows[this.selected.stage]?.[this.selected.i] ?? null : null;
  }

  /**
   * Selects an operation (or none), shows it in the details panel and brings it into view.
   * @param {{stage: number, i: number} | null} selection
   */
  select(selection) {
    this.selected = selection;
    const op = this.selectedOp();
    if (!op) this.selected = null;
    this.showDetails();
    if (op) {
      const [a, b] = this.currentWindow();
      if (op.end_ms < a || op.start_ms > b) {
        const middle = (op.start_ms + op.end_ms) / 2;
        this.setWindow([middle - (b - a) / 2, middle + (b - a) / 2]);
        return;
      }
    }
    this.redraw();
  }

  /** After new data: the same operation (stage, kind, micro batch, virtual stage) stays selected if it is there. */
  reselect() {
    const index = this.index;
    const old = this.selected && this.lastSelected;
    this.selected = null;
    if (old && index) {
      const i = (index.rows[old.stage] ?? []).findIndex((op) => op.op === old.op && op.micro_batch === old.micro_batch && op.virtual_stage === old.virtual_stage);
      if (i >= 0) this.selected = { stage: old.stage, i };
    }
    this.showDetails();
  }

  /** The details panel: what the selected operation is, when it runs and what it waited for. */
  showDetails() {
    const panel = this.boxes.details;
    const op = this.selectedOp();
    this.lastSelected = op;
    if (!op || !this.index || !this.selected) {
      panel.hidden = true;
      panel.replaceChildren();
      return;
    }
    const row = this.index.rows[op.stage];
    const before = this.selected.i > 0 ? row[this.selected.i - 1].end_ms : 0;
    const lines = [
      op.op === 'F&B'
        ? t('{place} · operation {k} of {n} on this stage', { place: opPlace(op), k: this.selected.i + 1, n: row.length })
        : t('stage {s}, virtual stage {v} · operation {k} of {n} on this stage', { s: op.stage, v: op.virtual_stage, k: this.selected.i + 1, n: row.length }),
      `${num(op.start_ms)} – ${num(op.end_ms)} ms, ${ms(op.end_ms - op.start_ms)}`,
      op.start_ms - before > 1e-9 ? t('idle for {time} before it (bubble)', { time: ms(op.start_ms - before) }) : t('starts as soon as the previous operation ends'),
    ];
    panel.replaceChildren(
      el('p', { class: 'op-title', text: opTitle(op) }),
      ...lines.map((line) => el('p', { class: 'op-line', text: line })),
      el('button', { class: 'button small ghost op-close', text: t('Close'), attrs: { type: 'button', 'aria-label': t('Close the operation details') },
        on: { click: () => this.select(null) } }),
    );
    panel.hidden = false;
  }

  /**
   * Keys on the focused timeline: Enter or Space selects an operation in view; with one selected, ← → go to the
   * previous and next operation of the stage, ↑ ↓ to the stage above and below (nearest in time), Home and End to
   * the stage's first and last, Escape leaves the selection (the arrows pan again).
   * @param {KeyboardEvent} event
   */
  selectionKey(event) {
    const index = this.index;
    if (!index || event.ctrlKey || event.metaKey || event.altKey) return;
    const op = this.selectedOp();
    /** @type {{stage: number, i: number} | null | undefined} undefined: the key is not ours */
    let next;
    if (!op || !this.selected) {
      if (event.key !== 'Enter' && event.key !== ' ') return;
      const [a, b] = this.currentWindow();
      const stage = index.rows.findIndex((row) => row.length > 0);
      next = stage < 0 ? null : { stage, i: nearestOp(index, stage, (a + b) / 2) };
    } else {
      const { stage, i } = this.selected;
      const middle = (op.start_ms + op.end_ms) / 2;
      const rowLength = index.rows[stage].length;
      /** @param {number} s */
      const onStage = (s) => (s >= 0 && s < index.rows.length && index.rows[s].length > 0 ? { stage: s, i: nearestOp(index, s, middle) } : this.selected);
      if (event.key === 'ArrowLeft') next = { stage, i: Math.max(0, i - 1) };
      else if (event.key === 'ArrowRight') next = { stage, i: Math.min(rowLength - 1, i + 1) };
      else if (event.key === 'ArrowUp') next = onStage(stage - 1);
      else if (event.key === 'ArrowDown') next = onStage(stage + 1);
      else if (event.key === 'Home') next = { stage, i: 0 };
      else if (event.key === 'End') next = { stage, i: rowLength - 1 };
      else if (event.key === 'Escape') next = null;
      else return;
    }
    event.preventDefault();
    this.select(next ?? null);
  }

  /**
   * A click or tap on the timeline (not the end of a drag) selects the operation under it, or clears the
   * selection on idle time.
   * @param {HTMLElement} box
   */
  watchClicks(box) {
    /** @type {{x: number, y: number} | null} */
    let down = null;
    box.addEventListener('pointerdown', (event) => { down = { x: event.clientX, y: event.clientY }; });
    box.addEventListener('click', (event) => {
      if (!down || Math.hypot(event.clientX - down.x, event.clientY - down.y) > 4) return;
      const hit = this.hitTimeline(event);
      if (!hit) return;
      const i = hit.op ? this.index?.rows[hit.stage].indexOf(hit.op) ?? -1 : -1;
      this.select(i >= 0 ? { stage: hit.stage, i } : null);
    });
  }

  /**
   * The stage and operation under a pointer on the timeline, or null outside the rows.
   * @param {MouseEvent} event
   * @returns {{stage: number, time: number, op: TimelineOp | null} | null}
   */
  hitTimeline(event) {
    const result = this.result;
    const index = this.index;
    const at = this.local(this.boxes.timeline, event);
    if (!result || !index || !at) return null;
    const layout = this.timelineLayout(at.width);
    const stage = Math.floor((at.y - layout.top) / (layout.rowHeight + layout.rowGap));
    const [a, b] = this.currentWindow();
    const time = a + ((at.x - layout.x0) / (layout.x1 - layout.x0)) * (b - a);
    if (stage < 0 || stage >= result.stages.length || at.x < layout.x0 || at.x > layout.x1 || time > result.step_time_ms) return null;
    return { stage, time, op: opAt(index, stage, time) };
  }

  clearHover() {
    this.tooltip.hide();
    this.highlight(null);
    this.boxes.memory.querySelector('.cursor')?.setAttribute('visibility', 'hidden');
  }
}
