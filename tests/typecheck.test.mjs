// The project's JavaScript type-checks: `tsc --noEmit --checkJs` (JSDoc types) over the page's modules with the DOM
// library (web/tsconfig.json), its classic worker with the WebWorker library (web/tsconfig.worker.json), and the
// node programs, tools/, tests/ and bench/ (tsconfig.json). One test per configuration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const tsc = join(repoRoot, 'node_modules', '.bin', 'tsc');

for (const config of ['web/tsconfig.json', 'web/tsconfig.worker.json', 'tsconfig.json']) {
  test(`tsc -p ${config} finds no type errors`, () => {
    const run = spawnSync(tsc, ['-p', config], { cwd: repoRoot, encoding: 'utf8' });
    assert.equal(run.error, undefined, `could not run ${tsc}: ${run.error}`);
    assert.equal(run.status, 0, `tsc -p ${config}:\n${run.stdout}${run.stderr}`);
  });
}
