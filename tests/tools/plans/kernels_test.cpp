// ember-plans and the compiled kernels of a plan database (Note [Kernel links],
// store/admin/kernel_inventory.h): ls counts them, show lists them and prints their source,
// stats counts them by architecture, verify reports orphans, damage and links across
// environments, gc removes the kernels no plan uses, and bundles carry them but import them only
// with --trust-kernels (Note [Bundle kernels are code], store/admin/bundle_kernels.h). The
// kernels are rows written with PlanRepository::PutKernel onto copies of an engine database: a
// binary is just bytes here, no GPU needed.
#include <gtest/gtest.h>

#include <algorithm>

#include "store/shm/shared_segment.h"
#include "tests/tools/plans/plans_test_util.h"

namespace ember::plans_test {
namespace {

constexpr char kSharedSource[] =
    "extern \"C\" __global__ void ember_fused_0(float* out) { out[threadIdx.x] = 1.0f; }\n";

// A kernel of `name` compiled from `source` for `arch`, its binary `bytes` bytes.
NewKernel Kernel(const std::string& name, const std::string& source, const std::string& arch,
                 size_t bytes) {
  Blob binary(bytes, 0xCC);
  binary[0] = 0x7f;
  return {.key = {.source_hash = sqlite_test::BytesOf("hash of " + name),
                  .arch = arch,
                  .compiler_version = "nvrtc 12.4"},
          .binary = binary,
          .text = {.name = name, .source = source, .options = "--gpu-architecture=" + arch}};
}

// A copy of the engine's database with three kernels: `shared_` used by plans first_ and
// second_, `own_` used by first_ alone (another architecture), and `orphan_`, used by none.
class PlansKernels : public EngineDatabaseSuite {
 protected:
  void SetUp() override {
    copy_ = CopyDatabase(db_, scratch_.File("copy.db"));
    const nlohmann::json plans = Json(PlansOn(copy_, {"ls", "--json"}));
    ASSERT_GE(plans.size(), 3u) << plans.dump(2);
    first_ = plans[0]["id"];
    second_ = plans[1]["id"];
    env_ = plans[0]["environment_id"];
    std::unique_ptr<PlanRepository> repo = test::OpenRepository(copy_);
    ASSERT_NE(repo, nullptr);
    shared_ = Put(*repo, Kernel("ember_fused_0", kSharedSource, "sm_90", 64), {first_, second_});
    own_ = Put(*repo, Kernel("ember_fused_1", "// the second\n", "sm_80", 32), {first_});
    orphan_ = Put(*repo, Kernel("ember_orphan", "// no plan\n", "sm_90", 16), {});
  }

  // Stores `kernel` linked to each of `plans` (none: a kernel no plan uses).
  KernelRowId Put(PlanRepository& repo, NewKernel kernel, const std::vector<PlanRowId>& plans) {
    KernelRowId id = 0;
    if (plans.empty()) {
      EXPECT_TRUE(repo.PutKernel(env_, kernel, &id).ok());
    }
    for (const PlanRowId plan : plans) {
      kernel.plan_id = plan;
      EXPECT_TRUE(repo.PutKernel(env_, kernel, &id).ok());
    }
    return id;
  }

  std::string Export(const std::string& name) {
    const std::string bundle = scratch_.File(name);
    const PlansRun run = PlansOn(copy_, {"export", bundle});
    EXPECT_EQ(run.code, 0) << run.err;
    return bundle;
  }

  static std::string Label(KernelRowId id, const std::string& name, const std::string& arch) {
    return "kernel " + std::to_string(id) + " (" + name + ", " + arch + ")";
  }

