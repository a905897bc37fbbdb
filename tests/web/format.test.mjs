// The page's number formatting (web/js/format.js): fixed() and grouped() write numbers with thousands separators
// exactly as Intl.NumberFormat('en-US') does with a fixed number of decimals (rounding half away from zero on the
// shortest digits, "-0" for a negative number that rounds to zero), without loading ICU's data at the page's
// opening. Held to Intl itself over the edges and a spread of values of every size; and no other page script
// formats through Intl or toLocaleString.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { count, fixed, grouped, num, tickLabel } from '../../web/js/format.js';

test('grouped() writes what Intl.NumberFormat en-US with no decimals writes', () => {
  const intl = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
  const values = [0, -0, 0.5, -0.5, 1.5, 2.5, -2.5, 999.4, 999.5, 1000, 1234.5, -1234.49, 1e6, 123456789.5, 2 ** 53,
    2 ** 53 + 2, 2 ** 60, 9.99e20, 1e21, -1e21, 1.5e25, NaN, Infinity, -Infinity, 0.49999999999999994, -0.3, 1e-9];
  // A spread of sizes, from a fixed seed (the same values each run).
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 20_000; ++i) {
    const size = 10 ** Math.floor(next() * 22);
    values.push((next() - 0.5) * size, Math.round(next() * size) + 0.5);
  }
  for (const value of values) assert.equal(grouped(value), intl.format(value), String(value));
  assert.equal(grouped(1234567.5), '1,234,568');
  assert.equal(grouped(-2.5), '-3');
  assert.equal(count(100_002), '100,002');
  assert.equal(num(41678.2), '41,678');
});

test('fixed() writes what Intl.NumberFormat en-US with that many decimals writes', () => {
  // Halves in the shortest digits round away from zero, whatever the binary value below them (1.005 is
  // 1.00499999999999989... in binary: toFixed(2) gives "1.00", Intl "1.01"); carries run through the separators.
  assert.equal(fixed(1.005, 2), '1.01');
  assert.equal(fixed(999.995, 2), '1,000.00');
  assert.equal(fixed(-0.04, 1), '-0.0');
  assert.equal(fixed(1.5e-7, 9), '0.000000150');
  assert.equal(tickLabel(2.5, 2.5), '2.5');
  assert.equal(tickLabel(1250, 250), '1,250');
  let seed = 777;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let decimals = 0; decimals <= 20; ++decimals) {
    const intl = new Intl.NumberFormat('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
    const values = [0, -0, 0.5, -0.5, 0.05, 0.005, 1.005, 2.675, 9.995, 99.95, 1e-7, 1.5e-7, -3e-12, 2 ** 53, 9.99e20, 1e21, 1.5e25, NaN, Infinity];
    for (let i = 0; i < 2_000; ++i) {
      const size = 10 ** Math.floor(next() * 30 - 9);
      // Values of every size, and values whose digits end in a 5 just past the decimals kept.
      values.push((next() - 0.5) * size, Number(((next() - 0.5) * size).toFixed(Math.min(20, decimals + 1)).replace(/\d$/, '5')));
    }
    for (const value of values) assert.equal(fixed(value, decimals), intl.format(value), `${value} at ${decimals} decimals`);
  }
});

test('no page script formats numbers through Intl or toLocaleString but format.js', () => {
  // The first Intl formatter of a page loads ICU's data: 50-100 ms of the page's opening on a 2-core machine.
  const root = new URL('../../web/', import.meta.url);
  const files = ['app.js', 'worker.js', ...readdirSync(new URL('js/', root), { recursive: true }).filter((f) => String(f).endsWith('.js')).map((f) => `js/${f}`)];
  const users = files.filter((f) => f !== 'js/format.js' && /\bIntl\.|toLocaleString\(/.test(readFileSync(new URL(f, root), 'utf8')));
  assert.deepEqual(users, []);
});
