// Writes the single-file page: SITE_DIR/ppb.html, one HTML file that works opened from disk (file://) with no server
// and no network, to attach to a docs page or send by mail; then bundles the served page's modules into
// SITE_DIR/app.bundle.js, which SITE_DIR/index.html loads in place of app.js (writeBundledPage). Dependency-free
// (node:fs, node:path, node:crypto, node:vm); run after the site is assembled (the `site` target in
// wasm/CMakeLists.txt does).
//
//   node tools/single-file.mjs SITE_DIR [--example dense-8l.json]
//
// What goes in, all from SITE_DIR:
// - style.css as one <style>;
// - the page's ES modules (boot.js, then app.js and everything it imports, in the order a browser evaluates them)
//   as one inline <script type="module">: each module becomes a function scope whose exports go into a table, and
//   each `import {a, b as c} from './x.js'` becomes `const {a, b: c} = <table>['x.js']`. Only the forms the page
//   uses are accepted (named imports and exports of declarations); anything else stops the build with its place;
// - a JSON data block (not run, so outside the CSP) with one example and the worker's source: ppb_engine.js,
//   the WASM module as base64 in PPB_WASM_BASE64, warm-up.js and worker.js. The first script makes a Blob URL of that source
//   and sets window.PPB_SINGLE_FILE = {workerUrl, example} (js/single-file.js), which boot.js, app.js and
//   js/model-input.js read instead of loading worker.js and examples/.
// The Content-Security-Policy allows exactly the inline script and style (by SHA-256), 'wasm-unsafe-eval' and blob:
// workers; no origin at all, so nothing can be fetched.
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

const TABLE = '__ppbModules';
/** index.html's module preloads, one a line: neither the single file nor the bundled page wants them. */
const MODULE_PRELOADS = /^[ \t]*<link rel="modulepreload" href="[^"]+"[^>]*>\n/gm;

/**
 * @param {string} message
 * @returns {never}
 */
function fail(message) {
  throw new Error(`single-file: ${message}`);
}

/**
 * Replaces exactly one match of `pattern` in `text`, or stops: the generator must notice when index.html changes.
 * @param {string} text
 * @param {RegExp} pattern
 * @param {string} replacement
 * @param {string} what
 */
