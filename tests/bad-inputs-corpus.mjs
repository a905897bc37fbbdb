// The bad-input corpus as data, shared by tests/bad-inputs.test.mjs and tools/error-catalogue.mjs:
// the lines of tests/bad-inputs/expected.txt, and the inputs too large to keep in the repository,
// which are made on demand.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const corpusDir = join(root, 'tests', 'bad-inputs');

/**
 * One line of expected.txt: "FILE EXPECT [example]  # what is wrong".
 * EXPECT is an error code (the response is ok:false, exit status 2, and `errors` holds the code), `ok`
 * (a result, exit status 0) or `warning:CODE` (a result, exit status 0, and `warnings` holds the code).
 * `example` marks the file docs/errors.md shows for its code, where the first one listed is not the clearest.
 * @typedef {{file: string, command: string, kind: 'error' | 'warning' | 'ok', code: string,
 *            example: boolean, what: string}} Expected
 */

/**
 * Reads expected.txt; throws on a line it cannot read, so that a typo is not a silently skipped case.
 * @param {string} [text] the file's text (read from the corpus when left out)
 * @returns {Expected[]}
 */
export function readExpected(text = readFileSync(join(corpusDir, 'expected.txt'), 'utf8')) {
  /** @type {Expected[]} */
  const out = [];
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const hash = line.indexOf('#');
    const fields = (hash < 0 ? line : line.slice(0, hash)).trim().split(/\s+/);
    const what = hash < 0 ? '' : line.slice(hash + 1).trim();
    const [file, expect, marker] = fields;
    if (fields.length > 3 || (marker !== undefined && marker !== 'example') || !expect)
      throw new Error(`expected.txt: cannot read "${line}" (FILE EXPECT [example]  # what)`);
    const warning = expect.startsWith('warning:');
    const code = warning ? expect.slice('warning:'.length) : expect;
    if (!/^(ok|[A-Z][A-Z0-9_]+)$/.test(code) || (warning && code === 'ok'))
      throw new Error(`expected.txt: "${expect}" is not ok, CODE or warning:CODE in "${line}"`);
    /** @type {Expected['kind']} */
    const kind = code === 'ok' ? 'ok' : warning ? 'warning' : 'error';
    out.push({ file, command: file.split('.')[0], kind, code, example: marker === 'example', what });
  }
  return out;
}

const model = { layers: [{ name: 'decoder', count: 4, forward_ms: 1 }] };
const request = { model, pipeline: { pp_degree: 2, micro_batch_num: 2 } };

/**
 * Inputs too large to keep in the repository; `kind` and `code` as readExpected gives them.
 * @type {{command: string, what: string, make: () => string, kind: 'error' | 'ok', code: string}[]}
 */
export const generated = [
  { command: 'estimate', what: 'a 50 MB model name', kind: 'error', code: 'TOO_LONG',
    make: () => JSON.stringify({ ...request, model: { ...model, name: 'x'.repeat(50e6) } }) },
  { command: 'estimate', what: '50 MB of whitespace around a valid request', kind: 'ok', code: 'ok',
    make: () => ' '.repeat(25e6) + JSON.stringify(request) + ' '.repeat(25e6) },
  { command: 'import', what: '50 MB of layer entries', kind: 'error', code: 'JSON_TOO_MANY_VALUES',
    make: () => JSON.stringify({ layers: Array(1.8e6).fill({ name: 'l', forward_ms: 1 }) }) },
  { command: 'balance', what: '64 MiB + 1 byte', kind: 'error', code: 'INPUT_TOO_LARGE',
    make: () => ' '.repeat(64 * 1024 * 1024 + 1) },
  { command: 'search', what: '100,000 nested arrays', kind: 'error', code: 'JSON_TOO_DEEP',
    make: () => '['.repeat(1e5) + ']'.repeat(1e5) },
];
