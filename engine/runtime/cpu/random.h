// RandomGenerator: the CPU backend's source of Random ops, identical on every machine and
// for every thread count.
//
// Note [CPU random streams]
// Draw c of a stream is SplitMix64's output for counter c under a key derived from the seed:
// a counter-based generator, so element i of a Random op depends only on (seed, position of
// the op's draws in the stream, i) and any chunk of a tensor can be generated on any thread.
// Each Random op reserves its draws from a running counter, so consecutive ops differ; Seed()
// resets the counter. Distributions are computed in double from these bits with
// arithmetic we write ourselves (no std:: distributions, whose outputs differ between standard
// libraries):
//   uniform [a, b): u = top 53 bits * 2^-53 in [0, 1); x = a + (b - a) * u; a float dtype
//     rounds to nearest and steps one value down if rounding reached b; int and bool dtypes
//     take floor(x) (then bool is != 0).
//   normal (mean a, std b): Box-Muller on draws 2p and 2p+1 for the pair p = i / 2; even i
//     take the cosine, odd i the sine; ints and bool take floor as above.
// The log/sqrt/cos/sin of the C library are correctly rounded or within an ulp in double, so
// the f32 results agree across platforms except, very rarely, in the last bit.
//
// Not thread-safe: owned by one backend, called under its lock.
#pragma once

#include <cstdint>

#include "engine/ir/operation_ir.h"
#include "engine/runtime/cpu/thread_pool.h"
#include "engine/runtime/handle.h"

namespace ember::cpu {

class RandomGenerator {
 public:
  explicit RandomGenerator(uint64_t seed = 0) { Seed(seed); }

  void Seed(uint64_t seed);
  // Reserves `count` draws; returns the counter of the first.
  uint64_t Reserve(uint64_t count);
  uint64_t key() const { return key_; }

  // Draw `counter` of the stream with `key`.
  static uint64_t Bits(uint64_t key, uint64_t counter);

 private:
  uint64_t key_ = 0;
  uint64_t counter_ = 0;
};

// A new tensor of out.shape / out.dtype drawn from `distribution`.
TensorHandle Random(const Distribution& distribution, const TensorIr& out,
                    RandomGenerator& generator, ThreadPool& pool);

}  // namespace ember::cpu