function replaceOnce(text, pattern, replacement, what) {
  const matches = text.match(new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`));
  if (!matches || matches.length !== 1) fail(`index.html: expected one ${what}, found ${matches?.length ?? 0}`);
  return text.replace(pattern, () => replacement);
}

/** @param {string} text */
const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** @param {string} text @param {number} index */
const lineAt = (text, index) => text.slice(0, index).split('\n').length;

// ---- the module graph ---------------------------------------------------------------------------------------
const IMPORT = /^import\s*(?:\{([^}]*)\}\s*from\s*)?(['"])([^'"\n]+)\2\s*;?[ \t]*$/gm;
const EXPORT_DECLARATION = /^export\s+((?:async\s+)?function\*?|class|const|let|var)\s+([A-Za-z_$][\w$]*)/gm;
const EXPORT_NOTHING = /^export\s*\{\s*\}\s*;?[ \t]*$/gm;

/**
 * One module rewritten as a function scope that returns its exports.
 * @param {string} source
 * @param {string} key the module's path relative to the site, e.g. 'js/dom.js'
 * @returns {{code: string, imports: string[]}}
 */
function rewriteModule(source, key) {
  /** @type {string[]} */
  const imports = [];
  let code = source.replace(IMPORT, (/** @type {string} */ _match, /** @type {string | undefined} */ names, /** @type {string} */ _quote,
    /** @type {string} */ specifier) => {
    if (!specifier.startsWith('./') && !specifier.startsWith('../')) fail(`${key}: only relative imports are bundled (${specifier})`);
    const target = posix.normalize(posix.join(posix.dirname(key), specifier));
    imports.push(target);
    if (names === undefined) return '';
    const bindings = names.split(',').map((name) => name.trim()).filter(Boolean).map((name) => {
      const parts = name.split(/\s+as\s+/);
      if (parts.length > 2 || parts.some((part) => !/^[A-Za-z_$][\w$]*$/.test(part))) fail(`${key}: cannot read the import of ${name}`);
      return parts.length === 2 ? `${parts[0]}: ${parts[1]}` : parts[0];
    });
    return `const { ${bindings.join(', ')} } = ${TABLE}[${JSON.stringify(target)}];`;
  });
  /** @type {string[]} */
  const exported = [];
  code = code.replace(EXPORT_DECLARATION, (/** @type {string} */ _match, /** @type {string} */ kind, /** @type {string} */ name) => {
    if (kind === 'let' || kind === 'var') fail(`${key}: exported ${kind} ${name} (a live binding) is not supported`);
    exported.push(name);
    return `${kind} ${name}`;
  });
  code = code.replace(EXPORT_NOTHING, '');
  const left = /^[ \t]*(import|export)\b(?!\s*\()/m.exec(code);
  if (left) fail(`${key}:${lineAt(code, left.index)}: an ${left[1]} form the generator does not handle`);
  if (/\bimport\s*\(|\bimport\.meta\b/.test(code.replace(/\/\*[\s\S]*?\*\//g, ''))) fail(`${key}: dynamic import() or import.meta cannot be bundled`);
  return {
    code: `${TABLE}[${JSON.stringify(key)}] = (() => {\n${code.trimEnd()}\nreturn { ${exported.join(', ')} };\n})();\n`,
    imports,
  };
}

/**
 * The entry modules and all they import, rewritten, in the order a browser evaluates them (depth first, imports
 * in source order, each module after what it imports, each once).
 * @param {string} siteDir
 * @param {string[]} entries paths relative to siteDir
 * @returns {Promise<string[]>}
 */
async function bundleModules(siteDir, entries) {
  /** @type {Map<string, {code: string, imports: string[]}>} */
  const modules = new Map();
  /** @type {string[]} */
  const order = [];
  /** @type {Set<string>} */
  const done = new Set();
  /** @param {string} key @param {string[]} path */
  const visit = async (key, path) => {
    if (done.has(key)) return;
    if (path.includes(key)) fail(`an import cycle (${[...path, key].join(' -> ')}) cannot be bundled this way`);
    if (!modules.has(key)) {
      const file = resolve(siteDir, key);
      if (relative(siteDir, file).startsWith('..')) fail(`${key} is outside the site`);
      modules.set(key, rewriteModule(await readFile(file, 'utf8'), key));
    }
    for (const target of /** @type {{imports: string[]}} */ (modules.get(key)).imports) await visit(target, [...path, key]);
    done.add(key);
    order.push(/** @type {{code: string}} */ (modules.get(key)).code);
  };
  for (const entry of entries) await visit(entry, []);
  return order;
}

// ---- the page ----------------------------------------------------------------------------------------------
/**
 * Text safe inside a <script> or <style> element: no `</` that could end it early, no `<!--`.
 * @param {string} text
 * @param {string} what
 */
function checkInline(text, what) {
  if (/<\/(script|style)|<!--/i.test(text)) fail(`${what} contains </script, </style or <!--, which would break the inline element`);
  return text;
}

/**
 * @param {string} siteDir
 * @param {{example?: string}} [options]
 * @returns {Promise<{file: string, bytes: number}>}
 */
export async function writeSingleFile(siteDir, { example = 'dense-8l.json' } = {}) {
  const read = (/** @type {string} */ name) => readFile(join(siteDir, name), 'utf8');
  let html = await read('index.html');

  // Entries: the scripts of index.html (boot.js is a classic one, the others modules), in document order.
  const entries = [...html.matchAll(/<script (?:type="module" )?src="([^"]+)"><\/script>/g)].map((m) => m[1]);
  if (!entries.includes('boot.js') || !entries.includes('app.js')) fail('index.html: expected the scripts boot.js and app.js');
  const modules = await bundleModules(siteDir, entries);

  const exampleText = await read(posix.join('examples', example));
  JSON.parse(exampleText);
  const wasm = await readFile(join(siteDir, 'ppb_engine.wasm'));
  const workerSource = [
    '// The PPB engine worker of the single-file page: ppb_engine.js, its WASM module, warm-up.js, worker.js.',
    await read('ppb_engine.js'),
    `self.PPB_WASM_BASE64 = ${JSON.stringify(wasm.toString('base64'))};`,
    await read('warm-up.js'),
    await read('worker.js'),
  ].join('\n');
  // '<' as \u003c: the data block cannot be ended early by anything in the sources.
  const data = JSON.stringify({ example: { file: example, text: exampleText }, worker: workerSource }).replace(/</g, '\\u003c');

  const script = checkInline([
    '// The PPB page in one file, written by tools/single-file.mjs from web/ (see docs/page.md). Each module is one',
    `// function scope; its exports go into ${TABLE}.`,
    '{',
    '  // What this file carries instead of files beside it (js/single-file.js).',
    "  const carried = JSON.parse(document.getElementById('ppb-single-file')?.textContent ?? 'null');",
    "  const workerUrl = URL.createObjectURL(new Blob([carried.worker], { type: 'text/javascript' }));",
    '  window.PPB_SINGLE_FILE = { workerUrl, example: carried.example };',
    '}',
    `const ${TABLE} = {};`,
    ...modules,
  ].join('\n'), 'the bundled modules');
  new Script(`'use strict';\n${script}`, { filename: 'ppb.html (bundled modules)' }); // a syntax error stops the build here
  const style = checkInline(await read('style.css'), 'style.css');

  const csp = ["default-src 'none'", `script-src ${sha256(script)} 'wasm-unsafe-eval'`, 'worker-src blob:',
    `style-src ${sha256(style)}`, 'img-src data: blob:', "object-src 'none'", "base-uri 'none'", "form-action 'none'"].join('; ');
  html = replaceOnce(html, /(?<=<meta http-equiv="Content-Security-Policy"\s+content=")[^"]*(?=")/, csp, 'CSP meta tag');
  html = replaceOnce(html, /^[ \t]*<link rel="stylesheet" href="style\.css">\n/m, `  <style>${style}</style>\n`, 'stylesheet link');
  html = html.replace(MODULE_PRELOADS, '');
  html = html.replace(/^[ \t]*<script (?:type="module" )?src="[^"]+"><\/script>\n/gm, '');
  // Nothing in the markup may still point at a file beside the page (the style sheet has no src= or href=).
  const outside = [...html.matchAll(/\s(?:src|href)="(?!data:|#|\.\/")([^"]*)"/g)].map((m) => m[1]);
  if (outside.length > 0) fail(`index.html refers to ${outside.join(', ')}, which the single file does not carry`);
  html = replaceOnce(html, /^<\/head>$/m, `  <script type="module">${script}</script>\n</head>`, '</head>');
  html = replaceOnce(html, /^<\/body>$/m,
    `<script type="application/json" id="ppb-single-file">${data}</script>\n</body>`, '</body>');
  html = html.replace(/^<!doctype html>\n/, '<!doctype html>\n<!-- Single-file build of the PPB page (tools/single-file.mjs): works opened from disk, with no server and no network. -->\n');

  const file = join(siteDir, 'ppb.html');
  await writeFile(file, html);
  return { file, bytes: Buffer.byteLength(html) };
}

/**
 * The served page's modules in one file: SITE_DIR/app.bundle.js holds app.js and everything it imports, bundled as for
 * the single file, and SITE_DIR/index.html loads it in place of app.js, without the module preloads. A browser
 * fetched and linked the 45 modules one by one for about 600 ms of the opening on 2 cores, while the engine's
 * worker wanted the same processor; the modules stay beside it for anything that imports one of them. The bundle asks
 * V8 to compile all of it as it streams in (an explicit compile hint).
 * @param {string} siteDir
 * @returns {Promise<{file: string, bytes: number}>}
 */
export async function writeBundledPage(siteDir) {
  const index = join(siteDir, 'index.html');
  let html = await readFile(index, 'utf8');
  const modules = await bundleModules(siteDir, ['app.js']);
  const bundle = [
    // V8's explicit compile hint (Chrome 136 on; a comment elsewhere): every function compiled while the file streams
    // in, on a background thread, rather than each on the page's thread when first called, when the engine's worker
    // and the first drawing want the processor (about 0.1 s of the opening on 2 cores, measured).
    '//# allFunctionsCalledOnLoad',
    '// The PPB page\'s modules in one file, written by tools/single-file.mjs from app.js and everything it imports',
    `// (see docs/page.md). Each module is one function scope; its exports go into ${TABLE}.`,
    `const ${TABLE} = {};`,
    ...modules,
  ].join('\n');
  new Script(bundle, { filename: 'app.bundle.js' }); // a syntax error stops the build here
  const file = join(siteDir, 'app.bundle.js');
  await writeFile(file, bundle);
  html = replaceOnce(html, /<script type="module" src="app\.js"><\/script>/, '<script type="module" src="app.bundle.js"></script>', 'app.js module script');
  html = html.replace(MODULE_PRELOADS, '');
  await writeFile(index, html);
  return { file, bytes: Buffer.byteLength(bundle) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const siteDir = args[0];
  const exampleAt = args.indexOf('--example');
  if (!siteDir || siteDir.startsWith('--')) {
    console.error('usage: node tools/single-file.mjs SITE_DIR [--example dense-8l.json]');
    process.exit(2);
  }
  const { file, bytes } = await writeSingleFile(resolve(siteDir), exampleAt >= 0 ? { example: args[exampleAt + 1] } : {});
  console.log(`wrote ${file} (${(bytes / 1024).toFixed(0)} KiB)`);
  const bundled = await writeBundledPage(resolve(siteDir));
  console.log(`wrote ${bundled.file} (${(bundled.bytes / 1024).toFixed(0)} KiB); index.html loads it`);
}
