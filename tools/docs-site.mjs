// Writes the documentation into the static site: every docs/*.md as a readable HTML page (build/site/docs/*.html,
// with links between pages and to the README rewritten), the pictures beside them, the markdown sources too, and
// an index. The page links to docs/index.html. The markdown is read by markdown-it (CommonMark and GitHub's tables)
// with raw HTML off, so every text the docs hold reaches the page escaped; markdown-it-anchor gives the headings the
// ids that the docs' own links (#the-count-search) and the page's (contract.html#model-document) point at.
//
//   node tools/docs-site.mjs <docs dir> <out dir> [README.md]
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import MarkdownIt from 'markdown-it';
import anchor from 'markdown-it-anchor';

/** A link to a file that is not in the site. */
const OUTSIDE = 'outside:';

/** @param {string} text */
const escape = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * A link target in the site: .md pages become .html (README.md is the index); anchors kept; other files as they are.
 * @param {string} href
 */
export function target(href) {
  if (/^https?:/i.test(href) || href.startsWith('#')) return href;
  if (/^[a-z]+:/i.test(href)) return OUTSIDE;
  const [path, fragment] = href.split('#');
  let out = path.replace(/^\.\//, '').replace(/^docs\//, '');
  // Outside docs/ the repository's files are not in the site (the link keeps its text only); its README is the
  // docs index.
  if (out === '../README.md' || out === 'README.md') out = 'index.html';
  else if (out.includes('/')) return OUTSIDE;
  else out = out.replace(/\.md$/, '.html');
  return fragment ? `${out}#${fragment}` : out;
}

/**
 * A heading's id as GitHub spells it for the headings the docs have, so that a link written against the markdown on
 * GitHub lands on the same heading here: lower case, only letters, digits, spaces and hyphens, spaces as hyphens.
 * @param {string} text the heading's text, code spans without their backticks
 */
export const slug = (text) => text.toLowerCase().replace(/[^a-z0-9 -]/g, '').trim().replace(/ +/g, '-');

/**
 * The site's rules over markdown-it's tokens: links and images point into the site (a link to a file the site does
 * not carry keeps its text only); a right-aligned table column gets the class "num" instead of an inline style,
 * which the pages' Content-Security-Policy would block.
 * @param {import('markdown-it').StateCore} state
 */
function siteRules(state) {
  for (const token of state.tokens) {
    if (token.type === 'th_open' || token.type === 'td_open') {
      const style = String(token.attrGet('style') ?? '');
      if (style) {
        token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
        if (/right|center/.test(style)) token.attrSet('class', 'num');
      }
    }
    if (token.type !== 'inline' || !token.children) continue;
    /** @type {import('markdown-it').Token[]} */
    const children = [];
    let dropClose = false;
    for (const child of token.children) {
      if (child.type === 'link_open') {
        const url = target(String(child.attrGet('href') ?? ''));
        dropClose = url === OUTSIDE;
        if (dropClose) continue;
        child.attrSet('href', url);
      } else if (child.type === 'link_close' && dropClose) {
        dropClose = false;
        continue;
      } else if (child.type === 'image') {
        const url = target(String(child.attrGet('src') ?? ''));
        if (url === OUTSIDE) {
          const text = new state.Token('text', '', 0);
          text.content = child.content;
          children.push(text);
          continue;
        }
        child.attrSet('src', url);
      }
      children.push(child);
    }
    token.children = children;
  }
}

const markdownIt = new MarkdownIt({ html: false, linkify: false, typographer: false })
  .use(anchor, { slugify: slug, tabIndex: false })
  .use((md) => md.core.ruler.push('ppb_site', siteRules));
// Wide tables scroll inside the page's column instead of widening it.
markdownIt.renderer.rules.table_open = () => '<div class="table-scroll"><table>\n';
markdownIt.renderer.rules.table_close = () => '</table></div>\n';

/**
 * HTML comments that stand on lines of their own (the markers of the regions that tools rewrite, such as
 * <!-- page-budgets -->): hidden, as GitHub hides them. Raw HTML being off, they would otherwise show as text.
 */
const COMMENT_LINES = /^[ \t]*<!--[\s\S]*?-->[ \t]*$/gm;

/**
 * A markdown document as HTML body content, and its title: the text of its first level-1 heading.
 * @param {string} markdown
 * @returns {{html: string, title: string}}
 */
export function render(markdown) {
  const tokens = markdownIt.parse(markdown.replace(COMMENT_LINES, ''), {});
  const h1 = tokens.findIndex((token) => token.type === 'heading_open' && token.tag === 'h1');
  const title = h1 < 0 ? '' : (tokens[h1 + 1].children ?? [])
    .filter((token) => token.type === 'text' || token.type === 'code_inline').map((token) => token.content).join('');
  return { html: markdownIt.renderer.render(tokens, markdownIt.options, {}), title };
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

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
