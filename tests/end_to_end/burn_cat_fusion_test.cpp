// burn's fusion tests for Cat (crates/burn-backend-tests/tests/fusion/cat.rs in tracel-ai/burn),
// ported by name and run on the CPU as a user writes them. Each program runs fused and unfused;
// both must give burn's expected values. Where burn's FusionInspector looks for the block that
// holds the Cat, these tests read the fused run's trace table (EMBER_LOG=full) instead: the rows
// of each "▸ fused <fuser>" segment are that fuser's trace, as burn's blocks are.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>

#include "engine/core/log.h"
#include "tests/api/api_test_util.h"
#include "tests/end_to_end/use_fusion.h"

namespace ember {
namespace {

using testing::UseFusion;

struct ProgramRun {
  std::vector<double> values;  // the output's elements, whatever its dtype
  uint64_t launches = 0;
  uint64_t fused = 0;
  std::vector<std::string> log;
};

std::vector<double> ValuesOf(const Tensor& out) {
  if (out.Dtype() == DType::kBool) {
    const std::vector<bool> v = out.ToVector<bool>();
    return std::vector<double>(v.begin(), v.end());
  }
  if (out.Dtype() == DType::kI32 || out.Dtype() == DType::kI64) {
    const std::vector<int64_t> v = out.ToVector<int64_t>();
    return std::vector<double>(v.begin(), v.end());
  }
  return out.ToVector<double>();
}

// What RunWith measures from: set by InputsReady.
Stats g_start;
ScopedLogCapture* g_capture = nullptr;

// Ends a program's setup: syncs its inputs (burn's device.sync() before the FusionInspector is
// installed); launches and the trace table count from here.
void InputsReady() {
  Sync();
  g_start = GetStats();
  g_capture->Clear();
}

// `program` on a fresh stream: it builds its inputs, calls InputsReady, then queues the ops
// under test; the run syncs and reads them back.
ProgramRun RunWith(bool fusion, const std::function<Tensor()>& program) {
  UseFusion(fusion);
  ProgramRun run;
  ScopedLogCapture capture(LogLevel::kFull);
  g_capture = &capture;
  testing::OnFreshStream([&] {
    Tensor out = program();
    Sync();
    const Stats end = GetStats();
    run.launches = end.launches - g_start.launches;
    run.fused = end.fused_executions - g_start.fused_executions;
    run.values = ValuesOf(out);
  });
  g_capture = nullptr;
  run.log = capture.lines();
  UseFusion(true);
  return run;
}

// Runs `program` fused and unfused; both must compute `expected` exactly (every value here is
// exact in f32, so burn's default tolerance is not needed). Returns the fused run.
ProgramRun ExpectComputes(const std::function<Tensor()>& program,
                          const std::vector<double>& expected) {
  const ProgramRun fused = RunWith(true, program);
  const ProgramRun unfused = RunWith(false, program);
  EXPECT_EQ(fused.values, expected) << "fused";
  EXPECT_EQ(unfused.values, expected) << "unfused";
  return fused;
}

// Whether one trace of `fuser` in the fused run's trace table holds every op of `ops` (full log
// names; a trailing space keeps "NumericFloat::Add " from matching AddScalar). A segment runs
// from its "▸" row to the next one or to the table's end.
bool OneTraceHolds(const ProgramRun& run, const std::string& fuser,
                   const std::vector<std::string>& ops) {
  bool inside = false;
  std::vector<bool> seen;
  for (const std::string& line : run.log) {
    const bool row =
        !line.empty() && (std::isdigit(static_cast<unsigned char>(line[0])) || line[0] == ' ');
    if (!row) inside = false;
    if (row && line.find("\u25b8") != std::string::npos) {
      inside = line.find("\u25b8 fused " + fuser + " ") != std::string::npos;
      seen.assign(ops.size(), false);
    }
    if (!inside) continue;
    for (size_t i = 0; i < ops.size(); ++i) seen[i] = seen[i] || line.find(ops[i]) != line.npos;
    if (std::find(seen.begin(), seen.end(), false) == seen.end()) return true;
  }
  return false;
}

std::string TableOf(const ProgramRun& run) {
  std::string table;
  for (const std::string& line : run.log) {
    if (line.rfind("[", 0) != 0) table += line + "\n";
  }
  return table;
}

// burn: cat_then_elementwise_fuses_into_single_kernel
// (crates/burn-backend-tests/tests/fusion/cat.rs)
TEST(BurnCatFusion, CatThenElementwiseFusesIntoSingleKernel) {
  const ProgramRun run = ExpectComputes(
      [] {
        Tensor a = Tensor::FromVector<float>({0, 1, 2, 3, 4, 5, 6, 7}, {2, 4});
        Tensor b = Tensor::FromVector<float>({8, 9, 10, 11, 12, 13, 14, 15}, {2, 4});
        InputsReady();
        return Cat({a, b}, 0) * 2.0;
      },
      {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30});
  EXPECT_TRUE(OneTraceHolds(run, "ElementWise", {"BaseFloat::Cat", "NumericFloat::MulScalar"}))
      << TableOf(run);
  EXPECT_EQ(run.launches, 1u);
  EXPECT_EQ(run.fused, 1u);
}

// burn: cat_last_dim_with_unaligned_segments_fuses_and_computes_correctly
// (crates/burn-backend-tests/tests/fusion/cat.rs)
TEST(BurnCatFusion, CatLastDimWithUnalignedSegmentsFusesAndComputesCorrectly) {
  const ProgramRun run = ExpectComputes(
      [] {
        Tensor a = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
        Tensor b = Tensor::FromVector<float>({10, 20, 30, 40, 50, 60, 70, 80, 90, 100}, {2, 5});
        InputsReady();
        return Cat({a, b}, 1) + 1.0;
      },
      {2, 3, 4, 11, 21, 31, 41, 51, 5, 6, 7, 61, 71, 81, 91, 101});
  EXPECT_TRUE(OneTraceHolds(run, "ElementWise", {"BaseFloat::Cat", "NumericFloat::AddScalar"}))
      << TableOf(run);
  EXPECT_EQ(run.launches, 1u);
}

// burn: cat_three_inputs_middle_dim_computes_correctly
// (crates/burn-backend-tests/tests/fusion/cat.rs)
TEST(BurnCatFusion, CatThreeInputsMiddleDimComputesCorrectly) {
  const ProgramRun run = ExpectComputes(
      [] {
        Tensor a = Tensor::FromVector<float>({1, 2, 3, 4}, {2, 1, 2});
        Tensor b = Tensor::FromVector<float>({5, 6, 7, 8, 9, 10, 11, 12}, {2, 2, 2});
        Tensor c = Tensor::FromVector<float>({13, 14, 15, 16}, {2, 1, 2});
        InputsReady();
        return Cat({a, b, c}, 1) * 2.0;
      },
      {2, 4, 10, 12, 14, 16, 26, 28, 6, 8, 18, 20, 22, 24, 30, 32});
  EXPECT_TRUE(OneTraceHolds(run, "ElementWise", {"BaseFloat::Cat", "NumericFloat::MulScalar"}))
      << TableOf(run);
  EXPECT_EQ(run.launches, 1u);
}

// burn: cat_of_computed_input_splits_but_computes_correctly
// (crates/burn-backend-tests/tests/fusion/cat.rs). burn checks the values only. The Cat reads
// the MulScalar's output, which the open trace produces, so the ElementWise fuser closes on the
// Cat (burn's input_indexed rule); its trace, the MulScalar alone, saves no access, and the
// block runs both ops unfused: two launches.
TEST(BurnCatFusion, CatOfComputedInputSplitsButComputesCorrectly) {
  const ProgramRun run = ExpectComputes(
      [] {
        Tensor a = Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2});
        Tensor b = Tensor::FromVector<float>({5, 6, 7, 8}, {2, 2});
        InputsReady();
        return Cat({a * 10.0, b}, 0);
      },
      {10, 20, 30, 40, 5, 6, 7, 8});
  EXPECT_FALSE(OneTraceHolds(run, "ElementWise", {"NumericFloat::MulScalar", "BaseFloat::Cat"}))
      << TableOf(run);
  EXPECT_EQ(run.launches, 2u) << TableOf(run);
  EXPECT_EQ(run.fused, 0u);
}

