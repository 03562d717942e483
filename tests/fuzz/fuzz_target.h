// One fuzz target = one function from bytes to nothing that must never crash, hang, leak or
// touch memory it does not own, and must hold its own invariants (a violated one aborts, which
// libFuzzer reports as a crash). EMBER_FUZZ_TARGET(name) defines that function:
//   * in a libFuzzer build (EMBER_LIBFUZZER, tests/fuzz/CMakeLists.txt: clang,
//     -fsanitize=fuzzer,address,undefined), as LLVMFuzzerTestOneInput of the program
//     ember-fuzz-<name>;
//   * in the ordinary build, registered by name, so that ember_fuzz_replay_tests runs every
//     input of tests/fuzz/corpus/<name>/ (seeds, corpus minima, every crasher found) through
//     it with GCC and no libFuzzer, in CI (replay_test.cpp).
// tests/fuzz/README.md says how to run the fuzzers and keep what they find.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <span>
#include <string>

#include "store/sqlite/wal_companions.h"

namespace ember::fuzz {

using Target = void (*)(std::span<const uint8_t> data);

// name -> target, in the ordinary build.
inline std::map<std::string, Target>& Targets() {
  static std::map<std::string, Target> targets;
  return targets;
}

inline bool Register(const char* name, Target target) {
  Targets()[name] = target;
  return true;
}

// An invariant of the target failed: say which, and abort (a crash to libFuzzer and to the
// replay test alike).
[[noreturn]] inline void Fail(const char* target, const std::string& what) {
  std::fprintf(stderr, "fuzz target %s: %s\n", target, what.c_str());
  std::abort();
}

// One scratch directory per process (0700, as a plan database's directory must be), removed at
// exit. (Never destroyed: the atexit handler reads it.)
inline const std::string& ScratchDir() {
  static const std::string* const dir = [] {
    auto* made =
        new std::string((std::filesystem::temp_directory_path() / "ember-fuzz-XXXXXX").string());
    if (mkdtemp(made->data()) == nullptr) std::abort();
    std::atexit([] { std::filesystem::remove_all(ScratchDir()); });
    return made;
  }();
  return *dir;
}

// ScratchDir()/name holding exactly `data`, with what an earlier input left of a database of
// that name (-wal, -shm, -journal) gone. Returns the path.
inline std::string WriteScratchFile(const char* name, std::span<const uint8_t> data) {
  const std::string path = ScratchDir() + "/" + name;
  RemoveDatabaseFiles(path);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (!out.flush()) std::abort();
  return path;
}

}  // namespace ember::fuzz

#ifdef EMBER_LIBFUZZER
#define EMBER_FUZZ_TARGET(name)                                             \
  static void ember_fuzz_##name(std::span<const uint8_t> data);             \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { \
    ember_fuzz_##name(std::span<const uint8_t>(data, size));                \
    return 0;                                                               \
  }                                                                         \
  static void ember_fuzz_##name(std::span<const uint8_t> data)
#else
#define EMBER_FUZZ_TARGET(name)                                     \
  static void ember_fuzz_##name(std::span<const uint8_t> data);     \
  [[maybe_unused]] static const bool ember_fuzz_registered_##name = \
      ::ember::fuzz::Register(#name, &ember_fuzz_##name);           \
  static void ember_fuzz_##name(std::span<const uint8_t> data)
#endif
