// The export buttons: SVG and PNG of each chart (added to every chart's tool bar), and in the Export section the
// engine's response and request as JSON, the Chrome trace, the MindFormers YAML, the Megatron arguments, the
// PyTorch schedule CSV (the export command on the plan shown, stated exactly; what it wrote said beside the
// download) and the state file.

/** @import {PageState, EngineResponse, EstimateResult} from './types.js' */
/** @import {ErrorBoard} from './errors.js' */
/** @import {Banners} from './banners.js' */
import { byId, el, download, copyWithFeedback, fileName } from './dom.js';
import { t } from './i18n.js';
import { svgBlob, pngBlob, TARGET_FILES } from './exports.js';
import { stateFile } from './share.js';
import { exactPlanSections } from './requests.js';
import { CancelledError } from './worker-client.js';
import { exportNotes, exportRefusal } from './views/export-notes.js';

/**
 * @typedef {{response: EngineResponse, request: Record<string, any>, result: EstimateResult, command: string}} ShownPlan
 * @typedef {{run: (request: object) => Promise<EngineResponse>, errors: ErrorBoard, banners: Banners,
 *            getState: () => PageState, getShown: () => ShownPlan | null, getName: () => string}} ExportHooks
 */

/** The charts' names in the export buttons' labels. */
const CHART_NAMES = /** @type {Record<string, string>} */ ({ 'stage-loads': 'stage loads', timeline: 'timeline', memory: 'memory', compare: 'comparison', schedules: 'schedules', pareto: 'search scatter' });

/**
 * @param {ExportHooks} hooks
 * @returns {{readonly lastExport: EngineResponse | null}}
 */
export function attachExportPanel({ run, errors, banners, getState, getShown, getName }) {
  const preview = byId('export-preview', HTMLElement);
  const copy = byId('export-copy', HTMLButtonElement);
  const errorBox = byId('export-errors', HTMLElement);
  const notesBox = byId('export-notes', HTMLElement);
  /** The last engine export (a test hook). @type {EngineResponse | null} */
  let lastExport = null;

  for (const tools of document.querySelectorAll('.view-tools[data-chart]')) {
    const chart = tools.getAttribute('data-chart') ?? '';
    for (const format of /** @type {const} */ (['svg', 'png'])) {
      tools.append(el('button', {
        class: 'button small ghost', text: format.toUpperCase(), data: { download: format },
        attrs: { type: 'button', 'aria-label': t('Download the {chart} chart as {format}', { chart: t(CHART_NAMES[chart] ?? chart), format: format.toUpperCase() }) },
        on: { click: () => { exportChart(chart, format); } },
      }));
    }
  }

  /**
   * @param {string} chart
   * @param {'svg' | 'png'} format
   */
  async function exportChart(chart, format) {
    const svg = document.querySelector(`svg#${chart}`);
    if (!(svg instanceof SVGSVGElement)) {
      banners.show('export', 'info', t('That chart has nothing to export yet.'));
      return;
    }
    try {
      // The chart's view heading and the model: what the picture is, once it is out of the page.
      const heading = svg.closest('.view')?.querySelector('h2')?.textContent?.trim() ?? chart;
      const title = `${heading} · ${getName() || t('PPB plan')}`;
      download(format === 'svg' ? svgBlob(svg, title) : await pngBlob(svg, title), `${fileName(getName())}-${chart}.${format}`);
    } catch (error) {
      banners.show('export', 'error', t('The {format} could not be made: {reason}', { format: format.toUpperCase(), reason: error instanceof Error ? error.message : String(error) }));
    }
  }

  /**
   * Beside the download: what the export wrote (js/views/export-notes.js), or why the engine refused to write it.
   * @param {HTMLElement[]} nodes
   * @param {boolean} warn
   */
  function showNotes(nodes, warn) {
    notesBox.hidden = false;
    notesBox.classList.toggle('warn', warn);
    notesBox.replaceChildren(...nodes);
  }

  /** @param {string} what */
  async function exportOutput(what) {
    errors.clear('export');
    notesBox.hidden = true;
    notesBox.replaceChildren();
    const base = fileName(getName());
    if (what === 'state') {
      download(stateFile(getState()), `${base}.ppb-state.json`);
      return;
    }
    const shown = getShown();
    if (!shown) return;
    /** @param {unknown} value @param {string} name */
    const json = (value, name) => download(new Blob([JSON.stringify(value, null, 2)], { type: 'application/json' }), name);
    if (what === 'result') return json(shown.response, `${base}-${shown.command}-result.json`);
    if (what === 'request') return json(shown.request, `${base}-${shown.command}-request.json`);
    const target = TARGET_FILES[what];
    if (!target) return;
    try {
      const response = await run({ model: getState().model, ...exactPlanSections(shown.result, shown.request), export: { to: what } });
      lastExport = response;
      if (!response.ok) {
        // A refusal is the engine's answer about the plan, not a problem of the inputs: said beside the buttons.
        if (response.errors.some((error) => error.code === 'EXPORT_PLAN_DOES_NOT_FIT')) showNotes(exportRefusal(t(target.label), response.errors), true);
        else errors.set('export', response.errors, { target: errorBox });
        return;
      }
      download(new Blob([response.result.text], { type: target.type }), `${base}${target.suffix}`);
      const { nodes, warn } = exportNotes(t(target.label), response.result, shown.result.stages[0]?.memory.limit_mib ?? undefined);
      showNotes(nodes, warn);
      const text = what !== 'chrome-trace';
      preview.hidden = !text;
      copy.hidden = !text;
      preview.textContent = text ? response.result.text : '';
    } catch (error) {
      if (error instanceof CancelledError) return;
      errors.set('export', [{ code: 'ENGINE', path: '', message: String(error instanceof Error ? error.message : error) }], { target: errorBox });
    }
  }

  for (const button of document.querySelectorAll('[data-export]')) {
    button.addEventListener('click', () => { exportOutput(button.getAttribute('data-export') ?? ''); });
  }
  copy.addEventListener('click', () => copyWithFeedback(copy, preview.textContent ?? ''));
  return { get lastExport() { return lastExport; } };
}
