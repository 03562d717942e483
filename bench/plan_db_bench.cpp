// Micro-measurements of the plan database (issue 5, "Benchmark"); docs/BENCHMARKS.md records
// them, bench/run_plan_db.sh runs them.
//   * BM_Lookup: PlanRepository::LoadPlansByFirstOp on a database of N plans (one per first
//     op), for a first op that has a plan (hit) and one that has none (miss).
//   * BM_DecodeValidate: what PersistentPlans::Load does to each row it reads (DecodeOperations,
//     DecodeBlockOptimization, the triggers, ValidatePlan) for the seed expression's, softmax's
//     and layernorm's plan, with the plan's blob sizes as counters.
//   * BM_LoadRow: the real decoding of a loaded row, DecodePlanParts alone (`_parts`) and
//     DecodeStoredPlan with its key check (`_checked`, issue 40): their difference is the check.
//   * BM_TierLookup: the plans of one first op, from each tier, as the engine gets them:
//     memory (the in-memory index), shm (SharedPlanTier::Lookup + DecodePlan) and sqlite
//     (LoadPlansByFirstOp + decode + validate), among 1000 first ops, for the layernorm plan;
//     shm_raw and sqlite_raw: the same without decoding.
//   * `--publish=W,M,B[,LOCATION]` (no Google Benchmark): W forked writer processes each publish
//     M distinct plans in Publish batches of B into one database — a scratch file, or LOCATION
//     (an empty PostgreSQL database: bench/run_plan_db_backends.sh makes one per run); prints
//     plans/s as one JSON line.
//   * With EMBER_BENCH_PG set to a server URI without its database name
//     ("postgresql://user@127.0.0.1:5432/"), BM_Lookup also runs on that server, in the empty
//     databases lookup_1000 and lookup_10000 that the caller created (issue 19).
//
// Every plan is real: the engine runs the seed expression, softmax and layernorm with the real
// fusers into a scratch database, and the rows it published are read back. The lookup and
// publish databases reuse those blobs under made-up keys, so rows have real sizes. Everything
// lives in a mkdtemp directory, removed at exit. The plans, the scratch directory and the
// made-up keys: plan_db_bench_plans.h.
#include <benchmark/benchmark.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "bench/plan_db_bench_plans.h"
#include "engine/core/config.h"
#include "engine/stream/plan_index.h"
#include "store/codec/plan_codec.h"
#include "store/repository/plan_repository.h"
#include "store/repository/plan_row_check.h"
#include "store/repository/sql_session.h"
#include "store/shm/shared_plan_tier.h"
#include "store/sqlite/sqlite_database.h"
#include "store/sqlite/sqlite_plan_repository.h"
#include "store/sqlite/sqlite_statement.h"

