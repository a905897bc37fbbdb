// tools/docs-site.mjs, the docs as HTML pages of the site: the markdown the docs use is rendered, nothing in it
// reaches the page as markup, links point into the site, and every link to a heading (between the docs, and from
// the page's web/index.html) lands on an id that exists. No build needed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { render, slug, target } from '../tools/docs-site.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

test('raw HTML in the markdown is text, and a script link is no link', () => {
  const { html } = render('# T\n\n<script>alert(1)</script>\n\nA <img src=x onerror=alert(1)> and [x](javascript:alert(1)).\n');
  assert.doesNotMatch(html, /<script|<img/);
  assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.doesNotMatch(html, /href="javascript/);
});

test('links point into the site: pages as .html, the README as the index, other files as text', () => {
  assert.equal(target('ppb.md#the-count-search'), 'ppb.html#the-count-search');
  assert.equal(target('docs/contract.md'), 'contract.html');
  assert.equal(target('../README.md'), 'index.html');
  assert.equal(target('#bounds'), '#bounds');
  assert.equal(target('https://example.org/a.md'), 'https://example.org/a.md');
  const { html } = render('See [the search](search.md), [the examples](../examples/README.md) and ![chart](micro-batches.svg).');
  assert.match(html, /<a href="search.html">the search<\/a>/);
  assert.match(html, /, the examples and /);
  assert.match(html, /<img src="micro-batches.svg" alt="chart">/);
});

test('headings get the ids GitHub gives them, and the first one is the title', () => {
  assert.equal(slug("The interleaved case's optimum, proven offline"), 'the-interleaved-cases-optimum-proven-offline');
  const { html, title } = render('# PPB: the `balance` command\n\n## The count search\n');
  assert.equal(title, 'PPB: the balance command');
  assert.match(html, /<h1 id="ppb-the-balance-command">PPB: the <code>balance<\/code> command<\/h1>/);
  assert.match(html, /<h2 id="the-count-search">The count search<\/h2>/);
});

test('tables scroll, and right-aligned columns take a class, not an inline style the CSP would block', () => {
  const { html } = render('| case | ms |\n|---|---:|\n| a | 1 |\n');
  assert.match(html, /^<div class="table-scroll"><table>/);
  assert.match(html, /<th class="num">ms<\/th>/);
  assert.match(html, /<td class="num">1<\/td>/);
  assert.doesNotMatch(html, /style=/);
});

test('comments on lines of their own are hidden, as GitHub hides them', () => {
  const { html } = render('before\n\n<!-- page-frames -->\n\n| a |\n|---|\n| 1 |\n<!-- /page-frames\n  two lines -->\nafter\n');
  assert.doesNotMatch(html, /--|page-frames/);
  assert.match(html, /<p>after<\/p>/);
});

test('every link to a heading of the docs, and every doc link of the page, lands on an id that exists', () => {
  const out = mkdtempSync(join(tmpdir(), 'ppb-docs-'));
  try {
    execFileSync(process.execPath, [join(root, 'tools/docs-site.mjs'), join(root, 'docs'), out, join(root, 'README.md')]);
    const pages = readdirSync(out).filter((file) => file.endsWith('.html'));
    /** @type {Map<string, Set<string>>} */
    const ids = new Map(pages.map((file) => [file, new Set([...readFileSync(join(out, file), 'utf8').matchAll(/ id="([^"]+)"/g)]
      .map((m) => m[1]))]));
    /** @type {string[][]} */
    const links = [];
    for (const file of pages) {
      for (const [, href] of readFileSync(join(out, file), 'utf8').matchAll(/ href="([^":]+)"/g)) links.push([file, href]);
    }
    const index = readFileSync(join(root, 'web/index.html'), 'utf8');
    for (const [, doc] of index.matchAll(/data-doc="([^"]+)"/g)) links.push(['web/index.html', doc]);
    assert.ok(links.length > 20, `${links.length} links`);
    for (const [from, href] of links) {
      if (href === '../' || href.endsWith('.css')) continue;
      const [file, fragment] = href.split('#');
      const page = file || from;
      assert.ok(ids.has(page), `${from} links ${href}: no page ${page}`);
      if (fragment) assert.ok(ids.get(page)?.has(fragment), `${from} links ${href}: no heading #${fragment}`);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
