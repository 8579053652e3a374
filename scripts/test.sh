#!/usr/bin/env bash
# The project's one test command (README "Run the tests"; .ci/run calls exactly this).
# Installs what the tests need (the package with its test extras, Debian's chromium for the
# real-browser tests), then lints, checks formatting, type-checks (scripts/typecheck.py: mypy on
# the packages listed in pyproject's [tool.mypy]) and runs the whole suite.
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

python3 -m ruff check .
python3 -m ruff format --check .
python3 scripts/typecheck.py

status=0
python3 -m pytest -q -p no:cacheprovider "$@" || status=$?
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests: that is a failure, not a pass." >&2
    exit 1
fi
exit "$status"
