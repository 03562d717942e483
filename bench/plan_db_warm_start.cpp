// Warm start from the plan database (issue 5, "Benchmark"): one process runs a workload of 200
// distinct segments once and prints, as one JSON line, the time to the first result, to the
// last one, and until its plans are durable, with ember::GetStats(). bench/run_plan_db.sh runs
// it cold (fresh database), warm (the same file, a new process) and memory-only
// (EMBER_PLAN_DB=off) and prints the table recorded in docs/BENCHMARKS.md.
//
// Segments: 5 relative shape patterns x 8 first ops x 5 second ops, every third one ended by a
// reduction, each read back (a sync point, so each is its own segment). The pair of ops, or the
// shape pattern, makes every segment's relative ops distinct, so a cold process explores 200
// times; 40 distinct first ops (8 x 5 patterns) group them as real programs do. Tensors are
// small (4 Ki elements) so that the engine's host work, not the arithmetic, is measured.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "store/shm/shared_segment.h"

namespace {

using Clock = std::chrono::steady_clock;
using ember::Tensor;

// The relative forms differ: rank 1, rank 2 with distinct or equal dims, rank 3 likewise.
const std::vector<std::vector<int64_t>> kShapes = {
    {4096}, {32, 128}, {64, 64}, {8, 16, 32}, {16, 16, 16}};

Tensor Apply(int op, Tensor x) {
  switch (op) {
    case 0: return std::move(x).Exp();
    case 1: return std::move(x).Tanh();
    case 2: return std::move(x).Sin();
    case 3: return std::move(x).Abs();
    case 4: return std::move(x).Neg();
    case 5: return std::move(x) * 0.5;
    case 6: return std::move(x) + 1.0;
    default: return std::move(x).Cos();
  }
}

double Ms(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

}  // namespace

int main(int argc, char** argv) {
  const Clock::time_point start = Clock::now();
  // `--remove-shm`: remove the shared segments of $EMBER_PLAN_DB (they outlive the processes;
  // bench/run_shm_workers.sh cleans up with it) and exit.
  if (argc == 2 && std::string(argv[1]) == "--remove-shm") {
    const char* db = std::getenv("EMBER_PLAN_DB");
    size_t removed = 0;
    if (db != nullptr) ember::SharedSegment::RemoveAll(db, &removed);
    std::printf("removed %zu segment(s)\n", removed);
    return 0;
  }
  std::vector<Tensor> inputs;
  for (const std::vector<int64_t>& shape : kShapes) {
    std::vector<float> values(4096);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 97) / 97.0f;
    inputs.push_back(Tensor::FromVector(values, shape));
  }
  double checksum = 0;
  double first_ms = 0;
  int segments = 0;
  for (int second = 0; second < 5; ++second) {
    for (size_t pattern = 0; pattern < kShapes.size(); ++pattern) {
      for (int first = 0; first < 8; ++first) {
        // inputs[pattern] stays alive (ReadOnly); the temporaries are consumed in place.
        Tensor y = Apply(first, inputs[pattern]);
        y = Apply(second, std::move(y));
        if (segments % 3 == 0) y = std::move(y).SumDim(-1);
        for (float v : std::move(y).ToVector<float>()) checksum += v;
        if (segments++ == 0) first_ms = Ms(start, Clock::now());
      }
    }
  }
  const double last_ms = Ms(start, Clock::now());
  ember::FlushPlans();  // waits for the plan writer: the cold run's plans are then durable
  const double durable_ms = Ms(start, Clock::now());
  const ember::Stats s = ember::GetStats();
  std::printf(
      "{\"segments\": %d, \"first_result_ms\": %.3f, \"total_ms\": %.3f, \"durable_ms\": %.3f, "
      "\"explorations\": %llu, \"cache_hits\": %llu, \"plans_loaded_from_db\": %llu, "
      "\"plans_published\": %llu, \"rows_quarantined\": %llu, \"plan_load_ms\": %.3f, "
      "\"plans_loaded_from_shm\": %llu, \"cache_hits_from_shm\": %llu, "
      "\"cache_hits_from_db\": %llu, \"checksum\": %.6g}\n",
      segments, first_ms, last_ms, durable_ms, static_cast<unsigned long long>(s.explorations),
      static_cast<unsigned long long>(s.cache_hits),
      static_cast<unsigned long long>(s.plans_loaded_from_db),
      static_cast<unsigned long long>(s.plans_published),
      static_cast<unsigned long long>(s.rows_quarantined), s.plan_load_ms,
      static_cast<unsigned long long>(s.plans_loaded_from_shm),
      static_cast<unsigned long long>(s.cache_hits_from_shm),
      static_cast<unsigned long long>(s.cache_hits_from_db), checksum);
  return 0;
}
