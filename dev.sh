#!/usr/bin/env bash
# PPB developer entry point: installs what is missing, builds, tests, serves.
#   ./dev.sh serve [--port N]   build everything and serve build/site on http://127.0.0.1:8000
#   ./dev.sh test               build everything and run every suite; ends with "N passed, N failed"
#   ./dev.sh build              build the native engine, CLI, tests, the WASM module and the site
#   ./dev.sh lint               ESLint and tsc --checkJs over the JavaScript (web/, tools/, tests/, bench/); no build
#   ./dev.sh format             format the C++ sources in place with clang-format (.clang-format); the test checks it
#   ./dev.sh bench              run the benchmarks, native beside WASM (node, Chromium), and the page's timeline frame
#                               times; writes docs/benchmarks.md
#   ./dev.sh fuzz SECONDS       build the libFuzzer target (clang, ASan, UBSan) in build/fuzz and run it
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(pwd)
LOGS="$ROOT/build/logs"
JOBS=$(nproc 2>/dev/null || echo 2)
export NODE_PATH=/usr/share/nodejs  # Debian's emscripten needs acorn from here to link at -O1+

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }
die() { printf 'dev.sh: %s\n' "$*" >&2; exit 1; }

# Runs a command with its output in a log file; on failure shows the end of the log.
quietly() {
  local name=$1; shift
  mkdir -p "$LOGS"
  if ! "$@" >"$LOGS/$name.log" 2>&1; then
    tail -n 40 "$LOGS/$name.log" >&2
    die "$name failed (full log: build/logs/$name.log)"
  fi
}

# ---- setup: Debian packages and npm packages, only what is missing --------------------------
APT_PACKAGES=(cmake make g++ nlohmann-json3-dev libgtest-dev googletest libbenchmark-dev emscripten chromium clang-format)

install_apt() {
  local missing=()
  for pkg in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  command -v node >/dev/null 2>&1 || missing+=(nodejs)
  command -v npm >/dev/null 2>&1 || missing+=(npm)
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing Debian packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  quietly apt-update $sudo apt-get update -qq ||
    die "apt-get update failed; check the network access to Debian's archive"
  if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >"$LOGS/apt-install.log" 2>&1; then
    tail -n 20 "$LOGS/apt-install.log" >&2
    die "could not install ${missing[*]} from Debian's archive (see build/logs/apt-install.log)"
  fi
}

install_npm() {
  if [ -f node_modules/.package-lock.json ] && [ node_modules/.package-lock.json -nt package-lock.json ]; then return 0; fi
  say "installing npm packages (package-lock.json)"
  quietly npm-ci npm ci --no-audit --no-fund --loglevel=error
}

setup() {
  mkdir -p "$LOGS"
  install_apt
  install_npm
}

# ---- build ------------------------------------------------------------------------------------
build_native() {
  say "native build (build/native)"
  quietly cmake-native cmake -S . -B build/native -DPPB_WERROR=ON
  quietly build-native cmake --build build/native -j "$JOBS"
}

build_wasm() {
  say "WASM build (build/wasm) and site (build/site)"
  # emcmake's default emulator flag is rejected by node 20; run node plainly.
  quietly cmake-wasm emcmake cmake -S . -B build/wasm -DPPB_WERROR=ON -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node
  quietly build-wasm cmake --build build/wasm -j "$JOBS"
}

build_all() {
  setup
  build_native
  build_wasm
}

# The test suite again under AddressSanitizer and UndefinedBehaviorSanitizer, in its own directory.
build_asan() {
  say "sanitizer build (build/asan: ASan + UBSan)"
  quietly cmake-asan cmake -S . -B build/asan -DPPB_WERROR=ON -DPPB_SANITIZE=ON -DPPB_BUILD_BENCH=OFF
  quietly build-asan cmake --build build/asan -j "$JOBS" --target ppb_tests
}