namespace {

using namespace ember;
using plan_db_bench::AllRealPlans;
using plan_db_bench::BenchEnvironment;
using plan_db_bench::Check;
using plan_db_bench::in_child;
using plan_db_bench::Mix;
using plan_db_bench::OpenLocation;
using plan_db_bench::OpenRepository;
using plan_db_bench::PublishPlans;
using plan_db_bench::RealPlans;
using plan_db_bench::ScratchFile;
using plan_db_bench::ServerPrefix;

struct LookupDb {
  std::unique_ptr<PlanRepository> repo;
  EnvironmentRowId environment = 0;
};

// A database of n plans, one per first op, kept open for the benchmark's reads: a scratch file,
// or (server) the database lookup_<n> of EMBER_BENCH_PG.
LookupDb& LookupDatabase(int64_t n, bool server) {
  static std::map<std::pair<int64_t, bool>, LookupDb> dbs;
  LookupDb& db = dbs[{n, server}];
  if (db.repo == nullptr) {
    const std::vector<StoredPlan> real = AllRealPlans();
    db.repo = OpenLocation(server ? ServerPrefix() + "lookup_" + std::to_string(n)
                                  : ScratchFile("lookup-" + std::to_string(n) + ".db"));
    Check(db.repo->EnsureEnvironment(BenchEnvironment(), &db.environment));
    PublishPlans(*db.repo, db.environment, real, 0, static_cast<uint64_t>(n), 500);
  }
  return db;
}

void BM_Lookup(benchmark::State& state, bool server) {
  const int64_t n = state.range(0);
  const bool hit = state.range(1) != 0;
  LookupDb& db = LookupDatabase(n, server);
  uint64_t i = 0;
  int64_t found = 0;
  for (auto _ : state) {
    // A miss asks for keys past the n published ones.
    const uint64_t key = hit ? (i % static_cast<uint64_t>(n)) : static_cast<uint64_t>(n) + i;
    ++i;
    LoadedPlans loaded;
    Check(db.repo->LoadPlansByFirstOp(db.environment, Mix(key), &loaded));
    found += static_cast<int64_t>(loaded.plans.size());
  }
  if (found != (hit ? state.iterations() : 0)) state.SkipWithError("unexpected lookup result");
  state.SetLabel(hit ? "hit" : "miss");
}
BENCHMARK_CAPTURE(BM_Lookup, sqlite, false)
    ->ArgsProduct({{1000, 10000}, {1, 0}})
    ->ArgNames({"plans", "hit"})
    ->Unit(benchmark::kMicrosecond);
// BM_Lookup/postgresql is registered in main, where EMBER_BENCH_PG names a server.

// PersistentPlans' DecodeRow (store/persistent_plans.cpp), spelled out.
Status DecodeAndValidate(const StoredPlan& row) {
  ExecutionPlan plan;
  if (Status s = DecodeOperations(row.ops_blob, &plan.operations); !s.ok()) return s;
  if (Status s = DecodeBlockOptimization(row.plan_blob, &plan.optimization); !s.ok()) return s;
  for (const TriggerRow& t : row.triggers) {
    if (t.kind == static_cast<int>(ExecutionTrigger::Kind::kOnOperations)) {
      std::vector<OperationIr> ops;
      if (Status s = DecodeOperations(t.ops_blob, &ops); !s.ok()) return s;
      plan.triggers.push_back(ExecutionTrigger::OnOperations(std::move(ops)));
    } else {
      plan.triggers.push_back(t.kind == static_cast<int>(ExecutionTrigger::Kind::kOnSync)
                                  ? ExecutionTrigger::OnSync()
                                  : ExecutionTrigger::Always());
    }
  }
  return ValidatePlan(plan);
}

// The workload's own plan: the one with the most ops (the others are the 1-op segments of
// its inputs' Init and Drop ops).
const StoredPlan& MainPlan(const std::string& workload) {
  const std::vector<StoredPlan>& plans = RealPlans().at(workload);
  if (plans.empty()) std::abort();
  const StoredPlan* main = &plans.front();
  for (const StoredPlan& p : plans) main = p.num_ops > main->num_ops ? &p : main;
  return *main;
}

void BM_DecodeValidate(benchmark::State& state, const std::string& workload) {
  const StoredPlan& plan = MainPlan(workload);
  for (auto _ : state) {
    if (Status s = DecodeAndValidate(plan); !s.ok()) {
      return state.SkipWithError(s.ToString().c_str());
    }
  }
  double trigger_bytes = 0;
  for (const TriggerRow& t : plan.triggers) trigger_bytes += static_cast<double>(t.ops_blob.size());
  state.counters["ops"] = plan.num_ops;
  state.counters["ops_bytes"] = static_cast<double>(plan.ops_blob.size());
  state.counters["plan_bytes"] = static_cast<double>(plan.plan_blob.size());
  state.counters["bytes"] = static_cast<double>(plan.ops_blob.size() + plan.plan_blob.size());
  state.counters["triggers"] = static_cast<double>(plan.triggers.size());
  state.counters["trigger_bytes"] = trigger_bytes;
}
BENCHMARK_CAPTURE(BM_DecodeValidate, seed, std::string("seed"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_DecodeValidate, softmax, std::string("softmax"))
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_DecodeValidate, layernorm, std::string("layernorm"))
    ->Unit(benchmark::kMicrosecond);

// What PersistentPlans does to a loaded row since issue 40 (Note [Plans per first op],
// store/persistent_plans.h): DecodeStoredPlan, which compares plan_key, first_op_hash and
// num_ops with the decoded ops, against DecodePlanParts alone (what it did before).
void BM_LoadRow(benchmark::State& state, const std::string& workload, bool check_keys) {
  const StoredPlan& plan = MainPlan(workload);
  for (auto _ : state) {
    ExecutionPlan decoded;
    const Status s = check_keys
                         ? DecodeStoredPlan(plan, &decoded)
                         : DecodePlanParts(plan.ops_blob, plan.plan_blob, plan.triggers, &decoded);
    if (!s.ok()) return state.SkipWithError(s.ToString().c_str());
  }
  state.counters["ops"] = plan.num_ops;
}
BENCHMARK_CAPTURE(BM_LoadRow, seed_parts, std::string("seed"), false)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_LoadRow, seed_checked, std::string("seed"), true)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_LoadRow, softmax_parts, std::string("softmax"), false)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_LoadRow, softmax_checked, std::string("softmax"), true)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_LoadRow, layernorm_parts, std::string("layernorm"), false)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_LoadRow, layernorm_checked, std::string("layernorm"), true)
    ->Unit(benchmark::kMicrosecond);