  TempDir scratch_;
  std::string copy_;
  PlanRowId first_ = 0;
  PlanRowId second_ = 0;
  EnvironmentRowId env_ = 0;
  KernelRowId shared_ = 0;
  KernelRowId own_ = 0;
  KernelRowId orphan_ = 0;
};

TEST_F(PlansKernels, LsCountsEachPlansKernels) {
  const nlohmann::json plans = Json(PlansOn(copy_, {"ls", "--json"}));
  for (const nlohmann::json& p : plans) {
    const int64_t expected = p["id"] == first_ ? 2 : p["id"] == second_ ? 1 : 0;
    EXPECT_EQ(p["kernels"], expected) << p.dump();
  }
  const PlansRun human = PlansOn(copy_, {"ls"});
  EXPECT_NE(human.out.find("kernels"), std::string::npos) << human.out;
  EXPECT_TRUE(WideLines(human.out).empty()) << human.out;
}

TEST_F(PlansKernels, ShowListsAPlansKernelsAndTheirSource) {
  const PlansRun human = PlansOn(copy_, {"show", std::to_string(first_)});
  ASSERT_EQ(human.code, 0) << human.err;
  EXPECT_NE(human.out.find("kernels (2)"), std::string::npos) << human.out;
  for (const char* text : {"ember_fused_0", "ember_fused_1", "sm_80", "nvrtc 12.4", "64 B"}) {
    EXPECT_NE(human.out.find(text), std::string::npos) << text << "\n" << human.out;
  }
  EXPECT_EQ(human.out.find("ember_orphan"), std::string::npos) << human.out;
  EXPECT_EQ(human.out.find("threadIdx"), std::string::npos) << "source without --source";

  const nlohmann::json json = Json(PlansOn(copy_, {"show", std::to_string(first_), "--json"}));
  ASSERT_EQ(json["kernels"].size(), 2u) << json.dump(2);
  const nlohmann::json& shared = json["kernels"][0];
  EXPECT_EQ(shared["id"], shared_);
  EXPECT_EQ(shared["name"], "ember_fused_0");
  EXPECT_EQ(shared["arch"], "sm_90");
  EXPECT_EQ(shared["compiler_version"], "nvrtc 12.4");
  EXPECT_EQ(shared["bytes"], 64);
  EXPECT_EQ(shared["options"], "--gpu-architecture=sm_90");
  EXPECT_EQ(shared["plans"], nlohmann::json::array({first_, second_}));
  EXPECT_EQ(shared["compiled_for"], first_);
  EXPECT_EQ(shared["has_source"], true);
  EXPECT_TRUE(shared["problem"].is_null());
  EXPECT_FALSE(shared.contains("source"));

  const PlansRun source = PlansOn(copy_, {"show", std::to_string(first_), "--source"});
  ASSERT_EQ(source.code, 0) << source.err;
  const size_t header = source.out.find("source of " + Label(shared_, "ember_fused_0", "sm_90") +
                                        "; nvrtc 12.4; options: --gpu-architecture=sm_90");
  ASSERT_NE(header, std::string::npos) << source.out;
  EXPECT_NE(source.out.find(kSharedSource, header), std::string::npos) << source.out;
  EXPECT_NE(source.out.find("source of " + Label(own_, "ember_fused_1", "sm_80")),
            std::string::npos)
      << source.out;
  const nlohmann::json with_source =
      Json(PlansOn(copy_, {"show", std::to_string(second_), "--source", "--json"}));
  ASSERT_EQ(with_source["kernels"].size(), 1u);
  EXPECT_EQ(with_source["kernels"][0]["source"], kSharedSource);
}

// Rows of schema 1 (or written by tests) have no text: show says so instead of printing nothing.
TEST_F(PlansKernels, ShowSaysWhenAKernelHasNoSource) {
  {
    RawDb raw(copy_);
    raw.Exec("UPDATE kernels SET source = '', name = '' WHERE id = " + std::to_string(own_));
  }
  const PlansRun run = PlansOn(copy_, {"show", std::to_string(first_), "--source"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("source of " + Label(own_, "unnamed", "sm_80")), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("no source stored"), std::string::npos) << run.out;
  const nlohmann::json json =
      Json(PlansOn(copy_, {"show", std::to_string(first_), "--source", "--json"}));
  EXPECT_EQ(json["kernels"][1]["has_source"], false);
  EXPECT_EQ(json["kernels"][1]["source"], "");
}

TEST_F(PlansKernels, StatsCountsKernelsByArchitecture) {
  const nlohmann::json stats = Json(PlansOn(copy_, {"stats", "--json"}));
  EXPECT_EQ(stats["kernels"], 3);
  EXPECT_EQ(stats["kernel_bytes"], 64 + 32 + 16);
  const nlohmann::json expected = nlohmann::json::parse(R"([
      {"arch": "sm_80", "compiler_version": "nvrtc 12.4", "kernels": 1, "bytes": 32},
      {"arch": "sm_90", "compiler_version": "nvrtc 12.4", "kernels": 2, "bytes": 80}])");
  EXPECT_EQ(stats["kernels_by_arch"], expected) << stats.dump(2);
  const PlansRun human = PlansOn(copy_, {"stats"});
  EXPECT_NE(human.out.find("sm_80"), std::string::npos) << human.out;
  EXPECT_NE(human.out.find("80 B"), std::string::npos) << human.out;
}

// An orphan is listed but healthy (an unfused run's kernels are linked to no plan); damage is a
// problem.
TEST_F(PlansKernels, VerifyListsAnOrphanAndReportsADamagedBinary) {
  PlansRun run = PlansOn(copy_, {"verify"});
  EXPECT_EQ(run.code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("1 kernel(s) no plan uses (ember-plans gc removes them): " +
                         Label(orphan_, "ember_orphan", "sm_90")),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("healthy"), std::string::npos) << run.out;
  {
    RawDb raw(copy_);
    raw.Exec("UPDATE kernels SET binary = X'7f00' WHERE id = " + std::to_string(shared_));
  }
  run = PlansOn(copy_, {"verify"});
  EXPECT_NE(run.out.find(Label(shared_, "ember_fused_0", "sm_90") + ": checksum mismatch"),
            std::string::npos)
      << run.out;
  const nlohmann::json json = Json(PlansOn(copy_, {"verify", "--json"}));
  EXPECT_EQ(json["kernels_checked"], 3);
  EXPECT_EQ(json["problems"].size(), 1u) << json.dump(2);
  EXPECT_EQ(json["orphan_kernels"],
            nlohmann::json::array({Label(orphan_, "ember_orphan", "sm_90")}));
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.out.find("1 problem(s) found"), std::string::npos) << run.out;
  // show marks the damaged binary too.
  const nlohmann::json show = Json(PlansOn(copy_, {"show", std::to_string(second_), "--json"}));
  EXPECT_EQ(show["kernels"][0]["problem"], "checksum mismatch");
}

// The engine looks kernels up by its own environment: a plan using a kernel of another one is
// not what any compile stored.
TEST_F(PlansKernels, VerifyReportsAKernelUsedAcrossEnvironments) {
  {
    std::unique_ptr<PlanRepository> repo = test::OpenRepository(copy_);
    EnvironmentRowId other = 0;
    ASSERT_TRUE(repo->EnsureEnvironment(test::SampleEnvironment("Other"), &other).ok());
    NewKernel stray = Kernel("ember_stray", "// stray\n", "sm_90", 8);
    stray.plan_id = first_;
    KernelRowId id = 0;
    ASSERT_TRUE(repo->PutKernel(other, stray, &id).ok());
  }
  const PlansRun run = PlansOn(copy_, {"verify"});
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.out.find("used by plan " + std::to_string(first_) + " of environment " +
                         std::to_string(env_) + ", but compiled for environment"),
            std::string::npos)
      << run.out;
}

