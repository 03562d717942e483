// Compiled kernels: returned only for an exact (source hash, arch, compiler version) match and
// a matching checksum; a damaged binary is never returned, and is deleted and logged.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/core/log.h"
#include "store/codec/row_checksum.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::BytesOf;
using sqlite_test::RawDb;
using sqlite_test::SampleKernel;
using sqlite_test::SamplePlan;
using test::SampleEnvironment;
using testing::HasSubstr;
using testing::SizeIs;

class SqliteKernels : public test::RepositoryFixture {};

TEST_F(SqliteKernels, KernelIsFoundOnlyByItsExactKey) {
  const NewKernel kernel = SampleKernel("src");
  KernelRowId id = 0;
  bool added = false;
  ASSERT_TRUE(repo_->PutKernel(env_, kernel, &id, &added).ok());
  EXPECT_TRUE(added);
  StoredKernel stored;
  ASSERT_TRUE(repo_->GetKernel(env_, kernel.key, &stored).ok());
  EXPECT_EQ(stored.id, id);
  EXPECT_EQ(stored.binary, kernel.binary);
  EXPECT_EQ(stored.checksum, KernelChecksum(kernel.binary));
  EXPECT_EQ(stored.key, kernel.key);
  EXPECT_EQ(stored.plan_id, std::nullopt);

  KernelKey other_arch = kernel.key;
  other_arch.arch = "sm_80";
  KernelKey other_compiler = kernel.key;
  other_compiler.compiler_version = "nvrtc 12.5";
  KernelKey other_source = kernel.key;
  other_source.source_hash = BytesOf("src2");
  for (const KernelKey& key : {other_arch, other_compiler, other_source}) {
    EXPECT_EQ(repo_->GetKernel(env_, key, &stored).code(), Status::Code::kNotFound);
  }
  EnvironmentRowId other_env = 0;
  ASSERT_TRUE(repo_->EnsureEnvironment(SampleEnvironment("Other"), &other_env).ok());
  EXPECT_EQ(repo_->GetKernel(other_env, kernel.key, &stored).code(), Status::Code::kNotFound);
}

TEST_F(SqliteKernels, ExistingKernelWins) {
  KernelRowId first = 0;
  ASSERT_TRUE(repo_->PutKernel(env_, SampleKernel("src", "sm_90", "one"), &first).ok());
  KernelRowId second = 0;
  bool added = true;
  ASSERT_TRUE(repo_->PutKernel(env_, SampleKernel("src", "sm_90", "two"), &second, &added).ok());
  EXPECT_FALSE(added);
  EXPECT_EQ(second, first);
  StoredKernel stored;
  ASSERT_TRUE(repo_->GetKernel(env_, SampleKernel("src").key, &stored).ok());
  EXPECT_EQ(stored.binary, BytesOf("one"));
}

TEST_F(SqliteKernels, DamagedBinaryIsNeverReturnedAndIsDeleted) {
  KernelRowId id = 0;
  ASSERT_TRUE(repo_->PutKernel(env_, SampleKernel("src"), &id).ok());
  {
    RawDb raw(path_);
    raw.Exec("UPDATE kernels SET binary = X'00112233' WHERE id = " + std::to_string(id));
  }
  ScopedLogCapture log(LogLevel::kBasic);
  StoredKernel stored;
  const Status s = repo_->GetKernel(env_, SampleKernel("src").key, &stored);
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_THAT(s.message(), HasSubstr("failed its checksum"));
  EXPECT_THAT(s.message(), HasSubstr("deleted"));
  EXPECT_TRUE(stored.binary.empty());
  ASSERT_THAT(log.messages(), SizeIs(1));
  EXPECT_THAT(log.messages()[0], HasSubstr("[store] compiled kernel"));
  RawDb raw(path_);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM kernels"), 0);
  EXPECT_EQ(repo_->GetKernel(env_, SampleKernel("src").key, &stored).code(),
            Status::Code::kNotFound);
  // A fresh compile can be stored again.
  bool added = false;
  ASSERT_TRUE(repo_->PutKernel(env_, SampleKernel("src"), &id, &added).ok());
  EXPECT_TRUE(added);
}

TEST_F(SqliteKernels, KernelForAPlanNamesItAndAMissingPlanIsRefused) {
  InsertResult plan;
  ASSERT_TRUE(repo_->InsertPlan(env_, SamplePlan(1), &plan).ok());
  NewKernel kernel = SampleKernel("src");
  kernel.plan_id = plan.plan_id;
  KernelRowId id = 0;
  ASSERT_TRUE(repo_->PutKernel(env_, kernel, &id).ok());
  StoredKernel stored;
  ASSERT_TRUE(repo_->GetKernel(env_, kernel.key, &stored).ok());
  EXPECT_EQ(stored.plan_id, plan.plan_id);

  NewKernel orphan = SampleKernel("other");
  orphan.plan_id = 4242;
  EXPECT_EQ(repo_->PutKernel(env_, orphan, &id).code(), Status::Code::kInvalidArgument);
}

TEST_F(SqliteKernels, TwoPlansThatGenerateTheSameSourceShareOneKernelRow) {
  InsertResult first;
  InsertResult second;
  ASSERT_TRUE(repo_->InsertPlan(env_, SamplePlan(1), &first).ok());
  ASSERT_TRUE(repo_->InsertPlan(env_, SamplePlan(2), &second).ok());
  NewKernel kernel = SampleKernel("shared-src");
  kernel.text = {.name = "k", .source = "// the source", .options = "-arch=sm_90"};
  kernel.plan_id = first.plan_id;
  KernelRowId a = 0;
  ASSERT_TRUE(repo_->PutKernel(env_, kernel, &a).ok());
  kernel.plan_id = second.plan_id;
  KernelRowId b = 0;
  bool added = true;
  ASSERT_TRUE(repo_->PutKernel(env_, kernel, &b, &added).ok());
  EXPECT_FALSE(added);
  EXPECT_EQ(a, b);
  RawDb raw(path_);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM kernels"), 1);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM plan_kernels WHERE kernel_id = " + std::to_string(a)), 2);
  StoredKernel stored;
  ASSERT_TRUE(repo_->GetKernel(env_, kernel.key, &stored).ok());
  EXPECT_EQ(stored.plan_id, first.plan_id);  // The plan it was first compiled for.
  EXPECT_EQ(stored.text, kernel.text);
}

TEST_F(SqliteKernels, ReplaceOverwritesTheBinaryOfTheSameKey) {
  KernelRowId first = 0;
  ASSERT_TRUE(repo_->PutKernel(env_, SampleKernel("src", "sm_90", "old"), &first).ok());
  NewKernel fresh = SampleKernel("src", "sm_90", "new binary");
  fresh.replace = true;
  fresh.text.source = "// rebuilt";
  KernelRowId second = 0;
  bool added = true;
  ASSERT_TRUE(repo_->PutKernel(env_, fresh, &second, &added).ok());
  EXPECT_FALSE(added);
  EXPECT_EQ(second, first);
  StoredKernel stored;
  ASSERT_TRUE(repo_->GetKernel(env_, fresh.key, &stored).ok());
  EXPECT_EQ(stored.binary, BytesOf("new binary"));
  EXPECT_EQ(stored.checksum, KernelChecksum(fresh.binary));
  EXPECT_EQ(stored.text.source, "// rebuilt");
}

}  // namespace
}  // namespace ember
