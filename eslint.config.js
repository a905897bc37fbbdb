// ESLint over the project's JavaScript: the page (web/), the tools, the tests and the benchmarks. `./dev.sh lint`
// runs it; `./dev.sh test` counts it as a suite. ESLint's recommended rules, plus a few that catch real mistakes
// here: unused names, loose equality, implicit globals in the classic scripts, `let` that is never reassigned.
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['build/', 'node_modules/', 'engine/', 'wasm/', 'fuzz/'] },
  { files: ['web/**/*.js', 'tools/**/*.mjs', 'tests/**/*.mjs', 'bench/**/*.mjs', 'eslint.config.js'] },
  js.configs.recommended,
  {
    rules: {
      'no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none' }],
      eqeqeq: ['error', 'always'],
      'no-implicit-globals': ['error', { lexicalBindings: true }],
      'prefer-const': 'error',
      'no-var': 'error',
      'no-shadow-restricted-names': 'error',
      'no-throw-literal': 'error',
    },
  },
  // The page's modules, and the bench page's.
  { files: ['web/**/*.js', 'bench/bench-page.mjs'], languageOptions: { globals: globals.browser } },
  // The worker is a classic script (the engine's script is not a module) with the WebWorker globals.
  { files: ['web/worker.js'], languageOptions: { sourceType: 'script', globals: globals.worker } },
  // Node programs. The browser tests also hold functions that run in the page (page.evaluate), hence the DOM.
  { files: ['tools/**/*.mjs', 'tests/**/*.mjs', 'bench/**/*.mjs', 'eslint.config.js'], ignores: ['bench/bench-page.mjs'],
    languageOptions: { globals: globals.node } },
  { files: ['tests/web/**/*.mjs', 'bench/wasm-bench.mjs', 'bench/page-frames.mjs', 'bench/page-budgets.mjs'], languageOptions: { globals: globals.browser } },
];
