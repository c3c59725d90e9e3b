#!/usr/bin/env bash
# The whole test suite: type check, then unit, integration (SQLite and PostgreSQL) and e2e tests,
# then the browser tests (the web app in headless Chromium). Run through scripts/with-node.sh (npm test does that).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
node --import tsx test/support/preflight.ts
tsc --noEmit
tsc -p web --noEmit
# Two files at a time: this machine has two cores, and each file starts its own app(s).
# A test that hangs (an open stream nobody ends) fails after TEST_TIMEOUT_MS instead of holding the
# suite until CI's limit, and a file whose handles stay open after its tests is ended.
run_tests() {
  node --import tsx --test --test-concurrency="${TEST_CONCURRENCY:-2}" --test-reporter=spec \
    --test-timeout="${TEST_TIMEOUT_MS:-600000}" --test-force-exit "$@"
}
browser_tests() {
  # The browser tests serve the built app: build it when its sources changed.
  bash scripts/build-web.sh
  if [ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then
    echo "test.sh: Chromium is missing at ${CHROMIUM_PATH:-/usr/bin/chromium}: the browser tests are skipped (apt-get install -y chromium)" >&2
  fi
  # One file at a time: each drives a browser, which wants both cores.
  TEST_CONCURRENCY=1 run_tests "$@"
}
if [ -n "${TEST_FILES:-}" ]; then
  case "$TEST_FILES" in
    *test/browser/*) bash scripts/build-web.sh ;;
  esac
  # shellcheck disable=SC2086
  run_tests $TEST_FILES
else
  run_tests 'test/unit/**/*.test.ts' 'test/integration/**/*.test.ts' 'test/e2e/**/*.test.ts' 'packages/*/test/**/*.test.ts'
  browser_tests 'test/browser/**/*.test.ts'
fi
