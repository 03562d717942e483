// What the plan database micro-measurements (plan_db_bench.cpp) run on: a scratch directory,
// repositories opened on a file or a server, the real plans the engine publishes for the seed
// expression, softmax and layernorm, and made-up keys under which their blobs fill a database.
#pragma once

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <ember/ember.h>

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

namespace ember::plan_db_bench {

struct Scratch {
  std::filesystem::path dir;
  Scratch() {
    std::string pattern = (std::filesystem::temp_directory_path() / "ember-plan-db-XXXXXX");
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    dir = pattern;
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

inline Scratch& TheScratch() {
  static Scratch scratch;
  return scratch;
}

inline std::string ScratchFile(const std::string& name) {
  return (TheScratch().dir / name).string();
}

inline bool in_child = false;  // a forked writer: leave the scratch directory to the parent

inline void Check(const Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "plan_db_bench: %s\n", s.ToString().c_str());
    if (in_child) _exit(1);
    std::exit(1);
  }
}

inline std::unique_ptr<SqlitePlanRepository> OpenRepository(const std::string& path) {
  std::unique_ptr<SqlitePlanRepository> repo;
  Check(SqlitePlanRepository::Open(PlanDbOptions{.path = path}, &repo));
  return repo;
}

// A file or a server (PlanRepository::Open tells them apart by the location).
inline std::unique_ptr<PlanRepository> OpenLocation(const std::string& location) {
  std::unique_ptr<PlanRepository> repo;
  Check(PlanRepository::Open(PlanDbOptions{.path = location}, &repo));
  return repo;
}

// The server BM_Lookup also reads ("" when EMBER_BENCH_PG is not set).
inline std::string ServerPrefix() {
  const char* prefix = std::getenv("EMBER_BENCH_PG");
  return prefix == nullptr ? "" : prefix;
}

inline Tensor Input(float scale) {
  std::vector<float> v(64 * 1024);
  for (size_t i = 0; i < v.size(); ++i) v[i] = scale * static_cast<float>(i % 101) / 101.0f;
  return Tensor::FromVector(v, {64, 1024});
}

// The workloads of bench/cpu_fusion_bench.cpp, each one segment ended by a read-back.
inline void Seed() {
  Tensor a = Input(1), b = Input(2), c = Input(0.5f);
  Sync();
  Tensor ab = a * b;
  Tensor c2 = c * 2.0;
  benchmark::DoNotOptimize((std::move(ab) + std::move(c2)).Exp().ToVector<float>());
}
inline void Softmax() {
  Tensor x = Input(4);
  Sync();
  Tensor y = x * 0.125;
  Tensor m = y.MaxDim(1);
  Tensor e = (std::move(y) - std::move(m)).Exp();
  Tensor s = e.SumDim(1);
  benchmark::DoNotOptimize((std::move(e) / std::move(s)).ToVector<float>());
}
inline void LayerNorm() {
  Tensor x = Input(2), r = Input(1);
  Sync();
  Tensor h = x + r;
  Tensor mu = h.MeanDim(1);
  Tensor xc = std::move(h) - std::move(mu);
  Tensor var = (xc * xc).MeanDim(1);
  benchmark::DoNotOptimize((std::move(xc) / (std::move(var) + 1e-5).Sqrt()).ToVector<float>());
}

// Runs `workload` on a fresh device whose plan database is `path`, then releases the device,
// which makes the writer commit what it queued. Returns the rows it published.
inline std::vector<StoredPlan> PlansOf(void (*workload)(), const std::string& path) {
  Config config = GlobalConfig();
  config.plan_db = path;
  config.shm = false;  // no segment may outlive the scratch directory
  SetGlobalConfigForTesting(config);
  ReleaseDevice(Device::Cpu());
  workload();
  ReleaseDevice(Device::Cpu());
  std::unique_ptr<SqlitePlanRepository> repo = OpenRepository(path);
  SqliteStatement query;
  Check(repo->database().sqlite().Prepare(
      "SELECT DISTINCT environment_id, first_op_hash FROM plans", "listing plans", &query));
  std::vector<std::pair<int64_t, int64_t>> keys;
  for (bool row = true;;) {
    Check(query.Step(&row));
    if (!row) break;
    keys.emplace_back(query.ColumnInt64(0), query.ColumnInt64(1));
  }
  std::vector<StoredPlan> plans;
  for (const auto& [environment, hash] : keys) {
    LoadedPlans loaded;
    Check(repo->LoadPlansByFirstOp(environment, static_cast<uint64_t>(hash), &loaded));
    for (StoredPlan& p : loaded.plans) plans.push_back(std::move(p));
  }
  return plans;
}

// Workload name -> the plans the engine stored for it (computed once).
inline const std::map<std::string, std::vector<StoredPlan>>& RealPlans() {
  static const auto* plans = [] {
    auto* m = new std::map<std::string, std::vector<StoredPlan>>();
    (*m)["seed"] = PlansOf(Seed, ScratchFile("seed.db"));
    (*m)["softmax"] = PlansOf(Softmax, ScratchFile("softmax.db"));
    (*m)["layernorm"] = PlansOf(LayerNorm, ScratchFile("layernorm.db"));
    Config config = GlobalConfig();
    config.plan_db = "off";  // nothing below may write a database of its own
    SetGlobalConfigForTesting(config);
    ReleaseDevice(Device::Cpu());
    return m;
  }();
  return *plans;
}

// The real plans one after another.
inline std::vector<StoredPlan> AllRealPlans() {
  std::vector<StoredPlan> all;
  for (const auto& [name, plans] : RealPlans()) all.insert(all.end(), plans.begin(), plans.end());
  return all;
}

inline uint64_t Mix(uint64_t x) {  // splitmix64: distinct made-up first-op hashes and keys
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline EnvironmentFingerprint BenchEnvironment() {
  return {.engine_version = "bench",
          .schema_version = kPlanSchemaVersion,
          .backend = "cpu",
          .device_model = "any",
          .fusers = {{"elementwise", 1}},
          .max_blocks = 5};
}

// Plan `i` of writer `writer`: a real plan's blobs and triggers under distinct keys.
inline PublishItem MadeUpPlan(const std::vector<StoredPlan>& real, uint64_t writer, uint64_t i) {
  const StoredPlan& r = real[i % real.size()];
  const uint64_t n = (writer << 40) | i;
  PublishItem item;
  item.plan = NewPlan{.first_op_hash = Mix(n),
                      .plan_key = {.low = Mix(n ^ 1), .high = n},
                      .ops_blob = r.ops_blob,
                      .plan_blob = r.plan_blob,
                      .num_ops = r.num_ops};
  item.triggers = r.triggers;
  return item;
}

// Publishes plans [0, count) of `writer` in batches of `batch`.
inline void PublishPlans(PlanRepository& repo, EnvironmentRowId environment,
                         const std::vector<StoredPlan>& real, uint64_t writer, uint64_t count,
                         uint64_t batch) {
  for (uint64_t i = 0; i < count;) {
    PublishBatch b{.environment_id = environment};
    for (; i < count && b.plans.size() < batch; ++i) b.plans.push_back(MadeUpPlan(real, writer, i));
    PublishResult result;
    Check(repo.Publish(b, &result));
  }
}

}  // namespace ember::plan_db_bench
