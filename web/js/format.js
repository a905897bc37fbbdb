// Number formatting for the page and the charts: fixed locale (en-US) so every viewer of a link sees the same.

/** @type {Map<number, Intl.NumberFormat>} Intl's en-US formatters by decimals, made on first need: the first Intl
 *  formatter of a page loads ICU's data, 50-100 ms of the page's opening on a 2-core machine, and fixed() needs them
 *  only for numbers it does not write itself */
const intlFormats = new Map();

/**
 * A whole number's digits with thousands separators: "1234567" -> "1,234,567".
 * @param {string} digits
 * @returns {string}
 */
function withSeparators(digits) {
  let text = '';
  for (let end = digits.length; end > 0; end -= 3) text = (end > 3 ? ',' : '') + digits.slice(Math.max(0, end - 3), end) + text;
  return text;
}

/**
 * A number with exactly `decimals` decimals and thousands separators, exactly as Intl.NumberFormat('en-US',
 * {minimumFractionDigits: decimals, maximumFractionDigits: decimals}) writes it: rounded half away from zero on its
 * shortest decimal digits (the ones String() gives: 1.005 -> "1.01" at two decimals, where toFixed gives "1.00"), "-0"
 * for a negative number that rounds to zero. Written here for every finite number below 1e21; Intl writes the rest.
 * @param {number} value
 * @param {number} decimals 0 to 20
 * @returns {string}
 */
export function fixed(value, decimals) {
  const size = Math.abs(value);
  if (!(size < 1e21)) {
    let format = intlFormats.get(decimals);
    if (!format) intlFormats.set(decimals, format = new Intl.NumberFormat('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals }));
    return format.format(value);
  }
  // The shortest digits, as an integer part and a fraction ("1.5e-7" is 0.00000015).
  const text = String(size);
  const e = text.indexOf('e');
  const [whole, fraction = ''] = e < 0 ? text.split('.') : ['0', '0'.repeat(-Number(text.slice(e + 1)) - 1) + text.slice(0, e).replace('.', '')];
  let digits = whole + fraction.padEnd(decimals, '0').slice(0, decimals);
  if ((fraction[decimals] ?? '0') >= '5') {
    // Up by one in the last place kept, carrying.
    let i = digits.length - 1;
    while (i >= 0 && digits[i] === '9') --i;
    digits = i < 0 ? `1${'0'.repeat(digits.length)}` : digits.slice(0, i) + String(Number(digits[i]) + 1) + '0'.repeat(digits.length - i - 1);
  }
  const cut = digits.length - decimals;
  const written = withSeparators(digits.slice(0, cut).replace(/^0+(?=\d)/, '')) + (decimals > 0 ? `.${digits.slice(cut)}` : '');
  return value < 0 || Object.is(value, -0) ? `-${written}` : written;
}

/**
 * A number rounded to a whole one (half away from zero) with thousands separators, exactly as
 * Intl.NumberFormat('en-US', {maximumFractionDigits: 0}) writes it: "1,234", "-0" for a negative number that rounds
 * to zero (fixed() with no decimals).
 * @param {number} value
 * @returns {string}
 */
export const grouped = (value) => fixed(value, 0);

/**
 * A number with as many decimals as its size needs: 1234 -> "1,234", 12.34 -> "12.3", 0.1234 -> "0.123".
 * @param {number} value
 * @returns {string}
 */
export function num(value) {
  if (!Number.isFinite(value)) return '–';
  const size = Math.abs(value);
  if (size >= 1000) return grouped(value);
  if (size >= 100) return value.toFixed(1).replace(/\.0$/, '');
  if (size >= 10) return value.toFixed(2).replace(/\.?0+$/, '');
  if (size >= 1) return value.toFixed(2).replace(/\.?0+$/, '');
  if (size === 0) return '0';
  // Three significant digits, written out (never "3.2e-8": below 1e-6 toPrecision turns to an exponent).
  const decimals = Math.min(20, 2 - Math.floor(Math.log10(size)));
  return value.toFixed(decimals).replace(/\.?0+$/, '');
}

/** @param {number} ms @returns {string} */
export const ms = (ms) => `${num(ms)} ms`;

/** @param {number} mib @returns {string} */
export const mib = (mib) => `${num(mib)} MiB`;

/**
 * MiB with GiB beside it when large: "41,678 MiB (40.7 GiB)".
 * @param {number} value
 * @returns {string}
 */
export function mibLong(value) {
  return Math.abs(value) >= 1024 ? `${mib(value)} (${(value / 1024).toFixed(1)} GiB)` : mib(value);
}

/** @param {number} fraction @param {number} [digits] @returns {string} */
export const percent = (fraction, digits = 1) => (Number.isFinite(fraction) ? `${(fraction * 100).toFixed(digits)} %` : '–');

/**
 * A signed change: "+12.5 ms", "−3 MiB" (true minus sign).
 * @param {number} value
 * @param {(value: number) => string} unit
 * @returns {string}
 */
export function signed(value, unit) {
  if (value === 0) return unit(0);
  return `${value > 0 ? '+' : '−'}${unit(Math.abs(value))}`;
}

/** @param {number} value @returns {string} */
export const count = (value) => grouped(value);

/** How the schedules are written in prose; names the page does not know are shown as the engine gives them. */
const SCHEDULE_NAMES = /** @type {Record<string, string>} */ ({ gpipe: 'GPipe', '1f1b': '1F1B', interleaved_1f1b: 'interleaved 1F1B', zb_h1: 'ZB-H1' });

/** @param {string} schedule the engine's name @returns {string} */
export const scheduleName = (schedule) => SCHEDULE_NAMES[schedule] ?? schedule;

/**
 * An axis tick's label with as many decimals as the ticks' step needs (step 0.25 -> 2, 2.5 -> 1, 50 -> 0), so
 * neighbouring ticks never read the same however far an axis is zoomed.
 * @param {number} value
 * @param {number} step the distance between ticks
 * @returns {string}
 */
export function tickLabel(value, step) {
  if (!(step > 0) || !Number.isFinite(step)) return num(value);
  const power = Math.floor(Math.log10(step) + 1e-9);
  const mantissa = step / 10 ** power;
  const decimals = Math.max(0, Math.min(9, -power + (Math.abs(mantissa - 2.5) < 1e-6 ? 1 : 0)));
  return fixed(Math.abs(value) < step * 1e-9 ? 0 : value, decimals);
}

/**
 * An engine sentence with its numbers written as the page writes them: "within 1.4e+05 ms" -> "within 140,000 ms",
 * "388477.5 MiB" -> "388,478 MiB" (num's digits). Only numbers with an exponent, or of four digits or more, are
 * rewritten: shorter ones already read as the tables do, and stage numbers, names with digits (H100, 1F1B) and
 * versions stay as written.
 * @param {string} sentence
 * @returns {string}
 */
export function tidyNumbers(sentence) {
  return sentence.replace(/(?<![\w.,])(\d+(?:\.\d+)?[eE][+-]?\d+|\d{4,}(?:\.\d+)?)(?![\w.]*\d)(?![A-Za-z_])/g, (text) => {
    const value = Number(text);
    return Number.isFinite(value) ? num(value) : text;
  });
}
