// A workload name is UTF-8 text that every tool can show (issue 40, item 2). The configuration
// refuses another (tests/core/config_file_errors_test.cpp, config_environment_errors_test.cpp); a
// name set through the API, or the executable's own, is stored escaped, so SQLite and PostgreSQL
// (whose text refuses invalid UTF-8) keep the same name and the run stores its plans either way.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>

#include "engine/core/config.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::RawDb;
using sqlite_test::TempDir;

TEST(WorkloadName, ANameThatCannotBeShownIsStoredEscaped) {
  TempDir dir;
  const std::string db = dir.File("plans.db");
  Config config;
  config.plan_db = db;
  config.shm = false;
  config.workload = "job\xff\x1b]0;x\x07";  // set through the API: no configuration check
  SetGlobalConfigForTesting(config);
  ReleaseDevice(Device::Cpu());
  Tensor x = Tensor::Full({4, 4}, 0.5, DType::kF32);
  (void)(x.Exp() * 2.0).ToVector<float>();
  Sync();
  SetGlobalConfigForTesting(Config{});
  ReleaseDevice(Device::Cpu());
  RawDb raw(db);
  const std::vector<std::string> names = raw.Column("SELECT name FROM workloads");
  ASSERT_EQ(names.size(), 1u);
  EXPECT_EQ(names[0], "job\\xff\\x1b]0;x\\x07");
  EXPECT_GT(std::stoi(raw.Column("SELECT count(*) FROM plans").at(0)), 0) << "plans were stored";
}

}  // namespace
}  // namespace ember
