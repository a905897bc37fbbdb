// Static file server for the built page (build/site) during development and in the browser tests.
// Dependency-free: node:http, node:fs and node:path only.
// Usage: node tools/serve.mjs DIR [--port N] [--host 127.0.0.1]   (port also from env PORT, default 8000)
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** @type {Record<string, string>} */
const MIME_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/**
 * Maps a request URL to a file under root, or null when the path would leave root.
 * @param {string} root absolute directory being served
 * @param {string} url request URL (path and query)
 * @returns {string | null}
 */
function resolvePath(root, url) {
  let pathname;
  try {
    pathname = decodeURIComponent(new URL(url, 'http://localhost').pathname);
  } catch {
    return null;
  }
  if (pathname.includes('\0')) return null;
  const file = resolve(root, '.' + pathname);
  return file === root || file.startsWith(root + sep) ? file : null;
}

/**
 * Starts serving dir; port 0 picks a free port.
 * @param {string} dir directory to serve
 * @param {{port?: number, host?: string, isolated?: boolean}} [options] isolated: serve every file with the headers
 *   that make a page cross-origin isolated, so that its performance.now() counts in microseconds rather than the
 *   tenths of a millisecond other pages get (the benchmarks time single sub-millisecond calls)
 * @returns {Promise<{server: import('node:http').Server, url: string}>}
 */
export function startServer(dir, { port = 8000, host = '127.0.0.1', isolated = false } = {}) {
  const isolation = isolated ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {};
  const root = resolve(dir);
  const server = createServer(async (request, response) => {
    const reply = (/** @type {number} */ status, /** @type {string} */ text) => {
      response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' }).end(text + '\n');
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') return reply(405, 'method not allowed');
    let file = resolvePath(root, request.url ?? '/');
    if (file === null) return reply(403, 'forbidden');
    try {
      let info = await stat(file);
      if (info.isDirectory()) {
        file = join(file, 'index.html');
        info = await stat(file);
      }
      if (!info.isFile()) return reply(404, 'not found');
      const type = MIME_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
      response.writeHead(200, { 'Content-Type': type, 'Content-Length': info.size, 'Cache-Control': 'no-cache', ...isolation });
      if (request.method === 'HEAD') return response.end();
      createReadStream(file).on('error', () => response.destroy()).pipe(response);
    } catch {
      reply(404, 'not found');
    }
  });
  return new Promise((resolveStart, rejectStart) => {
    server.once('error', rejectStart);
    server.listen(port, host, () => {
      const address = /** @type {import('node:net').AddressInfo} */ (server.address());
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolveStart({ server, url: `http://${shownHost}:${address.port}/` });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (/** @type {string} */ name) => {
    const at = args.indexOf(name);
    return at >= 0 ? args.splice(at, 2)[1] : undefined;
  };
  const port = Number(option('--port') ?? process.env.PORT ?? 8000);
  const host = option('--host') ?? '127.0.0.1';
  if (args.length !== 1 || !Number.isInteger(port)) {
    console.error('usage: node tools/serve.mjs DIR [--port N] [--host 127.0.0.1]');
    process.exit(2);
  }
  const { url } = await startServer(args[0], { port, host });
  console.log(`serving ${args[0]} on ${url}`);
}
