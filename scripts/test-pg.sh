#!/usr/bin/env bash
# `npm run test:pg [-- <vitest arguments>]`: the test suite against the local PostgreSQL and Redis
# (the CI's second leg) instead of the embedded PGlite.
#
# Creates a fresh database agency_test_<pid> on 127.0.0.1:5432 as postgres, runs vitest with
# TEST_DATABASE_URL / TEST_REDIS_URL pointing at it, drops the database on exit (also on failure or
# Ctrl-C), and exits with vitest's status.
set -euo pipefail

cd "$(dirname "$0")/.."

PGHOST_ADDR=127.0.0.1
PGPORT_NUM=5432
DB_NAME="agency_test_$$"

drop_database() {
  dropdb --if-exists -h "$PGHOST_ADDR" -p "$PGPORT_NUM" -U postgres "$DB_NAME" >/dev/null 2>&1 ||
    echo "test-pg: could not drop database $DB_NAME (drop it by hand)" >&2
}

createdb -h "$PGHOST_ADDR" -p "$PGPORT_NUM" -U postgres "$DB_NAME"
trap drop_database EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "test-pg: database $DB_NAME on $PGHOST_ADDR:$PGPORT_NUM, Redis on 127.0.0.1:6379"
status=0
TEST_DATABASE_URL="postgres://postgres@$PGHOST_ADDR:$PGPORT_NUM/$DB_NAME" \
  TEST_REDIS_URL="redis://127.0.0.1:6379" \
  npx --no vitest run "$@" || status=$?
exit "$status"
