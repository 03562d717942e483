// CUDA graphs of repeated launch windows (Note [Launch windows], engine/runtime/cuda/backend/
// launch_graphs.h) end to end, through the real ember-lab binary on the GPU: each scenario gives
// the same results, bit for bit, with graphs on and off (`EMBER_GRAPHS`), and replays with them
// on; a warm process that reads the recipes a cold one stored replays from its second step.
// Skipped without a GPU.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <ember/ember.h>

#include "tests/common/temp_dir.h"
#include "tests/gpu/gpu_test_util.h"
#include "tests/tools/lab/lab_runner.h"

namespace ember::gpu {
namespace {

using test::ExpectCorrect;
using test::RunLabJson;

#define EMBER_GRAPHS_CUDA_OR_SKIP()                                                  \
  do {                                                                               \
    ::ember::Device cuda = ::ember::Device::Cpu();                                   \
    if (const auto why = CudaUnavailable(&cuda)) GTEST_SKIP() << "no GPU: " << *why; \
  } while (false)

TEST(GraphsGpu, EachScenarioComputesTheSameWithGraphsOnAndOff) {
  EMBER_GRAPHS_CUDA_OR_SKIP();
  for (const std::vector<std::string>& scenario : {std::vector<std::string>{"transformer"},
                                                   {"mlp", "--batch", "64", "--width", "128"},
                                                   {"unrelated"}}) {
    SCOPED_TRACE(scenario[0]);
    test::TempDir dir;
    std::vector<std::string> args = scenario;
    // The first steps explore and measure (matmul epilogues): the windows settle after them.
    args.insert(args.end(), {"--device", "cuda", "--no-store", "--steps", "16"});
    const nlohmann::json off = RunLabJson(dir, args, {"EMBER_GRAPHS=off"});
    const nlohmann::json on = RunLabJson(dir, args, {"EMBER_GRAPHS=on"});
    ExpectCorrect(off);
    ExpectCorrect(on);
    EXPECT_EQ(off["graph_captures"].get<int>(), 0);
    EXPECT_EQ(off["graph_replays"].get<int>(), 0);
    // The same kernels with the same arguments in the same order: the same error, bit for bit.
    EXPECT_EQ(on["max_rel_error"], off["max_rel_error"]);
    EXPECT_EQ(on["launches"], off["launches"]);
    if (scenario[0] != "unrelated") {  // unrelated's window is one launch: nothing to gain
      EXPECT_GT(on["graph_replays"].get<int>(), 0) << on.dump(2);
    }
  }
}

TEST(GraphsGpu, AWarmProcessReplaysFromItsSecondStep) {
  EMBER_GRAPHS_CUDA_OR_SKIP();
  test::TempDir dir;
  const std::string db = dir.File("plans.db");
  const nlohmann::json cold =
      RunLabJson(dir, {"transformer", "--device", "cuda", "--db", db, "--steps", "16"});
  ExpectCorrect(cold);
  EXPECT_GT(cold["graph_recipes_stored"].get<int>(), 0) << cold.dump(2);
  const nlohmann::json warm =
      RunLabJson(dir, {"transformer", "--device", "cuda", "--db", db, "--steps", "2"});
  ExpectCorrect(warm);
  EXPECT_GT(warm["graph_recipes_loaded"].get<int>(), 0) << warm.dump(2);
  EXPECT_GT(warm["graph_captures"].get<int>(), 0);
  EXPECT_GT(warm["graph_replays"].get<int>(), 0) << "the second step is not a replay";
  EXPECT_EQ(warm["graph_recipes_stored"].get<int>(), 0) << "the cold run stored them all";
}

}  // namespace
}  // namespace ember::gpu
