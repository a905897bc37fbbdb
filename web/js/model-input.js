// Where models come from: the bundled examples, the file picker, a file dropped anywhere on the page, pasted
// JSON. Every source ends in one callback with the text and where it came from; classify() then tells a model
// from a SAPP file, a transformer description, a Hugging Face config.json, a whole request or a saved page state.

/** @import {Settings, SearchSettings} from './types.js' */
import { el } from './dom.js';
import { singleFile } from './single-file.js';
import { t } from './i18n.js';

/**
 * Settings an example states: its hardware (the memory of the GPU it names), its data-parallel size and the
 * cluster it describes (tp x dp at the default pp 8), so the page opens it on what the example says.
 * @typedef {{file: string, label: string, settings?: Partial<Settings>, search?: Partial<SearchSettings>}} Example
 */

/** H100 SXM and PCIe: 80 GiB of HBM. */
const H100_MIB = '81920';

/** The bundled examples (examples/ beside the page); tests/web/inputs.test.mjs checks that every file is listed. */
/** @type {Example[]} */
const BUNDLED = [
  // "tp 8 + SP, distributed optimizer over dp 4, H100": pp 8 x tp 8 x dp 4 = 256 devices.
  { file: 'llama2-70b.json', label: 'Llama-2 70B (symbolic, tp 8, H100 80 GB)',
    settings: { memory_limit_mib: H100_MIB, dp_degree: '4' }, search: { world_size: '256', tp_degree: '8', cp_degree: '1' } },
  // "tp 2 + SP, distributed optimizer over dp 8, H100": pp 8 x tp 2 x dp 8 = 128 devices.
  { file: 'llama2-7b.json', label: 'Llama-2 7B (symbolic, tp 2, H100 80 GB)',
    settings: { memory_limit_mib: H100_MIB, dp_degree: '8' }, search: { world_size: '128', tp_degree: '2', cp_degree: '1' } },
  // "tp 2 + SP, ep 4, distributed optimizer over dp 8, H100": ep lies within dp, so pp 8 x tp 2 x dp 8 = 128.
  { file: 'moe-16x.json', label: 'MoE 16 experts, 24 layers (tp 2, ep 4, H100 80 GB)',
    settings: { memory_limit_mib: H100_MIB, dp_degree: '8' }, search: { world_size: '128', tp_degree: '2', cp_degree: '1' } },
  // examples/README.md quotes this model on pp 4, 16 micro batches (tp 2; no device named).
  { file: 'dense-profiled-24l.json', label: 'Dense 24 layers, profiled (tp 2)',
    settings: { pp_degree: '4', vpp_degree: '1', micro_batch_num: '16', batch_mode: 'micro_batch_num' }, search: { tp_degree: '2' } },
  { file: 'dense-8l.json', label: 'Dense 8 layers (small)' },
  { file: 'sapp-llama-80l.json', label: 'SAPP layer file: Llama-2 70B (tp 8)', search: { tp_degree: '8' } },
  // examples/README.md balances it on pp 16, 16 micro batches, under a 20,000 MiB limit (no device named).
  { file: 'sapp-llama-192l.json', label: 'SAPP layer file: 192 decoders, four recompute kinds',
    settings: { pp_degree: '16', vpp_degree: '1', micro_batch_num: '16', batch_mode: 'micro_batch_num', memory_limit_mib: '20000' } },
];

/** The examples the picker offers: the single file has only the one it carries. */
const carried = singleFile?.example.file;
export const EXAMPLES = carried ? [BUNDLED.find((example) => example.file === carried) ?? { file: carried, label: carried }] : BUNDLED;

/**
 * The text of an example: from examples/ beside the page, or the one the single file carries.
 * @param {string} file
 * @returns {Promise<string>}
 */
export async function readExample(file) {
  if (singleFile) {
    if (file === singleFile.example.file) return singleFile.example.text;
    throw new Error('this single-file page carries only one example');
  }
  const response = await fetch(`examples/${encodeURIComponent(file)}`);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.text();
}

/**
 * The text of a file's bytes, which must be UTF-8 (JSON is, RFC 8259; the engine refuses other bytes
 * too). A byte that is not UTF-8 throws, naming its offset, where a lenient decoder would silently
 * turn it into U+FFFD.
 * @param {Uint8Array} bytes
 * @returns {string}
 */
export function decodeUtf8(bytes) {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    // Up to the first bad sequence the lenient decoding is exact, so its UTF-8 length is the offset;
    // a U+FFFD that the file really holds (EF BF BD) is skipped.
    const text = new TextDecoder('utf-8').decode(bytes);
    const encoder = new TextEncoder();
    let offset = -1;
    for (let at = text.indexOf('\uFFFD'); at >= 0; at = text.indexOf('\uFFFD', at + 1)) {
      const byte = encoder.encode(text.slice(0, at)).length;
      if (!(bytes[byte] === 0xef && bytes[byte + 1] === 0xbf && bytes[byte + 2] === 0xbd)) {
        offset = byte;
        break;
      }
    }
    const where = offset >= 0 ? ` at byte ${offset} (0x${bytes[offset].toString(16).toUpperCase().padStart(2, '0')})` : '';
    throw new Error(`it is not UTF-8 text${where}; save it as UTF-8 and load it again`);
  }
}

