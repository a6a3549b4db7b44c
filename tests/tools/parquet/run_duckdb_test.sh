#!/usr/bin/env bash
# Runs duckdb_test.mjs with node's test runner, against a real DuckDB: npm's
# @duckdb/node-api, which tools/test.sh installs into
# third_party/duckdb/node_modules of the workspace (found here through the
# runfile link of third_party/duckdb/package.json). Without node or the
# package the test says so and is skipped (a JUnit <skipped/> case).
set -euo pipefail

runfiles="${TEST_SRCDIR}/${TEST_WORKSPACE}"
package_json=$(readlink -f "$runfiles/third_party/duckdb/package.json")
modules="$(dirname "$package_json")/node_modules"

skip() {
  echo "SKIPPED: $1"
  if [[ -n "${XML_OUTPUT_FILE:-}" ]]; then
    cat > "$XML_OUTPUT_FILE" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="duckdb_test" tests="1" skipped="1">
<testcase name="duckdb_test" classname="parquet"><skipped message="$1"/></testcase>
</testsuite></testsuites>
XML
  fi
  exit 0
}

command -v node > /dev/null || skip "node is not installed (tools/test.sh installs what the tests need)"
[[ -d "$modules/@duckdb/node-api" ]] ||
  skip "@duckdb/node-api is not installed in third_party/duckdb (tools/test.sh installs it with npm)"

export ITTC_DUCKDB_MODULES="$modules"
export ITTC_RUNFILES="$runfiles"
cd "$TEST_TMPDIR"
exec node --test --test-reporter=spec "$runfiles/tests/tools/parquet/duckdb_test.mjs"