// --- BM_TierLookup -------------------------------------------------------------------------

constexpr uint64_t kTierPlans = 1000;

// The layernorm plan under kTierPlans made-up first-op hashes, in a database and a segment.
struct TierFixture {
  StoredPlan row = MainPlan("layernorm");
  ExecutionPlan plan;
  LookupDb db;
  std::unique_ptr<SharedPlanTier> tier;
  ExecutionPlanIndex index;

  TierFixture() {
    Check(DecodeOperations(row.ops_blob, &plan.operations));
    Check(DecodeBlockOptimization(row.plan_blob, &plan.optimization));
    const std::string path = ScratchFile("tiers.db");
    db.repo = OpenRepository(path);
    Check(db.repo->EnsureEnvironment(BenchEnvironment(), &db.environment));
    PublishBatch batch{.environment_id = db.environment};
    for (uint64_t i = 0; i < kTierPlans; ++i) {
      PublishItem item;
      item.plan = NewPlan{.first_op_hash = Mix(i),
                          .plan_key = {.low = Mix(i ^ 1), .high = i},
                          .ops_blob = row.ops_blob,
                          .plan_blob = row.plan_blob,
                          .num_ops = row.num_ops};
      item.triggers = row.triggers;
      batch.plans.push_back(std::move(item));
    }
    PublishResult result;
    Check(db.repo->Publish(batch, &result));
    Check(SharedPlanTier::Open({.database_path = path, .environment = "bench"}, &tier));
    const std::vector<uint8_t> encoded = EncodePlan(plan);
    for (uint64_t i = 0; i < kTierPlans; ++i) {
      if (tier->Publish(Mix(i), {.low = Mix(i ^ 1), .high = i}, encoded) !=
          SharedPlanTier::PublishOutcome::kPublished) {
        std::abort();
      }
    }
    index.Insert(plan.operations.front(), 0);
  }
};

TierFixture& Tiers() {
  static TierFixture* fixture = new TierFixture();
  return *fixture;
}

