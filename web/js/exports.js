// Exports: each chart as a standalone SVG or a PNG, and the engine's outputs (result JSON, Chrome trace,
// MindFormers YAML, Megatron arguments) as files. Charts carry their colours as attributes, so the SVG looks the
// same outside the page; the page-only attributes (tooltips, focus) are dropped.

import { SVG_NS } from './svg.js';

const PAGE_ONLY = ['data-tip', 'tabindex', 'role', 'aria-label', 'aria-valuenow', 'aria-valuemin', 'aria-valuemax', 'aria-valuetext', 'aria-orientation', 'class'];

/**
 * A standalone copy of a chart.
 * @param {SVGSVGElement} svg
 * @returns {string}
 */
export function svgText(svg) {
  const copy = /** @type {SVGSVGElement} */ (svg.cloneNode(true));
  copy.setAttribute('xmlns', SVG_NS);
  copy.removeAttribute('style');
  for (const node of [copy, ...copy.querySelectorAll('*')]) {
    for (const name of PAGE_ONLY) if (node !== copy || name !== 'role') node.removeAttribute(name);
  }
  return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(copy);
}

/**
 * @param {SVGSVGElement} svg
 * @returns {Blob}
 */
export function svgBlob(svg) {
  return new Blob([svgText(svg)], { type: 'image/svg+xml' });
}

/**
 * Renders a chart to PNG at twice its size (crisp on high-density screens and in slides).
 * @param {SVGSVGElement} svg
 * @param {number} [scale]
 * @returns {Promise<Blob>}
 */
export async function pngBlob(svg, scale = 2) {
  const width = Number(svg.getAttribute('width'));
  const height = Number(svg.getAttribute('height'));
  const url = URL.createObjectURL(svgBlob(svg));
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
};
