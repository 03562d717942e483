// Launch windows replayed as CUDA graphs (Note [Launch windows], engine/runtime/cuda/backend/
// launch_graphs.h), through the CUDA backend's ExecuteFused: a window of three dependent fused
// launches between two reads repeats, is captured after `graph_after` eager runs and replayed
// with the arguments of each run (new scalars, new buffers), bit-identical with graphs off; a
// window that diverges from its graph or ends early runs eagerly; a window that completes its
// graph replays at once; stored recipes capture at the
// first run; forged recipes are ignored. Every result is checked against the host's arithmetic.
// Skipped without a GPU.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "engine/core/config.h"
#include "engine/runtime/cuda/backend/cuda_backend.h"
#include "engine/runtime/cuda/cuda_device.h"
#include "engine/runtime/graph_tape.h"
#include "engine/trace/trace_serial.h"
#include "tests/runtime/fused_test_util.h"

namespace ember::cuda {
namespace {

using ember::testing::OutIr;

// Recipes in memory, as the plan database would keep them.
class MemoryRecipes final : public GraphRecipeStore {
 public:
  std::vector<GraphRecipe> LoadAll() override { return recipes; }
  void Remember(const GraphRecipe& recipe) override { recipes.push_back(recipe); }
  std::vector<GraphRecipe> recipes;
};

class LaunchGraphsGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = CudaDevice::Probe(0);
    if (!why.empty()) GTEST_SKIP() << "needs a CUDA device: " << why;
    saved_ = GlobalConfig();
    backend_ = Make(true);
  }
  void TearDown() override {
    backend_.reset();
    if (saved_) SetGlobalConfigForTesting(*saved_);
  }

  std::unique_ptr<Backend> Make(bool graphs, uint32_t after = 2) {
    Config config = *saved_;
    config.graphs = graphs;
    config.graph_after = after;
    SetGlobalConfigForTesting(config);
    return MakeCudaBackend(0);
  }

  TensorHandle Upload(Backend& b, const std::vector<float>& values, bool rank3 = false) {
    return b.FromHost(std::as_bytes(std::span(values)), rank3 ? shape3_ : shape_, DType::kF32);
  }
  static std::vector<float> Download(Backend& b, const TensorHandle& h) {
    std::vector<float> out(static_cast<size_t>(h.NumElements()));
    b.ToHost(h, std::as_writable_bytes(std::span(out)));
    return out;
  }
  TensorHandle MulAdd(Backend& b, const TensorHandle& x, const TensorHandle& y, float s,
                      const FuseTrace& trace, uint64_t serial) {
    FusedLaunch launch =
        ember::testing::Launch(trace, {x, y}, {OutIr(x.shape)}, {x.shape}, {ScalarIr::Float(s)});
    launch.trace_serial = serial;
    return b.ExecuteFused(launch).at(0);
  }
  // One step: three dependent launches (a = x*s + y, b = a*s + y, c = b*s + x), then a read,
  // which ends the window. Checks c against the host and returns what the device computed.
  // `rank3`: the same arithmetic over rank-3 tensors with another kernel (OtherKernelTrace).
  std::vector<float> Step(Backend& b, const std::vector<float>& xs, const std::vector<float>& ys,
                          float s, int launches = 3, bool rank3 = false) {
    const TensorHandle x = Upload(b, xs, rank3), y = Upload(b, ys, rank3);
    const FuseTrace& trace = rank3 ? trace3_ : trace_;
    const uint64_t serial = rank3 ? serial3_ : serial_;
    TensorHandle a = MulAdd(b, x, y, s, trace, serial);
    if (launches >= 2) a = MulAdd(b, a, y, s, trace, serial);
    if (launches >= 3) a = MulAdd(b, a, x, s, trace, serial);
    const std::vector<float> got = Download(b, a);
    for (size_t i = 0; i < got.size(); ++i) {
      float want = xs[i] * s + ys[i];
      if (launches >= 2) want = want * s + ys[i];
      if (launches >= 3) want = want * s + xs[i];
      EXPECT_NEAR(got[i], want, 1e-4f * (1 + std::abs(want))) << "at " << i;
      if (::testing::Test::HasFailure()) break;
    }
    return got;
  }
  GraphCounters Graphs() const { return backend_->kernel_counters().graphs; }

