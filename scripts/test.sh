#!/usr/bin/env bash
# The whole test suite: lint and format check, type check, then unit, integration (SQLite and
# PostgreSQL) and e2e tests, then the browser tests (the web app in headless Chromium).
# Run through scripts/with-node.sh (npm test does that).
# TEST_QUICK=1 (npm run test:quick) is the inner loop without PostgreSQL or Redis: unit, e2e and
# package tests on SQLite only, skipping the suites that need either service; CI runs npm test.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
node --import tsx test/support/preflight.ts
# biome.json decides the files (src, test, packages, bench, scripts, examples, web); npm run format fixes.
biome check
tsc --noEmit
tsc -p web --noEmit
tsc -p web/tsconfig.tests.json --noEmit
# The dependency rules: no cycle between files, no layer imported upwards (.dependency-cruiser.cjs).
depcruise --output-type err src web/src packages/client/src
# Two files at a time: this machine has two cores, and each file starts its own app(s).
# A test that hangs (an open stream nobody ends) fails after TEST_TIMEOUT_MS instead of holding the
# suite until CI's limit, and a file whose handles stay open after its tests is ended.
# `taskboard-source`: `@taskboard/client` resolves to its TypeScript source here, no build needed.
run_tests() {
  node --import tsx --conditions=taskboard-source --test --test-concurrency="${TEST_CONCURRENCY:-2}" --test-reporter=spec \
    --test-timeout="${TEST_TIMEOUT_MS:-600000}" --test-force-exit "$@"
}
browser_tests() {
  # The browser tests serve the built app: build it when its sources changed.
  bash scripts/build-web.sh
  if [ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then
    echo "test.sh: Chromium is missing at ${CHROMIUM_PATH:-/usr/bin/chromium}: the browser tests cannot run (apt-get install -y chromium)" >&2
    exit 1
  fi
  # One file at a time: each drives a browser, which wants both cores.
  TEST_CONCURRENCY=1 run_tests "$@"
}
# The session slice: e2e files whose every call goes again by a session cookie and its CSRF token
# instead of the key (E2E_AUTH=session, docs/people.md), as the web app sends them: walkthroughs
# of a working day that touch 34 operations between them, kept small so the second pass stays short.
SESSION_SLICE='test/e2e/session-slice.test.ts test/e2e/day-in-the-life.test.ts test/e2e/card-discussion-walkthrough.test.ts'
session_slice() {
  # shellcheck disable=SC2086
  E2E_AUTH=session run_tests $SESSION_SLICE
}
if [ -n "${TEST_FILES:-}" ]; then
  case "$TEST_FILES" in
    *test/browser/*) bash scripts/build-web.sh ;;
  esac
  # The file list is unquoted on purpose: files or globs, split on spaces, that node's test runner expands.
  # shellcheck disable=SC2086
  run_tests $TEST_FILES
elif [ "${TEST_QUICK:-}" = 1 ]; then
  # The fuzz's full 10,000 requests take minutes; the inner loop sends a tenth (CI sends them all).
  export FUZZ_RUNS="${FUZZ_RUNS:-1000}"
  run_tests 'test/unit/**/*.test.ts' 'test/e2e/**/*.test.ts' 'packages/*/test/**/*.test.ts'
  session_slice
else
  run_tests 'test/unit/**/*.test.ts' 'test/integration/**/*.test.ts' 'test/e2e/**/*.test.ts' 'packages/*/test/**/*.test.ts'
  session_slice
  browser_tests 'test/browser/**/*.test.ts'
fi
