// Indexed inputs (Note [Indexed inputs], engine/trace/fuse_trace.h) in the traces of the other
// fusers, on the CPU: an embedding lookup read by a row reduce (the ReduceBroadcasted fuser
// takes the Select or Gather into its first block), a Select in a matmul's epilogue, and a Cat
// of a matmul trace's own output, which closes that trace as burn's rule says. Each program runs
// fused and unfused; the CPU keeps them bit-identical, the fused run launches fewer kernels, and
// its trace table (EMBER_LOG=full) shows the indexed op inside the expected fuser's trace.
#include <bit>
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
  std::vector<float> values;
  uint64_t launches = 0;
  uint64_t fused = 0;
  std::vector<std::string> log;
};

ProgramRun RunWith(bool fusion, const std::function<Tensor()>& program) {
  UseFusion(fusion);
  ProgramRun run;
  ScopedLogCapture capture(LogLevel::kFull);
  testing::OnFreshStream([&] {
    const Stats start = GetStats();
    Tensor out = program();
    Sync();
    const Stats end = GetStats();
    run.launches = end.launches - start.launches;
    run.fused = end.fused_executions - start.fused_executions;
    run.values = out.ToVector<float>();
  });
  run.log = capture.lines();
  UseFusion(true);
  return run;
}

std::vector<float> Wave(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>((i * 7919) % 97) / 97.0f - 0.4f;
  return v;
}

// Runs `program` fused and unfused: equal bits, and fewer launches fused.
ProgramRun ExpectFusedAsUnfused(const std::function<Tensor()>& program) {
  const ProgramRun fused = RunWith(true, program);
  const ProgramRun unfused = RunWith(false, program);
  EXPECT_EQ(fused.values.size(), unfused.values.size());
  if (fused.values.size() != unfused.values.size()) return fused;
  for (size_t i = 0; i < fused.values.size(); ++i) {
    EXPECT_EQ(std::bit_cast<uint32_t>(fused.values[i]), std::bit_cast<uint32_t>(unfused.values[i]))
        << i << ": fused " << fused.values[i] << ", unfused " << unfused.values[i];
  }
  EXPECT_GE(fused.fused, 1u);
  EXPECT_LT(fused.launches, unfused.launches);
  return fused;
}

// Whether the fused run's trace table (EMBER_LOG=full) shows `op` inside a trace of `fuser`:
// the rows from "▸ fused <fuser>" up to the next segment or the table's end.
bool FusedInto(const ProgramRun& run, const std::string& fuser, const std::string& op) {
  bool inside = false;
  for (const std::string& line : run.log) {
    // The table's rows start with an op index or with spaces; any other line ends it.
    const bool row =
        !line.empty() && (std::isdigit(static_cast<unsigned char>(line[0])) || line[0] == ' ');
    if (!row) inside = false;
    if (row && line.find("\u25b8") != std::string::npos) {
      inside = line.find("\u25b8 fused " + fuser + " ") != std::string::npos;
    }
    if (inside && line.find(op) != std::string::npos) return true;
  }
  return false;
}

TEST(IndexedInReduceMatmul, AnEmbeddingLookupFeedsARowNormalisation) {
  const std::vector<float> table = Wave(9 * 32, 3.0f), pos = Wave(6 * 32, 1.0f);
  const std::vector<int64_t> idx = {8, 0, 3, 11, 3, 5};  // 11 is out of range: a row of zeros
  const ProgramRun fused = ExpectFusedAsUnfused([&] {
    Tensor t = Tensor::FromVector(table, {9, 32});
    Tensor i = Tensor::FromVector(idx, {6});
    Tensor p = Tensor::FromVector(pos, {6, 32});
    Sync();
    Tensor e = t.Select(0, i) + p;
    Tensor d = e - e.MeanDim(-1);
    Tensor var = (d * d).MeanDim(-1);
    return d / (var + 1e-5).Sqrt();
  });
  EXPECT_TRUE(FusedInto(fused, "ReduceBroadcasted", "Select"));
}

TEST(IndexedInReduceMatmul, AGatherFeedsASoftmax) {
  const std::vector<float> x = Wave(4 * 16, 4.0f);
  std::vector<int32_t> idx(4 * 16);
  for (size_t k = 0; k < idx.size(); ++k) idx[k] = static_cast<int32_t>((k * 5) % 17) - 1;
  const ProgramRun fused = ExpectFusedAsUnfused([&] {
    Tensor tx = Tensor::FromVector(x, {4, 16});
    Tensor ti = Tensor::FromVector(idx, {4, 16});
    Sync();
    Tensor g = tx.Gather(1, ti) * 0.5;
    Tensor e = (g - g.MaxDim(-1)).Exp();
    return e / e.SumDim(-1);
  });
  EXPECT_TRUE(FusedInto(fused, "ReduceBroadcasted", "Gather"));
}

TEST(IndexedInReduceMatmul, ASelectAndACatInAMatmulEpilogue) {
  const std::vector<float> a = Wave(5 * 8, 1.0f), b = Wave(8 * 6, 1.0f);
  const std::vector<float> bias = Wave(3 * 6, 2.0f), left = Wave(5 * 2, 1.0f);
  const std::vector<int64_t> rows = {2, 0, 1, 1, 2};
  const ProgramRun fused = ExpectFusedAsUnfused([&] {
    Tensor ta = Tensor::FromVector(a, {5, 8});
    Tensor tb = Tensor::FromVector(b, {8, 6});
    Tensor tbias = Tensor::FromVector(bias, {3, 6});
    Tensor tr = Tensor::FromVector(rows, {5});
    Tensor tl = Tensor::FromVector(left, {5, 2});
    Sync();
    Tensor y = ta.Matmul(tb) + tbias.Select(0, tr);
    return Cat({tl, y.Clamp(0.0, 1e30)}, 1) * 2.0;
  });
  // The epilogue takes the Select; the Cat reads the matmul trace's own output, which closes
  // it (an indexed tensor may not be an output of the trace), and opens an ElementWise trace.
  EXPECT_TRUE(FusedInto(fused, "Matmul", "Select"));
  EXPECT_FALSE(FusedInto(fused, "Matmul", "Cat"));
  EXPECT_TRUE(FusedInto(fused, "ElementWise", "Cat"));
}

}  // namespace
}  // namespace ember
