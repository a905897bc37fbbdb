// The page's number formatting (web/js/format.js): grouped() writes whole numbers with thousands separators
// exactly as Intl.NumberFormat('en-US', {maximumFractionDigits: 0}) does (rounding half away from zero, "-0" for a
// negative number that rounds to zero), without loading ICU's data at the page's opening. Held to Intl itself
// over the edges and a spread of values of every size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { count, grouped, num } from '../../web/js/format.js';

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
