// The engine side of the ember-plans tests: this binary re-executed with EMBER_PLAN_DB set runs
// a small program through the public API, so the databases the CLI reads are written by the
// real engine (explorations, publication, hits, workloads).
//   seed:   the seed's expression and a softmax at 64x64 and 32x32 (fused ElementWise and
//           reduce plans);
//   stream: keeps publishing new plans for about a second (chains of 1..8 ops on ranks 1..5),
//           for the tests that read while a process writes;
//   forgeable: the Reduce plans issue 13's forgeries edit (tests/end_to_end/forgeable_program.h).
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>

#include "tests/end_to_end/forgeable_program.h"

namespace ember {
namespace {

void Seed() {
  for (int64_t n : {64, 32}) {
    Tensor a = Tensor::FromVector(std::vector<float>(n * n, 0.5f), {n, n});
    Tensor b = Tensor::FromVector(std::vector<float>(n * n, 1.5f), {n, n});
    Tensor c = Tensor::FromVector(std::vector<float>(n * n, 0.25f), {n, n});
    Tensor ab = a * b;
    Tensor c2 = c * 2.0;
    (void)(std::move(ab) + std::move(c2)).Exp().ToVector<float>();
    Tensor y = a * 0.125;
    Tensor m = y.MaxDim(1);
    Tensor e = (std::move(y) - std::move(m)).Exp();
    Tensor s = e.SumDim(1);
    (void)(std::move(e) / std::move(s)).ToVector<float>();
  }
}

void Stream() {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(1200);
  for (int i = 0; std::chrono::steady_clock::now() < end; ++i) {
    const size_t rank = static_cast<size_t>(i % 5) + 1;
    const int length = (i / 5) % 8 + 1;
    Tensor t = Tensor::Full(std::vector<int64_t>(rank, 2), 1.0, DType::kF32);
    for (int k = 0; k < length; ++k) t = t * 1.5 + 0.25;
    (void)t.ToVector<float>();
    Sync();
  }
}

TEST(DISABLED_PlansEngineChild, Run) {
  const char* program = std::getenv("EMBER_TEST_PROGRAM");
  ASSERT_NE(program, nullptr);
  if (std::string(program) == "stream") {
    Stream();
  } else if (std::string(program) == "forgeable") {
    (void)forge::ForgeableProgram();
  } else {
    Seed();
  }
  Sync();
}

}  // namespace
}  // namespace ember