  static std::vector<float> Values(size_t n, float scale) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(static_cast<int>(i % 89) - 44);
    return v;
  }

  // MulAddTrace at rank 3 with its reads in the other order: the same arithmetic, another
  // kernel. The rank alone would not do: the generator indexes contiguous tensors linearly, so
  // MulAddTrace(2) and MulAddTrace(3) over as many elements are one kernel with one geometry,
  // one tape (verified with the generator: the sources are equal).
  static FuseTrace OtherKernelTrace() {
    FuseTrace t = ember::testing::MulAddTrace(3);
    using ember::testing::Assign, ember::testing::InArg, ember::testing::Local;
    t.blocks[0].reads = {Assign(Local(1), InArg(1)), Assign(Local(0), InArg(0))};
    return t;
  }

  std::optional<Config> saved_;
  std::unique_ptr<Backend> backend_;
  const Shape shape_ = {96, 40};
  const size_t n_ = 96 * 40;
  const Shape shape3_ = {4, 24, 40};
  const FuseTrace trace_ = ember::testing::MulAddTrace(2);
  const uint64_t serial_ = NewTraceSerial();
  const FuseTrace trace3_ = OtherKernelTrace();
  const uint64_t serial3_ = NewTraceSerial();
};

TEST_F(LaunchGraphsGpuTest, ARepeatedWindowIsCapturedThenReplayedWithEachRunsArguments) {
  for (int run = 0; run < 6; ++run) {
    // New inputs (so new buffers, or the same ones reused) and a new scalar every run.
    Step(*backend_, Values(n_, 0.5f + run), Values(n_, -0.25f * run), 1.0f + 0.125f * run);
    const GraphCounters g = Graphs();
    EXPECT_EQ(g.captures, run >= 1 ? 1u : 0u) << "run " << run;
    EXPECT_EQ(g.replays, run >= 2 ? static_cast<uint64_t>(run - 1) : 0u) << "run " << run;
  }
  const GraphCounters g = Graphs();
  EXPECT_EQ(g.replayed_launches, 4u * 3u);
  EXPECT_GT(g.node_updates, 0u) << "each run's scalar differs: its nodes were given it";
  EXPECT_EQ(g.fallback_diverged + g.fallback_ended_early + g.fallback_replay_failed, 0u);
  // The two eager windows ended at the read (the host waits); each held one at its third
  // launch, which completes the graph. The uploads that begin each run end nothing.
  EXPECT_EQ(g.windows, 6u);
  EXPECT_EQ(g.ends_host_wait, 2u);
  EXPECT_EQ(g.ends_complete, 4u);
  EXPECT_EQ(g.ends_other_work + g.ends_matmul + g.ends_stream_switch + g.ends_full, 0u);
}

TEST_F(LaunchGraphsGpuTest, ResultsAreBitIdenticalWithGraphsOff) {
  std::vector<std::vector<float>> on, off;
  for (int run = 0; run < 5; ++run) {
    on.push_back(Step(*backend_, Values(n_, 0.75f), Values(n_, 1.5f + run), 1.0f - 0.0625f * run));
  }
  EXPECT_GE(Graphs().replays, 1u);
  backend_ = Make(false);
  for (int run = 0; run < 5; ++run) {
    off.push_back(Step(*backend_, Values(n_, 0.75f), Values(n_, 1.5f + run), 1.0f - 0.0625f * run));
  }
  EXPECT_EQ(Graphs().captures, 0u);
  EXPECT_EQ(Graphs().replays, 0u);
  ASSERT_EQ(on.size(), off.size());
  for (size_t run = 0; run < on.size(); ++run) {
    EXPECT_EQ(0, std::memcmp(on[run].data(), off[run].data(), on[run].size() * sizeof(float)))
        << "run " << run;
  }
}

