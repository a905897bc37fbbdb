// Colours of the charts, light and dark. Series colours are the Okabe-Ito palette (Okabe & Ito 2008), chosen to
// stay distinct for the common colour-vision deficiencies; line series for many stages use Paul Tol's "bright"
// scheme with dash patterns once colours repeat. Charts take a Palette, so exported SVGs carry their colours.

/**
 * @typedef {{name: 'light' | 'dark', background: string, text: string, muted: string, grid: string, axis: string,
 *   forward: string, backward: string, weight: string, recompute: string, send: string,
 *   weights: string, grads: string, optimizer: string, otherStatic: string, activation: string, reserved: string,
 *   limit: string, over: string, bubble: string, bubbleStripe: string, highlight: string, front: string,
 *   infeasible: string, series: string[], font: string}} Palette
 */

/** The charts' font (their text is measured in it, js/svg.js). */
export const CHART_FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
const FONT = CHART_FONT;

/** @type {Palette} */
export const LIGHT = {
  name: 'light',
  background: '#ffffff',
  text: '#1f2328',
  muted: '#59636e',
  grid: '#e6e9ed',
  axis: '#8c959f',
  forward: '#0072B2',
  backward: '#E69F00',
  weight: '#009E73',
  recompute: '#CC79A7',
  send: '#8c959f',
  // Memory's own colours (Paul Tol's muted scheme), none of them a compute colour above: orange is the backward pass
  // wherever it appears, never activations.
  weights: '#332288',
  grads: '#88CCEE',
  optimizer: '#999933',
  otherStatic: '#7d8590',
  activation: '#882255',
  reserved: '#c9d1d9',
  limit: '#D55E00',
  over: '#D55E00',
  bubble: '#f3f4f6',
  bubbleStripe: '#dde1e6',
  highlight: '#1f2328',
  front: '#0072B2',
  infeasible: '#D55E00',
  series: ['#4477AA', '#EE6677', '#228833', '#CCBB44', '#66CCEE', '#AA3377', '#BBBBBB', '#000000'],
  font: FONT,
};

/** @type {Palette} */
export const DARK = {
  name: 'dark',
  background: '#16191e',
  text: '#e6edf3',
  muted: '#9ba5b0',
  grid: '#2a3038',
  axis: '#6e7781',
  forward: '#3c9de0',
  backward: '#f0b429',
  weight: '#21b48a',
  recompute: '#e392c4',
  send: '#8b949e',
  weights: '#7b6fd6',
  grads: '#a6dcf5',
  optimizer: '#c2c25a',
  otherStatic: '#8b949e',
  activation: '#d0608c',
  reserved: '#48515c',
  limit: '#ff7b3d',
  over: '#ff7b3d',
  bubble: '#1d2127',
  bubbleStripe: '#2b3139',
  highlight: '#ffffff',
  front: '#5fb3ec',
  infeasible: '#ff7b3d',
  series: ['#6699cc', '#EE6677', '#44aa55', '#CCBB44', '#66CCEE', '#cc55aa', '#BBBBBB', '#ffffff'],
  font: FONT,
};

/**
 * The theme in force: the person's choice, or the system's when 'auto'.
 * @param {'auto' | 'light' | 'dark'} choice
 * @returns {Palette}
 */
export function paletteFor(choice) {
  if (choice === 'light') return LIGHT;
  if (choice === 'dark') return DARK;
  return globalThis.matchMedia?.('(prefers-color-scheme: dark)').matches ? DARK : LIGHT;
}

/**
 * Black or white, whichever reads better on the given fill (WCAG relative luminance).
 * @param {string} hex '#rrggbb'
 * @returns {string}
 */
export function textOn(hex) {
  const channel = (/** @type {number} */ at) => {
    const c = parseInt(hex.slice(at, at + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return luminance > 0.35 ? '#111111' : '#ffffff';
}