void BM_TierLookup(benchmark::State& state, const std::string& tier) {
  TierFixture& f = Tiers();
  uint64_t i = 0;
  size_t found = 0;
  for (auto _ : state) {
    const uint64_t hash = Mix(i++ % kTierPlans);
    if (tier == "memory") {
      found += f.index.Find(f.plan.operations.front()).size();
    } else if (tier == "shm_raw") {
      std::vector<SharedPlanTier::Entry> entries;
      Check(f.tier->Lookup(hash, &entries));
      found += entries.size();
    } else if (tier == "sqlite_raw") {
      LoadedPlans loaded;
      Check(f.db.repo->LoadPlansByFirstOp(f.db.environment, hash, &loaded));
      found += loaded.plans.size();
    } else if (tier == "shm") {
      std::vector<SharedPlanTier::Entry> entries;
      Check(f.tier->Lookup(hash, &entries));
      for (const SharedPlanTier::Entry& e : entries) {
        ExecutionPlan plan;
        Check(DecodePlan(e.encoded_plan, &plan));
        ++found;
      }
    } else {
      LoadedPlans loaded;
      Check(f.db.repo->LoadPlansByFirstOp(f.db.environment, hash, &loaded));
      for (const StoredPlan& row : loaded.plans) {
        Check(DecodeAndValidate(row));
        ++found;
      }
    }
  }
  if (found != static_cast<size_t>(state.iterations())) state.SkipWithError("lookup missed");
  state.counters["ops"] = f.row.num_ops;
}
BENCHMARK_CAPTURE(BM_TierLookup, memory, std::string("memory"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_TierLookup, shm, std::string("shm"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_TierLookup, sqlite, std::string("sqlite"))->Unit(benchmark::kMicrosecond);
// The reads alone: chain walk, copy and checksum; the indexed query and row checksum.
BENCHMARK_CAPTURE(BM_TierLookup, shm_raw, std::string("shm_raw"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_TierLookup, sqlite_raw, std::string("sqlite_raw"))
    ->Unit(benchmark::kMicrosecond);

// --publish=W,M,B: the children open their connections, say so, and wait for the parent to
// close the start pipe, so the clock covers the publishing only.
int PublishThroughput(int writers, uint64_t per_writer, uint64_t batch, std::string location) {
  const std::vector<StoredPlan> real = AllRealPlans();
  const std::string path = location.empty() ? ScratchFile("publish.db") : location;
  EnvironmentRowId environment = 0;
  Check(OpenLocation(path)->EnsureEnvironment(BenchEnvironment(), &environment));
  int ready[2], go[2];
  if (pipe(ready) != 0 || pipe(go) != 0) return 1;
  std::fflush(nullptr);
  std::vector<pid_t> children;
  for (int w = 0; w < writers; ++w) {
    const pid_t pid = fork();
    if (pid == 0) {
      in_child = true;
      close(ready[0]);
      close(go[1]);
      std::unique_ptr<PlanRepository> repo = OpenLocation(path);
      char c = 1;
      if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 0) _exit(2);
      PublishPlans(*repo, environment, real, static_cast<uint64_t>(w) + 1, per_writer, batch);
      repo.reset();
      _exit(0);
    }
    children.push_back(pid);
  }
  close(ready[1]);
  close(go[0]);
  for (int w = 0; w < writers; ++w) {
    char c = 0;
    if (read(ready[0], &c, 1) != 1) return 1;
  }
  const auto start = std::chrono::steady_clock::now();
  close(go[1]);  // EOF: every child starts
  bool ok = true;
  for (pid_t pid : children) {
    int status = 0;
    ok = waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 && ok;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::unique_ptr<PlanRepository> repo = OpenLocation(path);
  int64_t stored = 0;
  Check(QueryInt64(repo->sql(), "SELECT CAST(COUNT(*) AS BIGINT) FROM plans", {}, "counting",
                   &stored));
  const uint64_t total = static_cast<uint64_t>(writers) * per_writer;
  std::printf(
      "{\"backend\": \"%s\", \"writers\": %d, \"batch\": %llu, \"plans\": %llu, \"stored\": "
      "%lld, \"seconds\": %.4f, \"plans_per_s\": %.0f}\n",
      std::string(repo->backend()).c_str(), writers, static_cast<unsigned long long>(batch),
      static_cast<unsigned long long>(total), static_cast<long long>(stored), seconds,
      static_cast<double>(total) / seconds);
  return ok && stored == static_cast<int64_t>(total) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    int writers = 0;
    unsigned long long per_writer = 0, batch = 0;
    int used = 0;
    if (std::sscanf(argv[i], "--publish=%d,%llu,%llu%n", &writers, &per_writer, &batch, &used) ==
        3) {
      const std::string rest = argv[i] + used;  // ",LOCATION" or nothing
      return PublishThroughput(writers, per_writer, batch, rest.empty() ? "" : rest.substr(1));
    }
  }
  if (!ServerPrefix().empty()) {
    benchmark::RegisterBenchmark("BM_Lookup/postgresql",
                                 [](benchmark::State& state) { BM_Lookup(state, true); })
        ->ArgsProduct({{1000, 10000}, {1, 0}})
        ->ArgNames({"plans", "hit"})
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  SharedSegment::RemoveAll(ScratchFile("tiers.db"));  // segments outlive the scratch directory
  return 0;
}
