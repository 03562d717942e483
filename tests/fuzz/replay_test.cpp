// Replays every input kept for a fuzz target (tests/fuzz/corpus/<target>/: the seeds, the
// corpus minima a run merged back, every crasher found) through it in the ordinary build, so
// what a fuzzer once found stays fixed (fuzz_target.h). A target without inputs is a failure:
// its seeds were lost.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "tests/fuzz/fuzz_target.h"

namespace ember::fuzz {
namespace {

std::filesystem::path CorpusDir() { return EMBER_FUZZ_CORPUS; }

class FuzzReplay : public testing::TestWithParam<std::string> {};

TEST_P(FuzzReplay, EveryKeptInputRunsCleanly) {
  const std::filesystem::path dir = CorpusDir() / GetParam();
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir << " is missing";
  size_t inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                     std::istreambuf_iterator<char>());
    SCOPED_TRACE(entry.path().string());
    Targets().at(GetParam())(bytes);  // aborts on a broken invariant
    ++inputs;
  }
  EXPECT_GT(inputs, 0u) << "no inputs kept for " << GetParam();
}

std::vector<std::string> Names() {
  std::vector<std::string> names;
  for (const auto& [name, target] : Targets()) names.push_back(name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzReplay, testing::ValuesIn(Names()),
                         [](const testing::TestParamInfo<std::string>& param) {
                           return param.param;
                         });

}  // namespace
}  // namespace ember::fuzz