# ---- fuzz -------------------------------------------------------------------------------------
FUZZ_PACKAGES=(clang libclang-rt-14-dev)  # clang++ and its libFuzzer runtime

# Builds fuzz/ppb_fuzz with clang in build/fuzz and runs it for $1 seconds on the corpus in
# build/fuzz/corpus (kept between runs), seeded from examples/ and tests/bad-inputs/. A crash, leak,
# sanitizer report or contract violation stops it and leaves the input in build/fuzz/artifacts/.
run_fuzz() {
  local seconds=${1:-}
  [[ "$seconds" =~ ^[0-9]+$ ]] || die "usage: ./dev.sh fuzz SECONDS"
  APT_PACKAGES+=("${FUZZ_PACKAGES[@]}")
  setup
  say "fuzz build (build/fuzz: clang, libFuzzer, ASan, UBSan)"
  quietly cmake-fuzz env CC=clang CXX=clang++ cmake -S . -B build/fuzz -DPPB_FUZZ=ON -DPPB_WERROR=ON \
    -DPPB_BUILD_TESTS=OFF -DPPB_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
  quietly build-fuzz cmake --build build/fuzz -j "$JOBS" --target ppb_fuzz
  mkdir -p build/fuzz/corpus build/fuzz/artifacts
  rm -rf build/fuzz/seeds
  quietly fuzz-seeds node fuzz/make_seeds.mjs build/fuzz/seeds
  say "fuzzing for $seconds s (log: build/logs/fuzz.log)"
  local status=0
  (cd build/fuzz && ./ppb_fuzz corpus seeds -dict=../../fuzz/ppb.dict -max_total_time="$seconds" -max_len=16384 \
    -timeout=20 -rss_limit_mb=3072 -artifact_prefix=artifacts/ -print_final_stats=1) >"$LOGS/fuzz.log" 2>&1 || status=$?
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$LOGS/fuzz.log" || true
  if [ "$status" -ne 0 ]; then
    grep -E 'ERROR|ppb_fuzz:|SUMMARY|Test unit written' "$LOGS/fuzz.log" | head -n 20 >&2
    die "the fuzzer found a problem; reproduce with: build/fuzz/ppb_fuzz build/fuzz/artifacts/<file>"
  fi
  say "no crash in $seconds s"
}

# ---- test -------------------------------------------------------------------------------------
PASSED=0
FAILED=0

# Adds a GoogleTest run's counts; a run that dies before its summary counts as one failure.
gtest_suite() {
  local name=$1; shift
  say "$name"
  local log="$LOGS/$name.log" status=0
  "$@" >"$log" 2>&1 || status=$?
  local passed failed
  passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\?\..*/\1/p' "$log" | tail -n1)
  failed=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) tests\?, listed below:/\1/p' "$log" | tail -n1)
  passed=${passed:-0}
  failed=${failed:-0}
  if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
  grep -E '^\[  FAILED  \]|Failure$' "$log" | head -n 40 || true
  echo "$name: $passed passed, $failed failed"
  PASSED=$((PASSED + passed))
  FAILED=$((FAILED + failed))
}

# Adds a node --test run's counts.
node_suite() {
  local name=$1; shift
  say "$name"
  local log="$LOGS/$name.log" status=0
  "$@" >"$log" 2>&1 || status=$?
  local passed failed
  passed=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$log" | tail -n1)
  failed=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$log" | tail -n1)
  passed=${passed:-0}
  failed=${failed:-0}
  if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
  [ "$failed" -eq 0 ] || grep -E '^not ok|error:|Error' "$log" | head -n 40 || true
  echo "$name: $passed passed, $failed failed"
  PASSED=$((PASSED + passed))
  FAILED=$((FAILED + failed))
}

