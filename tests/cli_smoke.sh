#!/usr/bin/env bash
# The CLI's contract: exit 0 with a result, 2 with the error JSON on stdout and one line per error
# on stderr, stdin input, --help and --version.
set -euo pipefail
PPB=$1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "cli_smoke: $*" >&2; exit 1; }

request='{"model": '"$(cat "$ROOT/examples/dense-8l.json")"', "pipeline": {"pp_degree": 2, "micro_batch_num": 4}}'
out=$(printf '%s' "$request" | "$PPB" estimate -) || fail "estimate from stdin exited $?"
case "$out" in *'"ok":true'*'"stage_layers":[5,5]'* | *'"stage_layers":[5,5]'*'"ok":true'*) ;; *) fail "unexpected estimate: $out" ;; esac

status=0
err=$(printf '{"model": {"layers": []}}' | "$PPB" estimate - 2>&1 >/dev/null) || status=$?
[ "$status" -eq 2 ] || fail "invalid request exited $status, expected 2"
case "$err" in *"LAYERS_EMPTY at /model/layers"*) ;; *) fail "stderr lacks the error line: $err" ;; esac

"$PPB" --help | grep -q "usage: ppb COMMAND" || fail "--help"
"$PPB" --version | grep -q "^ppb " || fail "--version"
status=0
"$PPB" estimate /nonexistent.json 2>/dev/null || status=$?
[ "$status" -eq 2 ] || fail "missing file exited $status, expected 2"
# Every command's --help shows an example that works as written.
export PATH="$(cd "$(dirname "$PPB")" && pwd):$PATH"
for command in estimate balance search import export compare; do
  "$PPB" "$command" --help | grep -q "^ppb $command FILE|-" || fail "$command --help"
  example=$("$PPB" "$command" --help | sed -n '/^Example/,$p' | sed 1d)
  out=$(cd "$ROOT" && bash -c "$example") || fail "$command --help example exited $?"
  case "$out" in *'"ok": true'*) ;; *) fail "$command --help example: $out" ;; esac
done

# An endless input is read only up to the input cap (64 MiB + 1 byte), then refused.
status=0
out=$("$PPB" estimate /dev/zero 2>/dev/null) || status=$?
[ "$status" -eq 2 ] || fail "/dev/zero exited $status, expected 2"
case "$out" in *'"INPUT_TOO_LARGE"'*) ;; *) fail "/dev/zero: $out" ;; esac
echo "cli smoke: ok"
