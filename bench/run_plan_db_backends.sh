#!/bin/sh
# The plan database on a PostgreSQL server against a SQLite file, in one run (issue 19's
# benchmark; docs/BENCHMARKS.md records the output):
#   1. warm start of about 200 plans: ember-bench-warm-start cold (empty database) then warm
#      (a new process on what the cold one stored), the file and the server interleaved, $RUNS
#      rounds;
#   2. lookup latency: ember-bench-plan-db's BM_Lookup (LoadPlansByFirstOp among 1000 and 10000
#      plans, hit and miss) on both;
#   3. publish throughput: 1 and 8 forked writer processes, Publish batches of 1 and 32 plans,
#      $PUBLISH plans per writer, each run into an empty database, 3 runs each;
# then Markdown tables (bench/plan_db_backends_table.py).
#   bench/run_plan_db_backends.sh [build-dir]   (default: build, Release with EMBER_BUILD_BENCH)
#
# The server is Debian's PostgreSQL (the newest /usr/lib/postgresql/*/bin, or $PG_BIN), made
# for this run: initdb into the scratch directory, default settings (fsync and synchronous
# commit on, as a production server has them), TCP on 127.0.0.1 and a free port, trust
# authentication. PostgreSQL refuses to run as root: as root it runs as the unprivileged user
# ember-pg-test (created when missing, as the tests do). It is stopped and the scratch
# directory removed at exit. The shared-memory tier is off: a warm process would otherwise read
# the segment the cold one filled (bench/run_shm_workers.sh measures that tier).
set -eu
cd "$(dirname "$0")/.."
repo="$(pwd)"
build="$(cd "${1:-build}" && pwd)"
runs="${RUNS:-5}"
publish="${PUBLISH:-500}"
pg_bin="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}"
if [ ! -x "$pg_bin/initdb" ]; then
  echo "run_plan_db_backends.sh: no PostgreSQL server binaries (apt-get install postgresql)" >&2
  exit 1
fi
cmake --build "$build" -j2 --target ember-bench-warm-start ember-bench-plan-db
out="$(mktemp -d)"
chmod 755 "$out"
as_pg() { "$@"; }
if [ "$(id -u)" = 0 ]; then
  id ember-pg-test >/dev/null 2>&1 || useradd --system --no-create-home ember-pg-test
  as_pg() { runuser -u ember-pg-test -- "$@"; }
fi
mkdir "$out/pg"
[ "$(id -u)" = 0 ] && chown ember-pg-test "$out/pg"
cleanup() {
  as_pg "$pg_bin/pg_ctl" -D "$out/pg/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$out"
}
trap cleanup EXIT
port="$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
as_pg "$pg_bin/initdb" -D "$out/pg/data" -U ember -A trust >"$out/pg/initdb.log"
as_pg "$pg_bin/pg_ctl" -D "$out/pg/data" -l "$out/pg/server.log" -w \
  -o "-p $port -k $out/pg -c listen_addresses=127.0.0.1" start >/dev/null
server="postgresql://ember@127.0.0.1:$port/"
psql() { "$pg_bin/psql" -X -q -At -h 127.0.0.1 -p "$port" -U ember -d postgres -c "$1"; }
fresh() { psql "DROP DATABASE IF EXISTS $1" && psql "CREATE DATABASE $1"; }
"$pg_bin/postgres" --version >"$out/server-version.txt"

cd "$out"
export TMPDIR="$out"
export EMBER_SHM=off
warm_start="$build/bin/ember-bench-warm-start"
plan_db="$build/bin/ember-bench-plan-db"
file="$out/plans.db"

# 1. Warm start, the file and the server interleaved.
for i in $(seq "$runs"); do
  rm -f "$file" "$file-wal" "$file-shm"
  EMBER_PLAN_DB="$file" "$warm_start" >>sqlite-cold.jsonl
  EMBER_PLAN_DB="$file" "$warm_start" >>sqlite-warm.jsonl
  fresh warm
  EMBER_PLAN_DB="${server}warm" "$warm_start" >>postgresql-cold.jsonl
  EMBER_PLAN_DB="${server}warm" "$warm_start" >>postgresql-warm.jsonl
done

# 2. Lookup latency on both (the server's databases are filled by the benchmark itself).
fresh lookup_1000
fresh lookup_10000
EMBER_BENCH_PG="$server" "$plan_db" --benchmark_filter='BM_Lookup' --benchmark_min_time=0.2 \
  --benchmark_repetitions="$runs" --benchmark_report_aggregates_only=true \
  --benchmark_format=json >lookup.json

# 3. Publish throughput, each run into an empty database.
for writers in 1 8; do
  for batch in 1 32; do
    for i in 1 2 3; do
      rm -f "$out/publish.db"*
      "$plan_db" --publish="$writers,$publish,$batch,$out/publish.db" >>publish.jsonl
      fresh publish
      "$plan_db" --publish="$writers,$publish,$batch,${server}publish" >>publish.jsonl
    done
  done
done

/usr/bin/python3 "$repo/bench/plan_db_backends_table.py" "$out"
