// The interactive parts of the timeline and the memory chart: one shared time window (zoom and pan), redraws
// batched per animation frame, tooltips found by lookup (binary search per row) rather than by listeners on
// thousands of boxes, and one selected operation (picked by click, tap or keyboard) described in a details panel.
// Drawing itself is done by the pure renderers in timeline.js and memory.js.

/** @import {EstimateResult, TimelineOp} from '../types.js' */
/** @import {Palette} from '../theme.js' */
/** @import {Tooltip} from '../tooltip.js' */
/** @import {TimeWindow} from './time-zoom.js' */
import { indexTimeline, renderTimeline, timelineLayout, timelineLegendHeight, opAt, idleAround, nearestOp } from './timeline.js';
import { renderMemory, memoryLayout, memoryLegendRows, levelAt } from './memory.js';
import { attachTimeZoom, clampWindow, zoomWindow } from './time-zoom.js';
import { ms, mib, num } from '../format.js';
import { el } from '../dom.js';

const OP_NAMES = /** @type {Record<string, string>} */ ({ F: 'forward', B: 'backward', W: 'weight gradient' });

export class TimeViews {
  /**
   * @param {{timeline: HTMLElement, memory: HTMLElement, details: HTMLElement}} boxes details: where the selected
   *   operation is described
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
    this.frame = 0;
    /** @type {number | null} micro batch under the pointer */
    this.hoverMicroBatch = null;
    /** @type {{stage: number, i: number} | null} the selected operation: its stage and place in the stage's row */
    this.selected = null;
    /** @type {TimelineOp | null} the selected operation as last shown (found again in new data) */
    this.lastSelected = null;
    // Before the zoom's own keys: with an operation selected, the arrows move the selection instead of panning.
    boxes.timeline.addEventListener('keydown', (event) => this.selectionKey(event));
    this.watchClicks(boxes.timeline);
    for (const [name, box] of Object.entries({ timeline: boxes.timeline, memory: boxes.memory })) {
      box.dataset.ownTooltip = '';
      attachTimeZoom(box, {
        plot: () => this.plot(name),
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
  width(box) {
    return Math.max(320, Math.floor(box.clientWidth || 800));
  }

  /**
   * The height to fill, in embed mode.
   * @param {HTMLElement} box
   * @returns {number | undefined}
   */
  height(box) {
    return this.fitHeight && box.clientHeight > 0 ? box.clientHeight : undefined;
  }

  /** @param {number} width */
  timelineLayout(width) {
    return timelineLayout(width, this.result?.stages.length ?? 1, this.height(this.boxes.timeline),
      timelineLegendHeight(width, this.index?.hasW ?? false, this.result?.vpp_degree ?? 1));
  }

  /** @param {number} width */
  memoryLayout(width) {
    return memoryLayout(width, this.height(this.boxes.memory), memoryLegendRows(width, this.result?.stages.length ?? 1));
  }

  /**
   * New data: keeps the zoom when the step is about the same length, otherwise shows the whole step.
   * @param {EstimateResult} result
   */
  setData(result) {
    const previous = this.result?.step_time_ms;
    this.result = result;
    const pp = result.stages.length;
    this.index = indexTimeline(result.timeline ?? [], pp, result.step_time_ms);
    if (this.window && previous && Math.abs(previous - result.step_time_ms) / previous < 0.5) {
      this.window = clampWindow(this.window, this.extent());
    } else {
      this.window = null;
    }
    this.reselect();
    this.redraw();
  }

  /** @param {TimeWindow | null} window */
  setWindow(window) {
    const extent = this.extent();
    this.window = window && (window[0] > extent[0] || window[1] < extent[1]) ? clampWindow(window, extent) : null;
    this.redraw();
  }

  /** @param {number} factor below 1 zooms in */
  zoom(factor) {
    const [a, b] = this.currentWindow();
    this.setWindow(zoomWindow([a, b], (a + b) / 2, factor, this.extent()));
  }

  /** Draws on the next frame (several changes in one frame draw once). */
  redraw() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  /** Draws now. */
  draw() {
    if (this.frame) {
      cancelAnimationFrame(this.frame);
      this.frame = 0;
    }
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
    this.boxes.timeline.replaceChildren(timeline);
    this.boxes.memory.replaceChildren(renderMemory(result, { width: this.width(this.boxes.memory), height: this.height(this.boxes.memory), palette, window,
      until: result.timeline_truncated ? this.index.lastStart : undefined }));
    if (this.hoverMicroBatch !== null) this.highlight(this.hoverMicroBatch);
  }

  /**
   * Pointer position in chart coordinates.
   * @param {HTMLElement} box
   * @param {MouseEvent} event
   */
  local(box, event) {
    const svg = box.querySelector('svg');
    if (!svg) return null;
    const rect = svg.getBoundingClientRect();
    const width = Number(svg.getAttribute('width'));
    const height = Number(svg.getAttribute('height'));
    return { x: ((event.clientX - rect.left) / rect.width) * width, y: ((event.clientY - rect.top) / rect.height) * height, width };
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
    const { stage, t, op } = hit;
    if (op) {
      this.tooltip.show(event.clientX, event.clientY, [
        `${op.op}${op.micro_batch} · ${OP_NAMES[op.op] ?? op.op} of micro batch ${op.micro_batch}`,
        `stage ${op.stage}, virtual stage ${op.virtual_stage}`,
        `${num(op.start_ms)} – ${num(op.end_ms)} ms (${ms(op.end_ms - op.start_ms)})`,
      ]);
      if (this.hoverMicroBatch !== op.micro_batch) this.highlight(op.micro_batch);
    } else {
      const [from, to] = idleAround(index, stage, t);
      this.tooltip.show(event.clientX, event.clientY, [`Bubble on stage ${stage}`, `idle ${num(from)} – ${num(to)} ms (${ms(to - from)})`]);
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
    for (const node of svg.querySelectorAll(`rect[data-micro-batch="${microBatch}"]`)) node.classList.add('hover');
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
    const t = a + ((at.x - layout.x0) / (layout.x1 - layout.x0)) * (b - a);
    cursor?.setAttribute('x1', String(at.x));
    cursor?.setAttribute('x2', String(at.x));
    cursor?.setAttribute('visibility', 'visible');
    const lines = result.stages.slice(0, 16).map((stage, i) => {
      const level = levelAt(result.memory_timeline?.[i] ?? [], t);
      return `stage ${i}: ${mib(stage.memory.static_mib + stage.memory.reserved_mib + level)} (activations ${mib(level)})`;
    });
    if (result.stages.length > 16) lines.push(`… ${result.stages.length - 16} more stages`);
    this.tooltip.show(event.clientX, event.clientY, [`at ${ms(t)}`, ...lines]);
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
      `stage ${op.stage}, virtual stage ${op.virtual_stage} · operation ${this.selected.i + 1} of ${row.length} on this stage`,
      `${num(op.start_ms)} – ${num(op.end_ms)} ms, ${ms(op.end_ms - op.start_ms)}`,
      op.start_ms - before > 1e-9 ? `idle for ${ms(op.start_ms - before)} before it (bubble)` : 'starts as soon as the previous operation ends',
    ];
    panel.replaceChildren(
      el('p', { class: 'op-title', text: `${op.op}${op.micro_batch} · ${OP_NAMES[op.op] ?? op.op} of micro batch ${op.micro_batch}` }),
      ...lines.map((line) => el('p', { class: 'op-line', text: line })),
      el('button', { class: 'button small ghost op-close', text: 'Close', attrs: { type: 'button', 'aria-label': 'Close the operation details' },
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
   * @returns {{stage: number, t: number, op: TimelineOp | null} | null}
   */
  hitTimeline(event) {
    const result = this.result;
    const index = this.index;
    const at = this.local(this.boxes.timeline, event);
    if (!result || !index || !at) return null;
    const layout = this.timelineLayout(at.width);
    const stage = Math.floor((at.y - layout.top) / (layout.rowHeight + layout.rowGap));
    const [a, b] = this.currentWindow();
    const t = a + ((at.x - layout.x0) / (layout.x1 - layout.x0)) * (b - a);
    if (stage < 0 || stage >= result.stages.length || at.x < layout.x0 || at.x > layout.x1 || t > result.step_time_ms) return null;
    return { stage, t, op: opAt(index, stage, t) };
  }

  clearHover() {
    this.tooltip.hide();
    this.highlight(null);
    this.boxes.memory.querySelector('.cursor')?.setAttribute('visibility', 'hidden');
  }
}
