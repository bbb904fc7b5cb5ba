#!/usr/bin/env bash
# Build what a release would publish and prove it: `python -m build` (wheel and sdist),
# `twine check --strict`, then each artifact installed in a fresh venv and run on samples/
# (exit 1: the samples have findings). Needs `build` and `twine` (the test extra has both).
# Usage: scripts/release_check.sh [OUT_DIR]   (default: a temporary directory)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$(mktemp -d)}"
mkdir -p "$out"
python3 -m build --outdir "$out/dist" "$root" >"$out/build.log" 2>&1 || { tail -20 "$out/build.log"; exit 1; }
python3 -m twine check --strict "$out"/dist/*
for artifact in "$out"/dist/*.whl "$out"/dist/*.tar.gz; do
  venv="$out/venv-$(basename "$artifact" | tr -c 'A-Za-z0-9\n' _)"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$artifact"
  version="$("$venv/bin/prefixlint" --version)"
  set +e
  (cd "$root" && "$venv/bin/prefixlint" check --no-cache samples/ >"$out/check.txt" 2>&1)
  status=$?
  set -e
  [ "$status" -eq 1 ] || { echo "check samples/ exited $status with $artifact"; cat "$out/check.txt"; exit 1; }
  echo "$(basename "$artifact"): installs, $version, check samples/ -> $(tail -n 3 "$out/check.txt" | head -n 1)"
done
