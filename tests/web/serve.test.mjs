// tools/serve.mjs, the static server of the browser tests and the benchmarks: files under its root only, and the
// cross-origin isolation headers only when asked for (the benchmark page needs them for a microsecond clock).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { startServer } from '../../tools/serve.mjs';

/**
 * Serves a directory holding index.html for the callback's requests.
 * @param {{isolated?: boolean}} options
 * @param {(url: string) => Promise<void>} body
 */
async function withServer(options, body) {
  const dir = mkdtempSync(join(tmpdir(), 'ppb-serve-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>t</title>');
  const { server, url } = await startServer(dir, { port: 0, ...options });
  try {
    await body(url);
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a file is served with its type, and without isolation headers unless asked for', async () => {
  await withServer({}, async (url) => {
    const response = await fetch(url);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(response.headers.get('cross-origin-opener-policy'), null);
    assert.equal(response.headers.get('cross-origin-embedder-policy'), null);
  });
});

test('isolated: every file carries the headers that make a page cross-origin isolated', async () => {
  await withServer({ isolated: true }, async (url) => {
    const response = await fetch(`${url}index.html`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cross-origin-opener-policy'), 'same-origin');
    assert.equal(response.headers.get('cross-origin-embedder-policy'), 'require-corp');
  });
});

/**
 * The status of a GET of `path` sent as it is (fetch would normalise its dots away first).
 * @param {string} url the server's address
 * @param {string} path
 * @returns {Promise<number>}
 */
function rawStatus(url, path) {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    request({ hostname, port, path }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    }).on('error', reject).end();
  });
}

test('nothing outside the root is served: a climbing path stays under it, a NUL byte is refused', async () => {
  await withServer({}, async (url) => {
    // /../../etc/passwd resolves to <root>/etc/passwd, which does not exist.
    assert.equal(await rawStatus(url, '/../../etc/passwd'), 404);
    assert.equal(await rawStatus(url, '/index.html%00.js'), 403);
    assert.equal(await rawStatus(url, '/missing.js'), 404);
  });
});