// burn: cat_int_then_elementwise_computes_correctly
// (crates/burn-backend-tests/tests/fusion/cat.rs). burn's `+ 10` takes an int scalar; ember's
// operator+ takes a double, queued as the same NumericInt::AddScalar on the i32 tensor.
TEST(BurnCatFusion, CatIntThenElementwiseComputesCorrectly) {
  const ProgramRun run = ExpectComputes(
      [] {
        Tensor a = Tensor::FromVector<int32_t>({1, 2, 3}, {3});
        Tensor b = Tensor::FromVector<int32_t>({4, 5}, {2});
        InputsReady();
        return Cat({a, b}, 0) + 10.0;
      },
      {11, 12, 13, 14, 15});
  EXPECT_TRUE(OneTraceHolds(run, "ElementWise", {"BaseInt::Cat", "NumericInt::AddScalar"}))
      << TableOf(run);
  EXPECT_EQ(run.launches, 1u);
}

// burn: cat_bool_then_elementwise_computes_correctly
// (crates/burn-backend-tests/tests/fusion/cat.rs)
TEST(BurnCatFusion, CatBoolThenElementwiseComputesCorrectly) {
  const ProgramRun run = ExpectComputes(
      [] {
        Tensor a = Tensor::FromVector<bool>({true, false, true}, {3});
        Tensor b = Tensor::FromVector<bool>({false, true}, {2});
        Tensor c = Tensor::FromVector<bool>({true, true, false, false, true}, {5});
        InputsReady();
        return Cat({a, b}, 0).Equal(c);
      },
      {1, 0, 0, 1, 1});
  EXPECT_TRUE(OneTraceHolds(run, "ElementWise", {"BaseBool::Cat", "BaseBool::Equal"}))
      << TableOf(run);
  EXPECT_EQ(run.launches, 1u);
}