TEST_F(PlansKernels, GcRemovesTheKernelsNoPlanUses) {
  const std::string before = ReadFile(copy_);
  const PlansRun dry = PlansOn(copy_, {"gc", "--dry-run", "--json"});
  ASSERT_EQ(dry.code, 0) << dry.err;
  nlohmann::json report = Json(dry);
  EXPECT_TRUE(report["evicted"].empty());
  EXPECT_EQ(report["kernels_removed"], 1);
  EXPECT_EQ(report["kernel_bytes_removed"], 16);
  ASSERT_EQ(report["removed_kernels"].size(), 1u);
  EXPECT_EQ(report["removed_kernels"][0]["id"], orphan_);
  EXPECT_EQ(report["removed_kernels"][0]["name"], "ember_orphan");
  EXPECT_EQ(ReadFile(copy_), before);
  EXPECT_NE(PlansOn(copy_, {"gc", "--dry-run"})
                .out.find("would remove 1 kernel(s) no plan uses "
                          "(16 B)"),
            std::string::npos);

  const PlansRun run = PlansOn(copy_, {"gc"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("evicted 0 of"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("removed 1 kernel(s) no plan uses (16 B)"), std::string::npos) << run.out;
  EXPECT_EQ(Json(PlansOn(copy_, {"stats", "--json"}))["kernels"], 2);
  EXPECT_EQ(PlansOn(copy_, {"verify"}).code, 0);

  // Every plan evicted: their kernels go with them, in the same run.
  report = Json(PlansOn(copy_, {"gc", "--max-bytes", "0", "--json"}));
  EXPECT_EQ(report["kernels_removed"], 2);
  EXPECT_EQ(report["kernel_bytes_removed"], 96);
  RawDb raw(copy_);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM kernels"), 0);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM plan_kernels"), 0);
}