/** Larger files are refused before reading: every real model is far smaller. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

/**
 * @typedef {'example' | 'file' | 'paste'} SourceKind
 * @typedef {{text: string, name: string, kind: SourceKind, offer?: number | null}} Incoming
 *   offer: the reference under which the file's bytes went to the engine as they arrived (InputHooks.onBytes)
 * @typedef {'state' | 'sapp' | 'transformer' | 'hf_config' | 'request' | 'model' | 'unknown'} DocumentKind
 */

/**
 * What a parsed JSON document is.
 * @param {any} doc
 * @returns {DocumentKind}
 */
export function classify(doc) {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return 'unknown';
  if (doc.format === 'ppb.state.v1') return 'state';
  if ('layers_description' in doc || 'sapp' in doc) return 'sapp';
  if ('transformer' in doc && !('model' in doc)) return 'transformer';
  // A Hugging Face config.json (its model_type names the family), or one under hf_config.
  if ('hf_config' in doc || ('model_type' in doc && !('layers' in doc))) return 'hf_config';
  if ('model' in doc && doc.model && typeof doc.model === 'object') return 'request';
  if (Array.isArray(doc.layers) || doc.format === 'ppb.model.v1') return 'model';
  return 'unknown';
}

/**
 * @typedef {{onReading: (file?: File) => void, onIncoming: (incoming: Incoming) => void, onProblem: (kind: SourceKind, message: string) => void,
 *            onBytes?: (bytes: Uint8Array) => number | null}} InputHooks
 * onReading is called as soon as a source starts (before the file is read, with the file), so the page can show it is
 * busy: a large file keeps the page busy for a while (reading, decoding, parsing), so the page draws a frame showing
 * so before it starts.
 */

/** Resolves once the browser has drawn a frame (what the page shows now is on screen). */
const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

/**
 * Wires the example picker, the file input, page-wide drag and drop and the paste box.
 * @param {{select: HTMLSelectElement, file: HTMLInputElement, paste: HTMLTextAreaElement, pasteButton: HTMLButtonElement,
 *          overlay: HTMLElement}} nodes
 * @param {InputHooks} hooks
 */
export function attachModelInput({ select, file, paste, pasteButton, overlay }, hooks) {
  select.append(...EXAMPLES.map((example) => el('option', { text: example.label, attrs: { value: example.file } })));
  select.addEventListener('change', async () => {
    const name = select.value;
    if (!name) return;
    hooks.onReading();
    try {
      hooks.onIncoming({ text: await readExample(name), name, kind: 'example' });
    } catch (error) {
      hooks.onProblem('example', `The example ${name} could not be loaded (${error instanceof Error ? error.message : error}).`);
    }
  });

  /** @param {File} picked @param {SourceKind} kind */
  const readFile = async (picked, kind) => {
    if (picked.size > MAX_FILE_BYTES) {
      hooks.onProblem(kind, `${picked.name} is ${(picked.size / 2 ** 20).toFixed(0)} MiB; files above ${MAX_FILE_BYTES / 2 ** 20} MiB are not read.`);
      return;
    }
    try {
      await nextFrame();
      const bytes = new Uint8Array(await picked.arrayBuffer());
      // The engine starts on the bytes at once, beside the page's own decoding and parsing.
      const offer = hooks.onBytes?.(bytes) ?? null;
      const text = decodeUtf8(bytes);
      performance.mark('ppb:read');
      hooks.onIncoming({ text, name: picked.name, kind, offer });
    } catch (error) {
      hooks.onProblem(kind, `${picked.name} could not be read (${error instanceof Error ? error.message : error}).`);
    }
  };
  file.addEventListener('change', () => {
    const picked = file.files?.[0];
    if (picked) {
      hooks.onReading(picked);
      readFile(picked, 'file');
    }
    file.value = '';
  });

  let depth = 0;
  const hasFiles = (/** @type {DragEvent} */ event) => [...(event.dataTransfer?.types ?? [])].includes('Files');
  window.addEventListener('dragenter', (event) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    depth += 1;
    overlay.hidden = false;
  });
  window.addEventListener('dragover', (event) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
  });
  window.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) overlay.hidden = true;
  });
  window.addEventListener('drop', (event) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    depth = 0;
    overlay.hidden = true;
    const dropped = event.dataTransfer?.files?.[0];
    if (dropped) {
      hooks.onReading(dropped);
      readFile(dropped, 'file');
    }
  });

  pasteButton.addEventListener('click', () => {
    if (paste.value.trim() === '') {
      hooks.onProblem('paste', t('Paste a config.json (or a model, a SAPP file or a request) first.'));
      return;
    }
    hooks.onReading();
    hooks.onIncoming({ text: paste.value, name: 'pasted JSON', kind: 'paste' });
  });
}
