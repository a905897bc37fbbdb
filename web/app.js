// Entry point of the PPB page: starts the engine worker, estimates the bundled example plan and shows the
// per-stage breakdown. State flows one way: request -> worker -> response -> view.

/**
 * @typedef {{code: string, path: string, message: string}} EngineError
 * @typedef {{stage: number, layers: number[][], memory: {peak_mib: number},
 *            time: {forward_ms: number, backward_ms: number}}} StageResult
 * @typedef {{step_time_ms: number, stage_layers: number[], stages: StageResult[]}} EstimateResult
 * @typedef {{ok: true, command: string, result: any} | {ok: false, errors: EngineError[]}} EngineResponse
 */

/**
 * Talks to worker.js: one promise per request, matched by id.
 */
export class EngineClient {
  /** @param {Worker} worker */
  constructor(worker) {
    this.worker = worker;
    this.nextId = 1;
    /** @type {Map<number, {resolve: (value: EngineResponse) => void, reject: (reason: Error) => void}>} */
    this.pending = new Map();
    /** @type {Promise<void>} resolves once the engine has loaded */
    this.ready = new Promise((resolve, reject) => {
      /** @param {Error} error */
      const fail = (error) => {
        reject(error);
        for (const waiter of this.pending.values()) waiter.reject(error);
        this.pending.clear();
      };
      worker.addEventListener('message', (event) => {
        const message = event.data;
        if (message.type === 'ready') return resolve();
        if (message.type === 'fatal') return fail(new Error(`engine failed to load: ${message.error}`));
        const waiter = this.pending.get(message.id);
        if (!waiter) return;
        this.pending.delete(message.id);
        if (message.ok) waiter.resolve(JSON.parse(message.response));
        else waiter.reject(new Error(message.error));
      });
      worker.addEventListener('error', (event) => fail(new Error(`engine worker error: ${event.message}`)));
    });
  }

  /**
   * Sends one command; resolves with the parsed engine response (which may itself be `ok: false`).
   * @param {'estimate' | 'balance' | 'search' | 'import' | 'export'} command
   * @param {object} request
   * @returns {Promise<EngineResponse>}
   */
  async call(command, request) {
    await this.ready;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, command, request: JSON.stringify(request) });
    });
  }
}

/**
 * Creates an element with optional text content.
 * @param {string} tag
 * @param {string} [text]
 * @returns {HTMLElement}
 */
function element(tag, text) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * Renders the per-stage table and the step time of an estimate result.
 * @param {EstimateResult} result
 * @param {HTMLTableElement} table
 * @param {HTMLElement} stepTime
 */
export function renderEstimate(result, table, stepTime) {
  const header = element('tr');
  for (const title of ['Stage', 'Layers', 'Forward (ms)', 'Backward (ms)', 'Peak (MiB)']) {
    header.append(element('th', title));
  }
  const head = element('thead');
  head.append(header);
  const body = element('tbody');
  for (const stage of result.stages) {
    const layerCount = stage.layers.reduce((sum, [begin, end]) => sum + end - begin, 0);
    const row = element('tr');
    row.dataset.stage = String(stage.stage);
    for (const value of [
      String(stage.stage),
      String(layerCount),
      stage.time.forward_ms.toFixed(2),
      stage.time.backward_ms.toFixed(2),
      stage.memory.peak_mib.toFixed(0),
    ]) {
      row.append(element('td', value));
    }
    body.append(row);
  }
  table.replaceChildren(head, body);
  stepTime.textContent = `${result.step_time_ms.toFixed(2)} ms`;
}

/**
 * Shows one alert per error, or clears the list when errors is empty.
 * @param {EngineError[]} errors
 * @param {HTMLElement} list
 */
export function renderErrors(errors, list) {
  list.replaceChildren(
    ...errors.map((error) => {
      const where = error.path ? ` at ${error.path}` : '';
      const alert = element('p', `${error.code}${where}: ${error.message}`);
      alert.setAttribute('role', 'alert');
      return alert;
    }),
  );
}

/**
 * Fetches a JSON file relative to the page.
 * @param {string} url
 * @returns {Promise<any>}
 */
async function loadJson(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not load ${url} (HTTP ${response.status})`);
  return response.json();
}

/** @param {'loading' | 'busy' | 'ready' | 'error'} state */
function setState(state) {
  document.body.dataset.state = state;
}

async function main() {
  setState('loading');
  const table = /** @type {HTMLTableElement} */ (document.getElementById('stage-table'));
  const stepTime = /** @type {HTMLElement} */ (document.getElementById('step-time'));
  const errorList = /** @type {HTMLElement} */ (document.getElementById('errors'));
  try {
    const engine = new EngineClient(new Worker('worker.js'));
    const [model] = await Promise.all([loadJson('examples/dense-8l.json'), engine.ready]);
    setState('busy');
    const response = await engine.call('estimate', { model, pipeline: { pp_degree: 4, micro_batch_num: 8 } });
    if (!response.ok) {
      renderErrors(response.errors, errorList);
      setState('error');
      return;
    }
    renderErrors([], errorList);
    renderEstimate(response.result, table, stepTime);
    setState('ready');
  } catch (error) {
    renderErrors([{ code: 'PAGE', path: '', message: String(error instanceof Error ? error.message : error) }], errorList);
    setState('error');
  }
}

main();