TEST_F(LaunchGraphsGpuTest, AWindowThatDivergesOrEndsEarlyRunsEagerly) {
  for (int run = 0; run < 3; ++run) Step(*backend_, Values(n_, 1.0f), Values(n_, 2.0f), 0.5f);
  ASSERT_EQ(Graphs().replays, 1u);
  // Ends after two of the graph's three launches: held, then run eagerly.
  Step(*backend_, Values(n_, 1.0f), Values(n_, 2.0f), 0.5f, 2);
  EXPECT_EQ(Graphs().fallback_ended_early, 1u);
  // Starts like the graph, then a launch of another trace (another kernel): diverged.
  {
    const std::vector<float> xs = Values(n_, 1.0f), ys = Values(n_, 3.0f);
    const TensorHandle x = Upload(*backend_, xs), y = Upload(*backend_, ys);
    TensorHandle a = MulAdd(*backend_, x, y, 2.0f, trace_, serial_);
    TensorHandle x3 = x, a3 = a;
    x3.shape = shape3_;
    x3.strides = TensorHandle::ContiguousStrides(x3.shape);
    a3.shape = x3.shape;
    a3.strides = x3.strides;
    FusedLaunch launch = ember::testing::Launch(trace3_, {a3, x3}, {OutIr(x3.shape)}, {x3.shape},
                                                {ScalarIr::Float(2.0f)});
    launch.trace_serial = serial3_;
    const TensorHandle b = backend_->ExecuteFused(launch).at(0);
    const std::vector<float> got = Download(*backend_, b);
    for (size_t i = 0; i < got.size(); ++i) {
      const float want = (xs[i] * 2.0f + ys[i]) * 2.0f + xs[i];
      EXPECT_NEAR(got[i], want, 1e-4f * (1 + std::abs(want))) << "at " << i;
      if (HasFailure()) break;
    }
  }
  EXPECT_EQ(Graphs().fallback_diverged, 1u);
  // And the graph still replays its own window.
  Step(*backend_, Values(n_, 1.0f), Values(n_, 2.0f), 0.5f);
  EXPECT_EQ(Graphs().replays, 2u);
}

// The last use of a launch's output, in the next launch of a held window, is written in place
// as it is without graphs: holding a window keeps no reference to its buffers (in-place outputs
// follow use counts, engine/runtime/cpu/fused_outputs.h), so graphs never change which kernel
// a launch needs (each aliasing is another kernel).
TEST_F(LaunchGraphsGpuTest, HeldLaunchesLeaveInPlaceOutputsAsWithoutGraphs) {
  for (int run = 0; run < 5; ++run) {
    const std::vector<float> xs = Values(n_, 1.5f), ys = Values(n_, -0.5f);
    const TensorHandle x = Upload(*backend_, xs), y = Upload(*backend_, ys);
    TensorHandle a = MulAdd(*backend_, x, y, 0.5f, trace_, serial_);
    const Buffer* a_buffer = a.buffer.get();
    FusedLaunch launch = ember::testing::Launch(trace_, {std::move(a), y}, {OutIr(x.shape)},
                                                {x.shape}, {ScalarIr::Float(0.5f)});
    launch.reusable = {true, false};
    launch.trace_serial = serial_;
    const TensorHandle b = backend_->ExecuteFused(launch).at(0);
    launch = {};
    EXPECT_EQ(b.buffer.get(), a_buffer) << "run " << run << ": not written in place";
    const std::vector<float> got = Download(*backend_, b);
    for (size_t i = 0; i < got.size(); ++i) {
      const float want = (xs[i] * 0.5f + ys[i]) * 0.5f + ys[i];
      EXPECT_NEAR(got[i], want, 1e-4f * (1 + std::abs(want))) << "run " << run << " at " << i;
      if (HasFailure()) return;
    }
  }
  EXPECT_GE(Graphs().replays, 2u) << "runs 2 to 4 were held and replayed";
}

TEST_F(LaunchGraphsGpuTest, AWindowThatCompletesItsGraphReplaysAtOnce) {
  for (int run = 0; run < 2; ++run) Step(*backend_, Values(n_, 1.0f), Values(n_, 2.0f), 0.5f);
  ASSERT_EQ(Graphs().captures, 1u);
  const std::vector<float> xs = Values(n_, 2.0f), ys = Values(n_, -1.0f);
  const TensorHandle x = Upload(*backend_, xs), y = Upload(*backend_, ys);
  TensorHandle a = MulAdd(*backend_, x, y, 0.5f, trace_, serial_);
  a = MulAdd(*backend_, a, y, 0.5f, trace_, serial_);
  EXPECT_EQ(Graphs().replays, 0u) << "two of three launches: still held";
  a = MulAdd(*backend_, a, x, 0.5f, trace_, serial_);
  EXPECT_EQ(Graphs().replays, 1u) << "the third completes the graph: launched before any read";
  const std::vector<float> got = Download(*backend_, a);
  for (size_t i = 0; i < got.size(); ++i) {
    const float want = ((xs[i] * 0.5f + ys[i]) * 0.5f + ys[i]) * 0.5f + xs[i];
    EXPECT_NEAR(got[i], want, 1e-4f * (1 + std::abs(want))) << "at " << i;
    if (HasFailure()) break;
  }
}

