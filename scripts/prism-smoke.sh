#!/usr/bin/env bash
# `npm run prism:smoke`: a short flow through Stoplight Prism's validating proxy in front of a freshly
# started server (embedded database, demo seed). Prism checks every request and answer against the
# document the server serves; any violation (reported in Prism's `sl-violations` header) or an
# unexpected status fails the script. CI runs it (issue 19: the document cannot drift from the code).
set -euo pipefail

cd "$(dirname "$0")/.."

TMP="$(mktemp -d "${TMPDIR:-/tmp}/prism-smoke.XXXXXX")"
SERVER_PID=""
PRISM_PID=""
cleanup() {
  [[ -n "$PRISM_PID" ]] && kill "$PRISM_PID" 2>/dev/null || true
  [[ -n "$SERVER_PID" ]] && kill "$SERVER_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT

free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }

API_PORT="$(free_port)"
PRISM_PORT="$(free_port)"
# What `npm start` runs, started directly: killing npm left its node child running (a server per CI
# run, each busy enough to make the speed guard wait for a quiet machine).
PORT="$API_PORT" HOST=127.0.0.1 DATA_DIR="$TMP/data" LOG_LEVEL=warn node --import tsx src/server.ts >"$TMP/server.log" 2>&1 &
SERVER_PID=$!
# Up to 3 minutes, as the tour waits: CI starts this beside the tours and the topology (initdb, six
# processes), and a first start migrates and seeds the embedded database (60 s was once not enough).
for _ in $(seq 1 360); do
  grep -q '^  export BASE=' "$TMP/server.log" && break
  sleep 0.5
done
line="$(grep -m1 '^  export BASE=' "$TMP/server.log" || true)"
if [[ -z "$line" ]]; then
  echo "prism-smoke: the server did not start in 3 minutes" >&2
  cat "$TMP/server.log" >&2
  exit 1
fi
eval "$line"

curl -sf "$BASE/v1/openapi.json" >"$TMP/openapi.json"
npx --no prism proxy "$TMP/openapi.json" "$BASE" --port "$PRISM_PORT" --errors false -v warn >"$TMP/prism.log" 2>&1 &
PRISM_PID=$!
PROXY="http://127.0.0.1:$PRISM_PORT"
for _ in $(seq 1 120); do
  curl -s -o /dev/null "$PROXY/healthz" && break
  sleep 0.5
done

FAILED=0
# call <expected status> <method> <path> [curl arguments...]: through Prism, no violation allowed.
call() {
  local expected="$1" method="$2" path="$3"
  shift 3
  local status violations
  status="$(curl -s -o "$TMP/body" -D "$TMP/headers" -w '%{http_code}' -X "$method" "$PROXY$path" "$@")"
  violations="$(grep -i '^sl-violations:' "$TMP/headers" | cut -d' ' -f2- | tr -d '\r' || true)"
  # An answer must always match the document; a request may break it only where the flow means to
  # (an expected 4xx: no key, a bad parameter).
  if [[ -n "$violations" && "$expected" -ge 400 ]]; then
    violations="$(jq -c '[.[] | select(.location[0] != "request")] | select(length > 0)' <<<"$violations")"
  fi
  if [[ "$status" != "$expected" || -n "$violations" ]]; then
    echo "FAIL $method $path: $status (expected $expected) ${violations:+violations: $violations}"
    head -c 400 "$TMP/body"
    echo
    FAILED=1
  else
    echo "ok   $method $path: $status"
  fi
}

json=(-H 'Content-Type: application/json')
call 200 GET /healthz
call 200 GET /v1/me -H "X-API-Key: $SK"
call 200 GET /v1/rate-limits -H "X-API-Key: $PK"
call 401 GET /v1/me
call 200 GET '/v1/properties?pageSize=2&city=M%C3%A1laga' -H "X-API-Key: $PK"
property="$(curl -sf "$BASE/v1/properties?pageSize=1" -H "X-API-Key: $PK" | jq -r '.data[0].id')"
call 200 GET "/v1/properties/$property" -H "X-API-Key: $PK"
call 404 GET /v1/properties/prop_0000000000000000000000 -H "X-API-Key: $PK"
call 200 GET /v1/portal -H "X-API-Key: $PK"
call 200 GET /v1/booking/agents -H "X-API-Key: $PK"
call 201 POST /v1/leads -H "X-API-Key: $PK" "${json[@]}" -H 'Idempotency-Key: prism-smoke-lead-0001' \
  -d "{\"firstName\":\"Prism\",\"phone\":\"+34600999888\",\"propertyId\":\"$property\",\"message\":\"Is it still available?\"}"
call 200 GET '/v1/contacts?pageSize=5' -H "X-API-Key: $SK"
call 200 GET /v1/events -H "X-API-Key: $SK"
call 200 GET /v1/pipelines -H "X-API-Key: $SK"
call 200 GET '/v1/deals?pageSize=5' -H "X-API-Key: $SK"
call 403 GET /v1/contacts -H "X-API-Key: $PK"
call 400 GET '/v1/properties?pageSize=abc' -H "X-API-Key: $PK"
call 200 GET /admin/v1/organizations -H "Authorization: Bearer $ADMIN"

if [[ "$FAILED" != 0 ]]; then
  echo "prism-smoke: answers that Prism found out of contract (above); its log:" >&2
  tail -n 40 "$TMP/prism.log" >&2
  exit 1
fi
echo "prism-smoke: every answer matched the document"
