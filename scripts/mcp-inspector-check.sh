#!/usr/bin/env bash
# Starts the service on an embedded in-memory database, creates an organization with a property and
# a secret key through the admin API, then runs the official MCP Inspector CLI against POST /mcp:
# tools/list must show exactly the eleven read-only tools, tools/call get_summary and search_properties
# must answer for that organization, and the same call without the key must fail.
# Usage: scripts/mcp-inspector-check.sh [port]   (.ci/run runs it; npx fetches the inspector once)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"
# A free port unless one is given.
PORT="${1:-$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')}"
BASE="http://127.0.0.1:$PORT"
TOKEN="inspector-check-admin-token-$$"
INSPECTOR="@modelcontextprotocol/inspector@0.15.0"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcp-inspector.XXXXXX")"
SERVER_PID=""

cleanup() {
  if [[ -n "$SERVER_PID" ]]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

PORT="$PORT" HOST=127.0.0.1 DATA_DIR=memory:// DEMO_SEED=false RUN_WORKER=false ADMIN_TOKEN="$TOKEN" \
  LOG_LEVEL=warn node --import tsx src/server.ts >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 120); do
  curl -fs "$BASE/readyz" >/dev/null 2>&1 && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; echo "server exited" >&2; exit 1; }
  sleep 0.5
done
curl -fs "$BASE/readyz" >/dev/null || { cat "$WORK/server.log" >&2; echo "server not ready" >&2; exit 1; }

adminPost() {
  curl -fsS -X POST "$BASE$1" -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d "$2"
}
field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).data[process.argv[1]]))' "$1"; }

ORG_ID="$(adminPost /admin/v1/organizations '{"name":"Inspector Realty","plan":"BUSINESS"}' | field id)"
adminPost "/admin/v1/organizations/$ORG_ID/properties" '{"code":"INS-1","title":"Inspector flat","description":"Checked by the MCP Inspector","transactionType":"SALE","type":"APARTMENT","price":123000,"currency":"EUR","city":"Valencia","bedrooms":2,"bathrooms":1}' >/dev/null
KEY="$(adminPost "/admin/v1/organizations/$ORG_ID/api-keys" '{"type":"secret"}' | field key)"

inspector() {
  MCP_BEARER_URL="$BASE/mcp" MCP_BEARER_TOKEN="$1" NODE_OPTIONS="--import $ROOT/scripts/mcp-bearer-fetch.mjs" \
    npx -y "$INSPECTOR" --cli "$BASE/mcp" "${@:2}"
}

echo "MCP Inspector ($INSPECTOR): tools/list"
inspector "$KEY" --method tools/list >"$WORK/tools.json"
node -e '
  const { tools } = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  // Feature-list order (src/features.ts), as test/mcp/mcp-tools.test.ts expects it.
  const expected = ["get_summary", "search_contacts", "get_contact_timeline", "search_properties", "get_property",
    "search_listings",
    "match_properties_for_contact", "list_pending_tasks", "list_appointments", "list_pipelines", "list_deals",
    "get_contact", "list_emails"];
  const names = tools.map((t) => t.name);
  if (JSON.stringify(names) !== JSON.stringify(expected)) throw new Error(`tools/list: ${names.join(", ")}`);
  for (const t of tools) {
    if (t.annotations?.readOnlyHint !== true || t.annotations?.idempotentHint !== true)
      throw new Error(`${t.name} is not annotated read-only and idempotent`);
    if (t.inputSchema?.type !== "object" || t.outputSchema?.type !== "object")
      throw new Error(`${t.name} lacks its schemas`);
  }
  console.log(`tools/list: ${names.length} read-only tools`);
' "$WORK/tools.json"

echo "MCP Inspector: tools/call get_summary and search_properties"
inspector "$KEY" --method tools/call --tool-name get_summary >"$WORK/summary.json"
inspector "$KEY" --method tools/call --tool-name search_properties --tool-arg city=valencia >"$WORK/search.json"
node -e '
  const fs = require("fs");
  const summary = JSON.parse(fs.readFileSync(process.argv[1], "utf8")).structuredContent;
  if (summary?.organization?.id !== process.argv[3]) throw new Error(`get_summary: ${JSON.stringify(summary)}`);
  const search = JSON.parse(fs.readFileSync(process.argv[2], "utf8")).structuredContent;
  if (search?.meta?.total !== 1 || search.data[0].title !== "Inspector flat")
    throw new Error(`search_properties: ${JSON.stringify(search)}`);
  console.log(`get_summary: ${summary.organization.name} (${summary.organization.plan}); search_properties: 1 property`);
' "$WORK/summary.json" "$WORK/search.json" "$ORG_ID"

echo "MCP Inspector without the key: must fail"
if inspector "" --method tools/list >"$WORK/refused.txt" 2>&1; then
  cat "$WORK/refused.txt" >&2
  echo "the MCP endpoint answered without a key" >&2
  exit 1
fi
grep -q 'UNAUTHORIZED' "$WORK/refused.txt" || { cat "$WORK/refused.txt" >&2; echo "expected 401 UNAUTHORIZED" >&2; exit 1; }
echo "refused without a key (401 UNAUTHORIZED). MCP Inspector check passed."
