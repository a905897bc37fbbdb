// Starts what takes longest before the page's modules have loaded: the engine worker (it fetches and compiles
// the WASM module) and, unless the address carries a state link, the default example. app.js adopts both;
// messages the worker sends before that are kept for it. A classic script (index.html), run as soon as it arrives,
// before the module scripts, which wait for the whole document; its names stay inside one block.
{
  // The single-file page (js/single-file.js) carries its worker as a Blob URL and one example inside itself.
  const single = /** @type {{workerUrl: string, example: {file: string, text: string}} | undefined} */ (/** @type {any} */ (window).PPB_SINGLE_FILE);
  const worker = new Worker(single?.workerUrl ?? 'worker.js');
  /** @type {{type: string, [key: string]: unknown}[]} */
  const early = [];
  const keep = (/** @type {MessageEvent} */ event) => early.push(event.data);
  const failed = (/** @type {ErrorEvent} */ event) => early.push({ type: 'boot-error', error: event.message || 'the worker failed to start' });
  worker.addEventListener('message', keep);
  worker.addEventListener('error', failed);
  // The same file as DEFAULT_EXAMPLE in js/state.js (the single file: the example it carries).
  const example = location.hash.startsWith('#ppb') ? null : single ? Promise.resolve().then(() => JSON.parse(single.example.text))
    : fetch('examples/llama2-70b.json').then((response) => {
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return response.json();
    });
  example?.catch(() => {});
  /** @type {any} */ (window).__ppbBoot = {
    worker,
    example,
    /** Hands the worker over: stops keeping its messages and returns those kept so far. */
    adopt() {
      worker.removeEventListener('message', keep);
      worker.removeEventListener('error', failed);
      return early.splice(0);
    },
  };
}
