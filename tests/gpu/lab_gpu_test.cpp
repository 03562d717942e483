// ember-lab's scenarios on the GPU: the real binary (tools/lab, EMBER_LAB_BINARY) with
// `--device cuda`, each run checked against its double-precision reference as on the CPU
// (tests/tools/lab/ember_lab_test.cpp), plus the device choice itself: `--device auto` takes
// CUDA device 0 when Device::Cuda(0) works and otherwise says why and runs on the CPU;
// `--device cuda` without a usable GPU fails with Device::Cuda(0)'s message and exit status 2.
//
// Whether a GPU is usable is decided the way ember-lab decides it, in this process:
// Device::Cuda(0) either works or throws ember::Error. The scenario tests skip without a GPU;
// the fallback tests skip with one.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include <ember/ember.h>

#include "store/shm/shared_segment.h"
#include "tests/common/temp_dir.h"
#include "tests/gpu/gpu_test_util.h"
#include "tests/tools/lab/lab_runner.h"

namespace ember::gpu {
namespace {

using test::ExpectCorrect;
using test::LabRun;
using test::RunLab;
using test::RunLabJson;

// Device::Cuda(0)'s reason without the "ember: " prefix ember-lab strips.
std::string CudaReason() {
  Device unused = Device::Cpu();
  std::string why = CudaUnavailable(&unused).value_or("");
  if (why.rfind("ember: ", 0) == 0) why.erase(0, 7);
  return why;
}

// Collapses runs of spaces and newlines, so a reason wrapped over two lines still matches.
std::string OneLine(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool space = c == ' ' || c == '\n';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  return out;
}

// Declares `var` as Device::Cuda(0), or skips: ember-lab runs on the real GPU only.
#define EMBER_LAB_CUDA_OR_SKIP(var)                               \
  ::ember::Device var = ::ember::Device::Cpu();                   \
  if (const auto ember_cuda_why = CudaUnavailable(&var)) {        \
    GTEST_SKIP() << "no usable CUDA device: " << *ember_cuda_why; \
  }                                                               \
  static_assert(true, "")

#define EMBER_SKIP_WITH_A_GPU()                                                          \
  do {                                                                                   \
    Device ember_gpu = Device::Cpu();                                                    \
    if (!CudaUnavailable(&ember_gpu)) GTEST_SKIP() << "a GPU is usable on this machine"; \
  } while (0)

TEST(LabGpu, AutoWithoutAGpuFallsBackToTheCpuAndSaysWhy) {
  EMBER_SKIP_WITH_A_GPU();
  test::TempDir dir;
  const nlohmann::json r = RunLabJson(dir, {"reuse", "--device", "auto", "--no-store"});
  ExpectCorrect(r);
  EXPECT_EQ(r["device"], "cpu");
  EXPECT_EQ(r["device_note"], "auto chose the CPU: " + CudaReason()) << r.dump(2);
  // The table says it too.
  const LabRun text = RunLab(dir, {"reuse", "--device", "auto", "--no-store", "--steps", "1"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(OneLine(text.out).find("auto chose the CPU: " + CudaReason()), std::string::npos)
      << text.out;
}

TEST(LabGpu, CudaWithoutAGpuFailsWithTheReason) {
  EMBER_SKIP_WITH_A_GPU();
  test::TempDir dir;
  const LabRun run = RunLab(dir, {"unrelated", "--device", "cuda", "--no-store"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--device cuda"), std::string::npos) << run.err;
  EXPECT_NE(OneLine(run.err).find(OneLine(CudaReason())), std::string::npos) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
  // The default run checks the device before it starts its cold and warm processes.
  const LabRun cold_warm = RunLab(dir, {"--device", "cuda", "--steps", "1"});
  EXPECT_EQ(cold_warm.exit_code, 2) << cold_warm.err;
}

TEST(LabGpu, AutoWithAGpuChoosesIt) {
  EMBER_LAB_CUDA_OR_SKIP(cuda);
  test::TempDir dir;
  const nlohmann::json r = RunLabJson(dir, {"reuse", "--device", "auto", "--no-store"});
  ExpectCorrect(r);
  EXPECT_EQ(r["device"], cuda.ToString());
  EXPECT_EQ(r["device_note"], "");
}

TEST(LabGpu, ReuseFollowsTheSeedWalkthroughOnCuda) {
  EMBER_LAB_CUDA_OR_SKIP(cuda);
  test::TempDir dir;
  const nlohmann::json r =
      RunLabJson(dir, {"reuse", "--device", "cuda", "--db", dir.File("plans.db")});
  ExpectCorrect(r);
  EXPECT_EQ(r["device"], cuda.ToString());
  const auto& steps = r["step_rows"];
  ASSERT_EQ(steps.size(), 6u) << r.dump(2);
  EXPECT_GT(steps[0]["explorations"].get<int>(), 0);
  for (int i : {1, 2, 3, 4}) {
    EXPECT_EQ(steps[i]["explorations"].get<int>(), 0) << steps[i]["label"];
    EXPECT_GT(steps[i]["cache_hits"].get<int>(), 0) << steps[i]["label"];
  }
  EXPECT_EQ(steps[5]["label"], "non-square (64x32, s=2)");
  EXPECT_GT(steps[5]["explorations"].get<int>(), 0);
  for (const auto& s : steps) EXPECT_EQ(s["fused_executions"].get<int>(), 1) << s["label"];
}

TEST(LabGpu, UnrelatedChainsRunAsOneLaunchOnCuda) {
  EMBER_LAB_CUDA_OR_SKIP(cuda);
  test::TempDir dir;
  const nlohmann::json r =
      RunLabJson(dir, {"unrelated", "--device", "cuda", "--no-store", "--steps", "3"});
  ExpectCorrect(r);
  EXPECT_EQ(r["details"]["ops_per_sync"].get<int>(), 40);
  EXPECT_EQ(r["details"]["first_sync_launches"].get<int>(), 1);
  EXPECT_EQ(r["details"]["last_sync_launches"].get<int>(), 1);
  const LabRun log =
      RunLab(dir, {"unrelated", "--device", "cuda", "--no-store", "--steps", "1", "--log", "full"});
  ASSERT_EQ(log.exit_code, 0) << log.err;
  EXPECT_NE(log.err.find("▸ fused ElementWise (score=7390, 40 ops)"), std::string::npos);
}

TEST(LabGpu, MlpTrainsOnCuda) {
  EMBER_LAB_CUDA_OR_SKIP(cuda);
  test::TempDir dir;
  const nlohmann::json r = RunLabJson(dir, {"mlp", "--device", "cuda", "--no-store", "--batch",
                                            "64", "--width", "128", "--steps", "4"});
  ExpectCorrect(r);
  EXPECT_GT(r["fused_executions"].get<int>(), 0);
}

TEST(LabGpu, DefaultColdThenWarmOnCuda) {
  EMBER_LAB_CUDA_OR_SKIP(cuda);
  test::TempDir dir;
  const nlohmann::json r = RunLabJson(dir, {"--device", "cuda", "--steps", "3"});
  ASSERT_TRUE(r.contains("cold") && r.contains("warm")) << r.dump();
  ExpectCorrect(r["cold"]);
  ExpectCorrect(r["warm"]);
  EXPECT_EQ(r["cold"]["device"], cuda.ToString());
  EXPECT_EQ(r["warm"]["explorations"].get<int>(), 0);
  EXPECT_GT(r["cold"]["kernels_compiled"].get<int>(), 0);
  EXPECT_EQ(r["warm"]["kernels_compiled"].get<int>(), 0) << r["warm"].dump(2);
}

// A warm start in a new process finds every plan in the database and explores nothing, and
// (issue 16) compiles nothing: every kernel comes from the database; and it computes exactly
// what the cold run computed.
TEST(LabGpu, AWarmTransformerCompilesNothingAndMatchesTheColdRun) {
  EMBER_LAB_CUDA_OR_SKIP(cuda);
  test::TempDir dir;
  const std::vector<std::string> args = {"transformer",        "--device", "cuda", "--db",
                                         dir.File("plans.db"), "--steps",  "3"};
  const nlohmann::json cold = RunLabJson(dir, args);
  ExpectCorrect(cold);
  EXPECT_GT(cold["kernels_compiled"].get<int>(), 0);
  EXPECT_EQ(cold["kernels_loaded_from_db"].get<int>(), 0);
  const nlohmann::json warm = RunLabJson(dir, args);
  ExpectCorrect(warm);
  EXPECT_GT(cold["explorations"].get<int>(), 0);
  EXPECT_EQ(warm["explorations"].get<int>(), 0);
  EXPECT_GT(warm["cache_hits_from_db"].get<int>(), 0);
  EXPECT_EQ(warm["kernels_compiled"].get<int>(), 0) << warm.dump(2);
  EXPECT_EQ(warm["kernels_rebuilt"].get<int>(), 0);
  EXPECT_GT(warm["kernels_loaded_from_db"].get<int>(), 0);
  // Issue 43: the start is broken down; the context, the database and the stored kernels took
  // time, and the first op was queued within the engine's start and the first result.
  EXPECT_GT(warm["start_context_ms"].get<double>(), 0) << warm.dump(2);
  EXPECT_GT(warm["start_plan_db_open_ms"].get<double>(), 0);
  EXPECT_GT(warm["start_kernel_load_ms"].get<double>(), 0);
  EXPECT_GT(warm["start_first_op_ms"].get<double>(), 0);
  EXPECT_LE(warm["start_engine_ms"].get<double>(), warm["engine_start_ms"].get<double>());
  // The same kernels on the same inputs: the same error against the reference, bit for bit.
  EXPECT_EQ(warm["max_rel_error"], cold["max_rel_error"]);
  EXPECT_EQ(warm["fused_executions"], cold["fused_executions"]);
}

// Four workers on one fresh database and one GPU compile each kernel once between them: the
// kernels they compiled add up to the distinct kernels the database ends up with.
TEST(LabGpu, FourWorkersCompileEachKernelOnceBetweenThem) {
  EMBER_LAB_CUDA_OR_SKIP(cuda);
  test::TempDir dir;
  const std::string db = dir.File("plans.db");
  const nlohmann::json r = RunLabJson(
      dir, {"workers", "4", "transformer", "--device", "cuda", "--db", db, "--steps", "3"});
  SharedSegment::RemoveAll(db);
  ASSERT_EQ(r["workers"].size(), 4u) << r.dump();
  int compiled = 0;
  int loaded = 0;
  for (const auto& w : r["workers"]) {
    ExpectCorrect(w);
    compiled += w["kernels_compiled"].get<int>();
    loaded += w["kernels_loaded_from_shm"].get<int>() + w["kernels_loaded_from_db"].get<int>();
  }
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* count = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(handle, "SELECT count(*) FROM kernels", -1, &count, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(count), SQLITE_ROW);
  const int stored = sqlite3_column_int(count, 0);
  sqlite3_finalize(count);
  sqlite3_close(handle);
  EXPECT_GT(stored, 0);
  EXPECT_EQ(compiled, stored) << r.dump(2);
  EXPECT_GE(loaded, 3 * stored);  // the three others loaded every one of them
}

TEST(LabGpu, DynamicHonoursTheCapOnCuda) {
  EMBER_LAB_CUDA_OR_SKIP(cuda);
  test::TempDir dir;
  const nlohmann::json r =
      RunLabJson(dir, {"dynamic", "--device", "cuda", "--db", dir.File("plans.db"),
                       "--max-explorations", "9", "--steps", "6"});
  ExpectCorrect(r);
  EXPECT_EQ(r["explorations"].get<int>(), 9);
}

TEST(LabGpu, WorkersShareOneDatabaseOnCuda) {
  EMBER_LAB_CUDA_OR_SKIP(cuda);
  test::TempDir dir;
  const nlohmann::json r =
      RunLabJson(dir, {"workers", "2", "reuse", "--device", "cuda", "--db", dir.File("plans.db")});
  SharedSegment::RemoveAll(dir.File("plans.db"));
  ASSERT_EQ(r["workers"].size(), 2u) << r.dump();
  for (const auto& w : r["workers"]) {
    ExpectCorrect(w);
    EXPECT_EQ(w["device"], cuda.ToString());
  }
}

}  // namespace
}  // namespace ember::gpu
