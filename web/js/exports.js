// Exports: each chart as a standalone SVG or a PNG, and the engine's outputs (result JSON, Chrome trace,
// MindFormers YAML, Megatron arguments) as files. Charts carry their colours as attributes, so the SVG looks the
// same outside the page; the page-only attributes (tooltips, focus) are dropped.

import { SVG_NS, s } from './svg.js';
import { textOn } from './theme.js';

const PAGE_ONLY = ['data-tip', 'tabindex', 'role', 'aria-label', 'aria-valuenow', 'aria-valuemin', 'aria-valuemax', 'aria-valuetext', 'aria-orientation', 'class'];

/** Height of the title band an exported chart gets above it. */
const TITLE_BAND = 30;

/**
 * A standalone copy of a chart, under a title line (a chart on a slide or in a report has no page heading
 * around it) that is also its SVG <title>.
 * @param {SVGSVGElement} svg
 * @param {string} [title]
 * @returns {SVGSVGElement}
 */
export function standaloneChart(svg, title) {
  const copy = /** @type {SVGSVGElement} */ (svg.cloneNode(true));
  copy.setAttribute('xmlns', SVG_NS);
  copy.removeAttribute('style');
  for (const node of [copy, ...copy.querySelectorAll('*')]) {
    for (const name of PAGE_ONLY) if (node !== copy || name !== 'role') node.removeAttribute(name);
  }
  if (!title) return copy;
  const width = Number(copy.getAttribute('width'));
  const height = Number(copy.getAttribute('height')) + TITLE_BAND;
  const background = copy.querySelector('.chart-background')?.getAttribute('fill') ?? '#ffffff';
  const body = s('g', { transform: `translate(0 ${TITLE_BAND})` }, [...copy.childNodes].map((node) => /** @type {SVGElement} */ (node)));
  copy.setAttribute('height', String(height));
  copy.setAttribute('viewBox', `0 0 ${width} ${height}`);
  copy.replaceChildren(
    s('title', {}, [title]),
    s('rect', { x: 0, y: 0, width, height, fill: background }),
    s('text', { x: 12, y: 20, 'font-size': 14, 'font-weight': 650, fill: textOn(background) === '#111111' ? '#1f2328' : '#e6edf3' }, [title]),
    body,
  );
  return copy;
}

/**
 * A standalone chart as SVG text.
 * @param {SVGSVGElement} svg
 * @param {string} [title]
 * @returns {string}
 */
export function svgText(svg, title) {
  return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(standaloneChart(svg, title));
}

/**
 * @param {SVGSVGElement} svg
 * @param {string} [title]
 * @returns {Blob}
 */
export function svgBlob(svg, title) {
  return new Blob([svgText(svg, title)], { type: 'image/svg+xml' });
}

/**
 * Renders a chart to PNG at twice its size (crisp on high-density screens and in slides), under its title.
 * @param {SVGSVGElement} svg
 * @param {string} [title]
 * @param {number} [scale]
 * @returns {Promise<Blob>}
 */
export async function pngBlob(svg, title, scale = 2) {
  const chart = standaloneChart(svg, title);
  const width = Number(chart.getAttribute('width'));
  const height = Number(chart.getAttribute('height'));
  const url = URL.createObjectURL(new Blob([new XMLSerializer().serializeToString(chart)], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.width = width;
    image.height = height;
    image.src = url;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    const context = canvas.getContext('2d');
    if (!context) throw new Error('this browser cannot draw to a canvas');
    context.scale(scale, scale);
    context.drawImage(image, 0, 0, width, height);
    return await new Promise((resolve, reject) => canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('the PNG could not be made'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}

/**
 * File name and type of each engine export target.
 * @type {Record<string, {suffix: string, type: string, label: string}>}
 */
export const TARGET_FILES = {
  'chrome-trace': { suffix: '-trace.json', type: 'application/json', label: 'Chrome trace' },
  mindformers: { suffix: '-mindformers.yaml', type: 'text/yaml', label: 'MindFormers YAML' },
  megatron: { suffix: '-megatron-args.txt', type: 'text/plain', label: 'Megatron arguments' },
  pytorch: { suffix: '-pytorch-schedule.csv', type: 'text/csv', label: 'PyTorch schedule CSV' },
  torchtitan: { suffix: '-torchtitan.toml', type: 'application/toml', label: 'torchtitan TOML' },
};
