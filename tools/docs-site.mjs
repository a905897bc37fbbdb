// Writes the documentation into the static site: every docs/*.md as a readable HTML page (build/site/docs/*.html,
// with links between pages and to the README rewritten), the pictures beside them, the markdown sources too, and
// an index. The page links to docs/index.html. No dependency: the markdown the docs use (headings, paragraphs,
// lists, fenced code, tables, links, images, inline code, bold, emphasis) is rendered here, every text escaped.
//
//   node tools/docs-site.mjs <docs dir> <out dir> [README.md]
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** A link to a file that is not in the site. */
const OUTSIDE = 'outside:';

/** @param {string} text */
const escape = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * A link target in the site: .md pages become .html (README.md is the index); anchors kept; other files as they are.
 * @param {string} href
 */
function target(href) {
  if (/^https?:/i.test(href) || href.startsWith('#')) return href;
  if (/^[a-z]+:/i.test(href)) return OUTSIDE;
  const [path, anchor] = href.split('#');
  let out = path.replace(/^\.\//, '').replace(/^docs\//, '');
  // Outside docs/ the repository's files are not in the site (the link keeps its text only); its README is the
  // docs index.
  if (out === '../README.md' || out === 'README.md') out = 'index.html';
  else if (out.includes('/')) return OUTSIDE;
  else out = out.replace(/\.md$/, '.html');
  return anchor ? `${out}#${anchor}` : out;
}

/**
 * Inline markdown: code spans first (their content is literal), then images, links, bold, emphasis.
 * @param {string} text
 * @returns {string}
 */
export function inline(text) {
  /** @type {string[]} */
  const codes = [];
  let s = text.replace(/`([^`]+)`/g, (_, code) => `\u0000${codes.push(code) - 1}\u0000`);
  s = escape(s);
  s = s.replace(/!\[([^\]]*)\]\(([^)\s]+)\)/g, (_, alt, src) => `<img src="${escape(target(src))}" alt="${alt}">`);
  s = s.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, label, href) => {
    const url = target(href.replace(/&amp;/g, '&'));
    return url === OUTSIDE ? label : `<a href="${escape(url)}">${label}</a>`;
  });
  s = s.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
  s = s.replace(/(^|[\s(])\*([^*\s][^*]*)\*(?=[\s.,;:)]|$)/g, '$1<em>$2</em>');
  s = s.replace(/(^|[\s(])_([^_\s][^_]*)_(?=[\s.,;:)]|$)/g, '$1<em>$2</em>');
  // eslint-disable-next-line no-control-regex
  return s.replace(/\u0000(\d+)\u0000/g, (_, i) => `<code>${escape(codes[Number(i)])}</code>`);
}

/** @param {string} line */
const cells = (line) => line.trim().replace(/^\||\|$/g, '').split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));

/**
 * A markdown document as HTML body content.
 * @param {string} markdown
 * @returns {{html: string, title: string}}
 */
export function render(markdown) {
  const lines = markdown.replace(/\r\n/g, '\n').split('\n');
  /** @type {string[]} */
  const out = [];
  let title = '';
  let i = 0;
  /** @param {RegExp} re */
  const isStart = (re) => re.test(lines[i] ?? '');
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') { i++; continue; }
    const fence = /^(\s*)```(\w*)/.exec(line);
    if (fence) {
      const body = [];
      i++;
      while (i < lines.length && !/^\s*```/.test(lines[i])) body.push(lines[i++].slice(fence[1].length));
      i++;
      out.push(`<pre><code${fence[2] ? ` class="language-${fence[2]}"` : ''}>${escape(body.join('\n'))}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = heading[1].length;
      const text = heading[2];
      if (level === 1 && !title) title = text.replace(/`/g, '');
      const id = text.toLowerCase().replace(/`/g, '').replace(/[^a-z0-9 -]/g, '').trim().replace(/ +/g, '-');
      out.push(`<h${level} id="${id}">${inline(text)}</h${level}>`);
      i++;
      continue;
    }
    if (/^\s*\|/.test(line) && /^\s*\|?\s*:?-{3,}/.test(lines[i + 1] ?? '')) {
      const head = cells(line);
      const align = cells(lines[i + 1]).map((c) => (c.endsWith(':') ? ' class="num"' : ''));
      i += 2;
      const rows = [];
      while (i < lines.length && /^\s*\|/.test(lines[i])) rows.push(cells(lines[i++]));
      out.push('<div class="table-scroll"><table><thead><tr>' + head.map((c, k) => `<th${align[k] ?? ''}>${inline(c)}</th>`).join('') +
        '</tr></thead><tbody>' + rows.map((r) => '<tr>' + r.map((c, k) => `<td${align[k] ?? ''}>${inline(c)}</td>`).join('') + '</tr>').join('') +
        '</tbody></table></div>');
      continue;
    }
    if (/^\s*([-*]|\d+\.)\s+/.test(line)) {
      out.push(renderList());
      continue;
    }
    if (/^>\s?/.test(line)) {
      const body = [];
      while (i < lines.length && /^>\s?/.test(lines[i])) body.push(lines[i++].replace(/^>\s?/, ''));
      out.push(`<blockquote>${render(body.join('\n')).html}</blockquote>`);
      continue;
    }
    const para = [];
    while (i < lines.length && lines[i].trim() !== '' && !isStart(/^(#{1,6}\s|\s*```|\s*\||\s*([-*]|\d+\.)\s+|>)/)) para.push(lines[i++].trim());
    if (para.length === 0) para.push(lines[i++].trim());
    out.push(`<p>${inline(para.join(' '))}</p>`);
  }
  return { html: out.join('\n'), title };

  /** A list starting at line i, with items continued by indented lines and nested lists by deeper indentation. */
  function renderList() {
    const first = /^(\s*)([-*]|\d+\.)\s+/.exec(lines[i]);
    const indent = first ? first[1].length : 0;
    const ordered = first ? /\d/.test(first[2]) : false;
    /** @type {string[]} */
    const items = [];
    while (i < lines.length) {
      const m = /^(\s*)([-*]|\d+\.)\s+(.*)$/.exec(lines[i]);
      if (!m || m[1].length !== indent) break;
      const text = [m[3]];
      /** @type {string[]} */
      const nested = [];
      i++;
      while (i < lines.length && lines[i].trim() !== '') {
        const sub = /^(\s*)([-*]|\d+\.)\s+/.exec(lines[i]);
        if (sub && sub[1].length > indent) { nested.push(renderList()); continue; }
        if (sub || !/^\s/.test(lines[i])) break;
        text.push(lines[i++].trim());
      }
      if (i < lines.length && lines[i].trim() === '' && /^(\s*)([-*]|\d+\.)\s+/.test(lines[i + 1] ?? '') &&
          (/^(\s*)/.exec(lines[i + 1])?.[1].length ?? 0) >= indent) i++;
      items.push(`<li>${inline(text.join(' '))}${nested.join('')}</li>`);
    }
    return ordered ? `<ol>${items.join('')}</ol>` : `<ul>${items.join('')}</ul>`;
  }
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1d232b; --bg: #fff; --muted: #5b6470; --line: #d9dde3; --code: #f3f5f8; --link: #1459c7; }
@media (prefers-color-scheme: dark) { :root { --fg: #e3e7ec; --bg: #15191e; --muted: #9aa4b0; --line: #2b3139; --code: #1f252c; --link: #7fb0ff; } }
body { font: 15px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); margin: 0; }
main { max-width: 920px; margin: 0 auto; padding: 24px 20px 60px; }
nav { font-size: 13.5px; color: var(--muted); border-bottom: 1px solid var(--line); padding: 10px 20px; }
nav a { margin-right: 14px; }
a { color: var(--link); }
h1, h2, h3 { line-height: 1.25; margin: 1.4em 0 0.5em; }
h1 { font-size: 26px; margin-top: 0.4em; }
code { font: 13px ui-monospace, SFMono-Regular, Menlo, monospace; background: var(--code); padding: 1px 4px; border-radius: 4px; }
pre { background: var(--code); padding: 10px 12px; border-radius: 6px; overflow-x: auto; }
pre code { padding: 0; background: none; }
.table-scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 13.5px; margin: 10px 0; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th.num, td.num { text-align: right; }
img { max-width: 100%; height: auto; background: #fff; }
blockquote { border-left: 3px solid var(--line); margin: 0; padding-left: 12px; color: var(--muted); }
`;

/**
 * @param {string} title
 * @param {string} body
 */
function page(title, body) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'">
<title>${escape(title)} · PPB docs</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="docs.css">
</head>
<body>
<nav aria-label="Documentation"><a href="../">← PPB planner</a><a href="index.html">Docs index</a></nav>
<main>
${body}
</main>
</body>
</html>
`;
}

function main() {
  const [docsDir, outDir, readme] = process.argv.slice(2);
  if (!docsDir || !outDir) throw new Error('usage: node tools/docs-site.mjs <docs dir> <out dir> [README.md]');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'docs.css'), STYLE.trimStart());
  for (const file of readdirSync(docsDir)) {
    const from = join(docsDir, file);
    if (file.endsWith('.md')) {
      const markdown = readFileSync(from, 'utf8');
      const { html, title } = render(markdown);
      writeFileSync(join(outDir, file.replace(/\.md$/, '.html')), page(title || basename(file, '.md'), html));
      copyFileSync(from, join(outDir, file));
    } else if (/\.(svg|png)$/.test(file)) {
      copyFileSync(from, join(outDir, file));
    }
  }
  // The index: the README's documentation table, rendered, with its links made local.
  const text = readme ? readFileSync(readme, 'utf8') : '';
  const section = /## Documentation\n([\s\S]*?)(\n## |$)/.exec(text)?.[1] ?? '';
  const { html } = render(`# PPB documentation\n\nThe pages of the repository's \`docs/\` folder; each is also here as markdown (the same name ending in .md).\n\n${section}`);
  writeFileSync(join(outDir, 'index.html'), page('PPB documentation', html));
}

main();
