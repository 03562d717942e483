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
#include <map>
#include <span>
#include <string>

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