TEST_F(PlansKernels, GcKeepsAKernelAnotherPlanStillUses) {
  {
    RawDb raw(copy_);  // first_ was last used 40 days ago
    raw.Exec(
        "UPDATE plans SET created = created - 3456000000, last_hit = last_hit - 3456000000 "
        "WHERE id = " +
        std::to_string(first_));
  }
  const nlohmann::json report = Json(PlansOn(copy_, {"gc", "--older-than", "30d", "--json"}));
  ASSERT_EQ(report["evicted"].size(), 1u) << report.dump(2);
  std::vector<int64_t> removed;
  for (const nlohmann::json& k : report["removed_kernels"]) removed.push_back(k["id"]);
  std::sort(removed.begin(), removed.end());
  EXPECT_EQ(removed, (std::vector<int64_t>{own_, orphan_}));
  const nlohmann::json show = Json(PlansOn(copy_, {"show", std::to_string(second_), "--json"}));
  ASSERT_EQ(show["kernels"].size(), 1u);
  EXPECT_EQ(show["kernels"][0]["plans"], nlohmann::json::array({second_}));
  EXPECT_EQ(PlansOn(copy_, {"verify"}).code, 0);
}

// Note [Plans in use by a live segment]: gc keeps the plans a live segment holds, and so their
// kernels; only the kernel no plan uses goes.
TEST_F(PlansKernels, GcKeepsTheKernelsOfPlansALiveSegmentHolds) {
  if (!std::filesystem::is_directory("/dev/shm")) GTEST_SKIP() << "no POSIX shared memory";
  const std::string db = scratch_.File("live.db");
  struct RemoveSegments {
    std::string db;
    ~RemoveSegments() { EXPECT_TRUE(SharedSegment::RemoveAll(db).ok()); }
  } cleanup{db};
  RunEngine(db, "seed", {"EMBER_SHM=on", "EMBER_WORKLOAD=seed-job"});
  ASSERT_FALSE(SharedSegment::NamesFor(db).empty()) << "the engine made no shared segment";
  const nlohmann::json plans = Json(PlansOn(db, {"ls", "--json"}));
  ASSERT_FALSE(plans.empty());
  {
    std::unique_ptr<PlanRepository> repo = test::OpenRepository(db);
    Put(*repo, Kernel("ember_fused_0", kSharedSource, "sm_90", 64), {plans[0]["id"]});
    Put(*repo, Kernel("ember_orphan", "// no plan\n", "sm_90", 16), {});
  }
  const nlohmann::json report = Json(PlansOn(db, {"gc", "--max-bytes", "0", "--json"}));
  EXPECT_TRUE(report["evicted"].empty()) << report.dump(2);
  EXPECT_EQ(report["kernels_removed"], 1);
  EXPECT_EQ(report["removed_kernels"][0]["name"], "ember_orphan");
  EXPECT_EQ(Json(PlansOn(db, {"stats", "--json"}))["kernels"], 1);
}

TEST_F(PlansKernels, ABundleCarriesTheKernelsItsPlansUse) {
  const std::string bundle = Export("warm.bundle");
  RawDb raw(bundle);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM kernels"), 2);  // not the orphan
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM plan_kernels"), 3);
  EXPECT_EQ(raw.Int("SELECT value FROM bundle_manifest WHERE key = 'kernels'"), 2);
  EXPECT_EQ(raw.Text("SELECT source FROM kernels WHERE name = 'ember_fused_0'"), kSharedSource);
  const nlohmann::json exported =
      Json(PlansOn(copy_, {"export", scratch_.File("json.bundle"), "--json"}));
  EXPECT_EQ(exported["kernels"], 2);
  EXPECT_EQ(exported["kernels_skipped_damaged"], 0);
}

