#!/usr/bin/env bash
# The project's one test command (README "Run the tests"; .ci/run calls exactly this).
# Installs what the tests need (the package with its test extras, Debian's chromium for the
# real-browser tests and the report's PDF, poppler-utils to read that PDF), then lints, checks formatting, type-checks (scripts/typecheck.py: mypy on
# the packages listed in pyproject's [tool.mypy]) and runs the whole suite (the wheel test
# included). Then the floor check: every direct dependency at its declared minimum in a fresh venv
# (tests/floors.py), where the lint, the format check and the fast suite run again, and then the
# smoke check of the product (tests/smoke.py) on the runtime minimums. Any failure fails the run.
# pytest runs on parallel workers (pytest-xdist; BENCHUQ_TEST_WORKERS, default 3: much of the
# suite waits on browsers, servers and subprocesses, so a third worker helps on two cores);
# tests/conftest.py groups what must share a worker (--dist loadgroup). BENCHUQ_TEST_WORKERS=0
# runs in one process.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install --quiet --disable-pip-version-check -e ".[test]"

if ! command -v chromium >/dev/null 2>&1; then
    echo "Installing Debian's chromium for the browser tests ..."
    sudo_cmd=""
    if [ "$(id -u)" != "0" ]; then sudo_cmd="sudo"; fi
    $sudo_cmd apt-get update -qq
    $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
if ! command -v pdftoppm >/dev/null 2>&1; then
    echo "Installing poppler-utils (pdftoppm, pdftotext) for the report's PDF tests ..."
    sudo_cmd=""
    if [ "$(id -u)" != "0" ]; then sudo_cmd="sudo"; fi
    $sudo_cmd apt-get update -qq
    $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils >/dev/null
fi

workers=${BENCHUQ_TEST_WORKERS:-3}
parallel=(-n "$workers")
if [ "$workers" != "0" ]; then parallel+=(--dist loadgroup); fi

checks() {  # checks PYTHON [PYTEST ARGS]: ruff lint, ruff format check, pytest
    local py=$1 status=0
    shift
    "$py" -m ruff check . || status=$?
    "$py" -m ruff format --check . || status=$?
    "$py" -m pytest -q -p no:cacheprovider "${parallel[@]}" --durations=25 "$@" || status=$?
    if [ "$status" -eq 5 ]; then
        echo "pytest collected no tests: that is a failure, not a pass." >&2
        status=1
    fi
    return "$status"
}

# The floor venv (every dependency at its declared minimum, tests/floors.py) is built in the
# background while the type check and the main suite run. Its CPU is taken from the suite, so it
# asks nothing of the package index when the kept wheels cover it and byte-compiles nothing
# (about 1 minute and 60 s of CPU on two cores; it was 4.7 minutes and 190 s of CPU).
floors=$(mktemp -d)
floor_out=$(mktemp)
typecheck_out=$(mktemp)
trap 'rm -rf "$floors" "$floor_out" "$floor_out.err" "$typecheck_out"' EXIT
python3 tests/floors.py "$floors" >"$floor_out" 2>"$floor_out.err" &
floor_build=$!
# The type check (mypy: one core for about a minute, against the newest stubs only: old ones type
# differently) runs beside the main suite, whose workers leave CPU idle while they wait on
# browsers, servers and subprocesses; its report is printed after the suite's.
python3 scripts/typecheck.py >"$typecheck_out" 2>&1 &
typecheck=$!

status=0
checks python3 "$@" || status=$?
echo "Type check (scripts/typecheck.py):"
wait "$typecheck" || status=$?
cat "$typecheck_out"

echo "Floor check: every dependency at its declared minimum (tests/floors.py) ..."
floor_status=0
wait "$floor_build" || floor_status=$?
cat "$floor_out.err" >&2
if [ "$floor_status" -ne 0 ]; then
    echo "The floor venv could not be built (tests/floors.py exited $floor_status)." >&2
    exit 1
fi
floor_python=$(cat "$floor_out")
# On the floors, the fast suite's tests that call into the dependencies: core (statistics and
# reading: numpy, scipy, pandas, statsmodels, pyarrow, duckdb, dask, zstandard), the CLI,
# presentation (plotly, kaleido, matplotlib, ternary), the dashboard's view models, the store and
# the Python API (fsspec, s3fs), hostile inputs through the readers. Left out, because their
# answer cannot depend on a dependency's version or is proven on the floors elsewhere:
# - AppTest page tests (tests/app, tests/hostile/test_hostile_app.py): tests/smoke.py runs every
#   page under AppTest on the runtime floors below;
# - tests that read the repository's own text: ARCHITECTURE.md's map, tests/floors.py's parsing of
#   pyproject.toml, keyword-only signatures (inspect), scripts/typecheck.py's symlink tree.
floor_tests=(tests/core tests/cli tests/presentation tests/dashboard tests/package tests/hostile)
floor_skip=(tests/hostile/test_hostile_app.py tests/package/test_architecture_map.py
    tests/package/test_floors.py tests/package/test_signatures.py
    tests/package/test_typecheck_script.py)
checks "$floor_python" -m "not slow and not browser and not install" "${floor_tests[@]}" \
    "${floor_skip[@]/#/--ignore=}" || status=$?
python3 tests/floors.py --runtime "$floors" >/dev/null
# The smoke check's browser part (an app server and chromium, other processes) runs beside its
# other parts (one python process on one core): about 20 s instead of 40 on two quiet cores.
"$floor_python" tests/smoke.py browser >"$floors/smoke-browser.out" 2>&1 &
smoke_browser=$!
"$floor_python" tests/smoke.py cli pages figures blas || status=$?
wait "$smoke_browser" || status=$?
cat "$floors/smoke-browser.out"
exit "$status"