# A check that is one test: passes when the command succeeds.
check_suite() {
  local name=$1; shift
  say "$name"
  if "$@" >"$LOGS/$name.log" 2>&1; then
    PASSED=$((PASSED + 1))
    echo "$name: 1 passed, 0 failed"
  else
    FAILED=$((FAILED + 1))
    tail -n 30 "$LOGS/$name.log"
    echo "$name: 0 passed, 1 failed"
  fi
}

run_tests() {
  build_all
  gtest_suite native-tests build/native/tests/ppb_tests
  gtest_suite wasm-tests node build/wasm/tests/ppb_tests.js
  build_asan
  gtest_suite asan-tests env ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    build/asan/tests/ppb_tests
  check_suite cli-smoke bash tests/cli_smoke.sh build/native/ppb
  node_suite browser-tests node --test --test-reporter=tap tests/web/
  check_suite lint node_modules/.bin/eslint .
  check_suite format clang-format --dry-run --Werror $(cxx_sources)
  node_suite typecheck node --test --test-reporter=tap tests/typecheck.test.mjs
  node_suite bad-inputs node --test --test-reporter=tap tests/bad-inputs.test.mjs
  node_suite contract-doc node --test --test-reporter=tap tests/contract-doc.test.mjs
  node_suite docs-site node --test --test-reporter=tap tests/docs-site.test.mjs
  node_suite engine-rooms node --test --test-reporter=tap tests/engine-rooms.test.mjs
  node_suite wasm-sessions node --test --test-reporter=tap tests/wasm-sessions.test.mjs
  echo
  echo "$PASSED passed, $FAILED failed"
  [ "$FAILED" -eq 0 ]
}

# The C++ sources clang-format keeps in the project's style (.clang-format).
cxx_sources() {
  git ls-files -- '*.cpp' '*.hpp' 2>/dev/null || find engine wasm tests bench fuzz -name '*.cpp' -o -name '*.hpp'
}

# ESLint (eslint.config.js) and the type checks of tests/typecheck.test.mjs, with their messages.
run_lint() {
  setup
  local status=0
  say "eslint"
  node_modules/.bin/eslint . || status=1
  for config in web/tsconfig.json web/tsconfig.worker.json tsconfig.json; do
    say "tsc -p $config"
    node_modules/.bin/tsc -p "$config" || status=1
  done
  [ "$status" -eq 0 ] && say "no lint or type errors"
  return "$status"
}

# ---- main -------------------------------------------------------------------------------------
command=${1:-help}
shift || true
case "$command" in
  build) build_all ;;
  test) run_tests ;;
  lint) run_lint ;;
  format) setup; clang-format -i $(cxx_sources) && say "formatted $(cxx_sources | wc -l) C++ sources" ;;
  fuzz) run_fuzz "$@" ;;
  serve)
    port=${PORT:-8000}
    while [ $# -gt 0 ]; do
      case "$1" in
        --port) port=$2; shift 2 ;;
        *) die "unknown option $1" ;;
      esac
    done
    build_all
    say "serving build/site on http://127.0.0.1:$port/ (Ctrl-C to stop)"
    exec node tools/serve.mjs build/site --port "$port"
    ;;
  bench)
    setup
    build_native
    build_wasm
    say "native benchmarks of the engine API (Google Benchmark, medians of 5 runs)"
    mkdir -p build/bench
    build/native/bench/ppb_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
      --benchmark_display_aggregates_only=true --benchmark_out=build/bench/gbench.json \
      --benchmark_out_format=json "$@"
    say "the same requests natively, as WASM under node and in headless Chromium (writes docs/benchmarks.md)"
    node bench/wasm-bench.mjs --gbench build/bench/gbench.json
    say "the page's timeline at 16,384 operations in headless Chromium: zoom and pan frame times"
    node bench/page-frames.mjs
    say "the page's budgets in headless Chromium: the example's first plan from the navigation, files of 10,000 to 100,002 layers dropped"
    node bench/page-budgets.mjs
    ;;
  help | -h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' ;;
  *) die "unknown command '$command'; try ./dev.sh help" ;;
esac