TEST_F(LaunchGraphsGpuTest, StreamsEndWindowsAndKeepTheirOrder) {
  for (int run = 0; run < 4; ++run) {
    backend_->SetStream(1 + run % 2);
    const std::vector<float> xs = Values(n_, 0.5f), ys = Values(n_, 0.25f);
    const TensorHandle x = Upload(*backend_, xs), y = Upload(*backend_, ys);
    TensorHandle a = MulAdd(*backend_, x, y, 1.5f, trace_, serial_);
    a = MulAdd(*backend_, a, y, 1.5f, trace_, serial_);
    // The third launch on the other stream reads what the first two wrote.
    backend_->SetStream(1 + (run + 1) % 2);
    a = MulAdd(*backend_, a, x, 1.5f, trace_, serial_);
    const std::vector<float> got = Download(*backend_, a);
    for (size_t i = 0; i < got.size(); ++i) {
      const float want = ((xs[i] * 1.5f + ys[i]) * 1.5f + ys[i]) * 1.5f + xs[i];
      EXPECT_NEAR(got[i], want, 1e-4f * (1 + std::abs(want))) << "run " << run << " at " << i;
      if (HasFailure()) return;
    }
  }
  EXPECT_GE(Graphs().replays, 1u) << "the two launches before each switch are a window";
}

TEST_F(LaunchGraphsGpuTest, AStoredRecipeCapturesAtTheFirstRunAndForgedOnesAreIgnored) {
  MemoryRecipes store;
  backend_->UseRecipeStore(&store);
  for (int run = 0; run < 2; ++run) Step(*backend_, Values(n_, 1.0f), Values(n_, 2.0f), 0.5f);
  ASSERT_EQ(store.recipes.size(), 1u);
  EXPECT_EQ(Graphs().recipes_stored, 1u);
  const GraphRecipe good = store.recipes[0];
  ASSERT_TRUE(DecodeTape(good.body).has_value());
  EXPECT_EQ(DecodeTape(good.body)->launches.size(), 3u);

  // Forged: a key that is not the body's, a body that does not decode, a kernel list that is
  // not the body's. None is loaded.
  MemoryRecipes forged;
  forged.recipes.push_back({.key = good.key ^ 1, .body = good.body, .kernels = good.kernels});
  forged.recipes.push_back(
      {.key = good.key, .body = "ember-graph-tape 1\nnot a launch\n", .kernels = good.kernels});
  forged.recipes.push_back({.key = good.key, .body = good.body, .kernels = {1, 2, 3}});
  backend_ = Make(true);
  backend_->UseRecipeStore(&forged);
  EXPECT_EQ(Graphs().recipes_loaded, 0u);
  Step(*backend_, Values(n_, 1.0f), Values(n_, 2.0f), 0.5f);
  EXPECT_EQ(Graphs().captures, 0u) << "a forged recipe lowered the threshold";

  // A new backend (as a new process would be) that reads the good one captures after one run.
  backend_ = Make(true);
  backend_->UseRecipeStore(&store);
  EXPECT_EQ(Graphs().recipes_loaded, 1u);
  Step(*backend_, Values(n_, 1.0f), Values(n_, 2.0f), 0.5f);
  EXPECT_EQ(Graphs().captures, 1u);
  Step(*backend_, Values(n_, 3.0f), Values(n_, -2.0f), 0.25f);
  EXPECT_EQ(Graphs().replays, 1u) << "the second run is already a replay";
  EXPECT_EQ(Graphs().recipes_stored, 0u) << "what was loaded is not stored again";
}

TEST_F(LaunchGraphsGpuTest, TheCacheKeepsItsCapacity) {
  Config config = *saved_;
  config.graph_cache = 1;
  SetGlobalConfigForTesting(config);
  backend_ = MakeCudaBackend(0);
  // Two windows that begin with different kernels, each run twice (captured) in turn.
  for (int round = 0; round < 3; ++round) {
    for (bool rank3 : {false, true}) {
      for (int run = 0; run < 2; ++run) {
        Step(*backend_, Values(n_, 1.0f), Values(n_, 2.0f), 0.5f, 3, rank3);
      }
    }
  }
  const GraphCounters g = Graphs();
  EXPECT_GE(g.evictions, 1u);
  EXPECT_EQ(g.captures, g.evictions + 1);
}

}  // namespace
}  // namespace ember::cuda