// burn: cat_transposed_input_last_dim_computes_correctly
// (crates/burn-backend-tests/tests/fusion/cat.rs)
TEST(BurnCatFusion, CatTransposedInputLastDimComputesCorrectly) {
  const ProgramRun run = ExpectComputes(
      [] {
        Tensor a = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}).SwapDims(0, 1);
        Tensor b = Tensor::FromVector<float>({10, 20, 30, 40, 50, 60}, {3, 2});
        InputsReady();
        return Cat({a, b}, 1) * 2.0;
      },
      {2, 8, 20, 40, 4, 10, 60, 80, 6, 12, 100, 120});
  EXPECT_TRUE(OneTraceHolds(run, "ElementWise", {"BaseFloat::Cat", "NumericFloat::MulScalar"}))
      << TableOf(run);
  EXPECT_EQ(run.launches, 1u);
}

// burn: cat_output_broadcast_by_elementwise_computes_correctly
// (crates/burn-backend-tests/tests/fusion/cat.rs). burn's fuser lets the Add grow the block's
// reference from the Cat's [1, 8] to [2, 8] and keeps both in one block. ember keeps an indexed
// op's output as its block's reference (docs/FIDELITY.md, "A block with an indexed op keeps that
// op's output as its reference"; IndexedFusion.ABlockWithAnIndexedOpDoesNotGrowPastItsOutput):
// the fuser closes on the Add, the Cat is a fused trace of its own (burn's check still holds),
// and the Add opens a second one. The values are burn's.
TEST(BurnCatFusion, CatOutputBroadcastByElementwiseComputesCorrectly) {
  const ProgramRun run = ExpectComputes(
      [] {
        Tensor a = Tensor::FromVector<float>({1, 2, 3}, {1, 3});
        Tensor b = Tensor::FromVector<float>({10, 20, 30, 40, 50}, {1, 5});
        Tensor c = Tensor::FromVector<float>(
            {100, 100, 100, 100, 100, 100, 100, 100, 200, 200, 200, 200, 200, 200, 200, 200},
            {2, 8});
        InputsReady();
        return Cat({a, b}, 1) + c;
      },
      {101, 102, 103, 110, 120, 130, 140, 150, 201, 202, 203, 210, 220, 230, 240, 250});
  EXPECT_TRUE(OneTraceHolds(run, "ElementWise", {"BaseFloat::Cat"})) << TableOf(run);
  EXPECT_FALSE(OneTraceHolds(run, "ElementWise", {"BaseFloat::Cat", "NumericFloat::Add "}))
      << TableOf(run);
  EXPECT_TRUE(OneTraceHolds(run, "ElementWise", {"NumericFloat::Add "})) << TableOf(run);
  EXPECT_EQ(run.launches, 2u);
  EXPECT_EQ(run.fused, 2u);
}

}  // namespace
}  // namespace ember
