// The page's JavaScript type-checks: `tsc --noEmit --checkJs` over web/ (JSDoc types), the modules with the DOM
// library and the classic worker with the WebWorker library (web/tsconfig.json, web/tsconfig.worker.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './helpers.mjs';

const tsc = join(repoRoot, 'node_modules', '.bin', 'tsc');

for (const config of ['web/tsconfig.json', 'web/tsconfig.worker.json']) {
  test(`tsc -p ${config} finds no type errors`, () => {
    const run = spawnSync(tsc, ['-p', config], { cwd: repoRoot, encoding: 'utf8' });
    assert.equal(run.error, undefined, `could not run ${tsc}: ${run.error}`);
    assert.equal(run.status, 0, `tsc -p ${config}:\n${run.stdout}${run.stderr}`);
  });
}
