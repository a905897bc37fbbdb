// The engine's rooms (docs/architecture.md): every source lives in a folder of the data flow, and a
// file includes only from its own room or rooms below it, so the include graph runs one way. Also
// the size rule: no engine source over 500 lines, and every command in a `*_command.cpp`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const engine = join(root, 'engine');

// Bottom to top: a room may include from itself and from the rooms before it.
export const ROOMS = ['core', 'model', 'schedule', 'plan', 'simulate', 'balance', 'search', 'io', 'interop', 'commands'];
const MAX_LINES = 500;

/**
 * @param {string} dir
 * @returns {string[]}
 */
function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

const sources = [...walk(join(engine, 'src')), ...walk(join(engine, 'include', 'ppb'))]
  .filter((f) => /\.(cpp|hpp)$/.test(f));

// The room of a file: its folder under engine/src or engine/include/ppb.
/**
 * @param {string} file
 * @returns {string | undefined}
 */
function roomOf(file) {
  const rel = relative(engine, file).split('/');
  const room = rel[0] === 'src' ? rel[1] : rel[2];
  return rel.length === (rel[0] === 'src' ? 3 : 4) ? room : undefined;
}

// The room an include names: "ppb/<room>/x.hpp" (public), "<room>/x.hpp" (internal, another room's),
// "x.hpp" (internal, the file's own room).
/**
 * @param {string} spec
 * @param {string | undefined} ownRoom
 * @returns {string | undefined}
 */
function includedRoom(spec, ownRoom) {
  const parts = spec.split('/');
  if (parts[0] === 'ppb' && parts.length === 3) return parts[1];
  if (parts.length === 2 && ROOMS.includes(parts[0])) return parts[0];
  if (parts.length === 1) return ownRoom;
  return undefined;
}

test('every engine source is in a room of the data flow', () => {
  const outside = sources.filter((f) => !ROOMS.includes(roomOf(f) ?? '')).map((f) => relative(root, f));
  assert.deepEqual(outside, [], `rooms are ${ROOMS.join(', ')}`);
});

test('no include runs from a lower room to a higher one', () => {
  const upward = [];
  for (const file of sources) {
    const own = roomOf(file);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(/^#include "([^"]+)"/gm)) {
      const room = includedRoom(spec, own);
      assert.ok(room && ROOMS.includes(room), `${relative(root, file)}: include "${spec}" names no room`);
      if (ROOMS.indexOf(room) > ROOMS.indexOf(own ?? '')) upward.push(`${relative(root, file)} (${own}) -> ${spec}`);
    }
  }
  assert.deepEqual(upward, []);
});

test(`no engine source is over ${MAX_LINES} lines`, () => {
  const long = sources
    .map((f) => /** @type {[string, number]} */ ([relative(root, f), readFileSync(f, 'utf8').split('\n').length - 1]))
    .filter(([, lines]) => lines > MAX_LINES);
  assert.deepEqual(long, []);
});

test('every command is defined in its own *_command.cpp', () => {
  const misplaced = [];
  for (const file of sources.filter((f) => f.endsWith('.cpp'))) {
    for (const [, name] of readFileSync(file, 'utf8').matchAll(/^CommandOutput run_(\w+)\(/gm))
      if (name !== 'command' && !file.endsWith(`commands/${name}_command.cpp`)) misplaced.push(`run_${name} in ${relative(root, file)}`);
  }
  assert.deepEqual(misplaced, []);
});

test('the rules above would catch a breach', () => {
  assert.equal(includedRoom('ppb/search/search.hpp', 'balance'), 'search');
  assert.ok(ROOMS.indexOf(includedRoom('ppb/search/search.hpp', 'balance') ?? '') > ROOMS.indexOf('balance'));
  assert.equal(includedRoom('field_reader.hpp', 'core'), 'core');
  assert.equal(roomOf(join(engine, 'src', 'balance', 'balance.cpp')), 'balance');
  assert.equal(roomOf(join(engine, 'src', 'balance.cpp')), undefined);
});
