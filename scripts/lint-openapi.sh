#!/usr/bin/env bash
# `npm run lint:openapi [-- <file>]`: exports /v1/openapi.json (or takes <file>) and lints it with Redocly
# (redocly.yaml, .redocly.lint-ignore.yaml) and Spectral (.spectral.yaml). Fails on any error or warning of
# either (issue 19).
set -euo pipefail

cd "$(dirname "$0")/.."
TMP="$(mktemp -d "${TMPDIR:-/tmp}/lint-openapi.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

document="${1:-}"
if [[ -z "$document" ]]; then
  document="$TMP/openapi.json"
  npm run -s openapi:export -- "$document" >/dev/null
fi

echo "Redocly (redocly.yaml, .redocly.lint-ignore.yaml):"
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
# Redocly reads its ignore file beside the config and keys it by the document's path from there
# (`openapi.json`): lint a copy of the document beside copies of both, whatever <file> is called.
cp redocly.yaml .redocly.lint-ignore.yaml "$TMP/"
[[ "$document" -ef "$TMP/openapi.json" ]] || cp "$document" "$TMP/openapi.json"
redocly=(npx --no @redocly/cli lint --config "$TMP/redocly.yaml")
"${redocly[@]}" --format json "$TMP/openapi.json" >"$TMP/redocly.json" 2>/dev/null || true
totals="$(jq -c '.totals' "$TMP/redocly.json")"
echo "  $totals"
if [[ "$(jq '.totals.errors + .totals.warnings' "$TMP/redocly.json")" != 0 ]]; then
  "${redocly[@]}" "$TMP/openapi.json" >&2 || true
  echo "Redocly reported problems (above): 0 errors and 0 warnings are required." >&2
  exit 1
fi

echo "Spectral (.spectral.yaml):"
npx --no spectral lint --ruleset .spectral.yaml --fail-severity warn "$document"