// Note [Bundle kernels are code]: without --trust-kernels the plans come, the binaries do not.
TEST_F(PlansKernels, ImportLeavesKernelsOutUnlessTrusted) {
  const std::string bundle = Export("warm.bundle");
  const std::string fleet = scratch_.File("fleet.db");
  const PlansRun untrusted = PlansOn(fleet, {"import", bundle});
  ASSERT_EQ(untrusted.code, 0) << untrusted.err << untrusted.out;
  EXPECT_NE(untrusted.out.find("2 kernel(s) not imported"), std::string::npos) << untrusted.out;
  EXPECT_NE(untrusted.out.find("--trust-kernels"), std::string::npos) << untrusted.out;
  EXPECT_EQ(Json(PlansOn(fleet, {"stats", "--json"}))["kernels"], 0);
  const int64_t plans = Json(PlansOn(copy_, {"stats", "--json"}))["plans"];
  EXPECT_EQ(Json(PlansOn(fleet, {"stats", "--json"}))["plans"], plans);

  // Trusted, a kernel still comes only as its plans' own (Note [Kernels are their plans'],
  // store/admin/bundle_kernel_check.h): these rows are stored under made-up keys, not the keys
  // of their text, so both are refused, named, and the engine compiles them again.
  const std::string trusted_fleet = scratch_.File("trusted.db");
  const PlansRun trusted = PlansOn(trusted_fleet, {"import", bundle, "--trust-kernels", "--json"});
  ASSERT_EQ(trusted.code, 1) << trusted.err << trusted.out;
  const nlohmann::json result = Json(trusted);
  EXPECT_EQ(result["trust_kernels"], true);
  EXPECT_EQ(result["kernels_added"], 0);
  EXPECT_EQ(result["kernels_existing"], 0);
  EXPECT_EQ(result["kernels_skipped_untrusted"], 0);
  EXPECT_EQ(result["kernels_refused"], 2);
  for (const nlohmann::json& refusal : result["refusals"]) {
    EXPECT_NE(refusal["reason"].get<std::string>().find("its key is not the hash"),
              std::string::npos)
        << refusal.dump();
  }
  EXPECT_EQ(Json(PlansOn(trusted_fleet, {"stats", "--json"}))["kernels"], 0);
  EXPECT_EQ(Json(PlansOn(trusted_fleet, {"stats", "--json"}))["plans"], plans);
  EXPECT_EQ(PlansOn(trusted_fleet, {"verify"}).code, 0);
  const nlohmann::json again = Json(PlansOn(fleet, {"import", bundle, "--json"}));
  EXPECT_EQ(again["kernels_skipped_untrusted"], 2);
  EXPECT_EQ(again["kernels_added"], 0);
  const PlansRun human = PlansOn(trusted_fleet, {"import", bundle, "--trust-kernels"});
  EXPECT_NE(human.out.find("kernels: 0 imported, 0 existing (local binary kept), 2 refused"),
            std::string::npos)
      << human.out;
}

TEST_F(PlansKernels, ADamagedKernelInABundleIsRefusedByName) {
  const std::string bundle = Export("damaged.bundle");
  int64_t id = 0;
  {
    RawDb raw(bundle);
    id = raw.Int("SELECT id FROM kernels WHERE name = 'ember_fused_1'");
    raw.Exec("UPDATE kernels SET binary = X'7f0001' WHERE id = " + std::to_string(id));
  }
  const std::string fleet = scratch_.File("fleet.db");
  const PlansRun run = PlansOn(fleet, {"import", bundle, "--trust-kernels", "--json"});
  EXPECT_EQ(run.code, 1) << run.err;
  const nlohmann::json result = Json(run);
  EXPECT_EQ(result["refused"], 0);  // the plans are fine
  // The damaged one for its checksum; the other for its made-up key (Note [Kernels are their
  // plans'], store/admin/bundle_kernel_check.h).
  EXPECT_EQ(result["kernels_added"], 0);
  EXPECT_EQ(result["kernels_refused"], 2);
  ASSERT_EQ(result["refusals"].size(), 2u);
  bool damaged_named = false;
  for (const nlohmann::json& refusal : result["refusals"]) {
    if (refusal["row"] != Label(id, "ember_fused_1", "sm_80")) continue;
    damaged_named = true;
    EXPECT_NE(refusal["reason"].get<std::string>().find("checksum mismatch"), std::string::npos);
  }
  EXPECT_TRUE(damaged_named) << result["refusals"].dump();
  RawDb raw(fleet);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM kernels WHERE name = 'ember_fused_1'"), 0);
  const PlansRun human = PlansOn(scratch_.File("human.db"), {"import", bundle, "--trust-kernels"});
  EXPECT_EQ(human.code, 1);
  EXPECT_NE(human.out.find("refused " + Label(id, "ember_fused_1", "sm_80") + ": checksum"),
            std::string::npos)
      << human.out;
}

}  // namespace
}  // namespace ember::plans_test
