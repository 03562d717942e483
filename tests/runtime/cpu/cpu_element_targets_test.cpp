// The elementwise tile functions on both targets (Note [Tile function targets],
// engine/runtime/cpu/elementwise.cpp): for every fused op with a tile function and both compute
// domains, the AVX2 set gives the baseline set's results bit for bit, for lengths around the
// vector widths (odd, one past, one short), operands that start off the vector alignment, NaN
// (quiet, signalling, negative, with payloads), infinities, signed zeros, subnormals, the
// integer extremes, in place (out == in[0]), and the repeated right operand of Add/Sub/Mul/Div.
// Where the CPU has no AVX2 the comparisons skip, saying so.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/runtime/cpu/kernels.h"
#include "engine/runtime/cpu/vector_math.h"

namespace ember::cpu {
namespace {

constexpr FuseOpKind kKinds[] = {
#define EMBER_FUSE_OP(name, number, form) FuseOpKind::k##name,
#include "engine/ir/op_list.def"
};

constexpr int64_t kLengths[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65, 1023, 2048};

bool HasTile(FuseOpKind kind) {
  return kind != FuseOpKind::kAssign && FormOf(kind) != FuseOpForm::kIndexed;
}

std::vector<float> Specials() {
  const float inf = std::numeric_limits<float>::infinity();
  return {std::numeric_limits<float>::quiet_NaN(),
          -std::numeric_limits<float>::quiet_NaN(),
          std::numeric_limits<float>::signaling_NaN(),
          std::bit_cast<float>(0x7fc12345u),
          std::bit_cast<float>(0xffa00001u),
          inf,
          -inf,
          0.0f,
          -0.0f,
          1.0f,
          -1.0f,
          2.0f,
          0.5f,
          3.0f,
          -7.25f,
          std::numeric_limits<float>::denorm_min(),
          -std::numeric_limits<float>::denorm_min(),
          std::numeric_limits<float>::min(),
          std::numeric_limits<float>::max(),
          -std::numeric_limits<float>::max(),
          1e-30f,
          1e30f};
}

std::vector<float> FloatValues(uint32_t seed, int64_t n) {
  const std::vector<float> specials = Specials();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-8.0f, 8.0f);
  std::uniform_int_distribution<int> pick(0, 3);
  std::vector<float> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    // A quarter specials, the rest ordinary numbers, some of them whole (Rem, Pow, ties).
    const int kind = pick(rng);
    if (kind == 0) {
      values[i] = specials[rng() % specials.size()];
    } else if (kind == 1) {
      values[i] = static_cast<float>(static_cast<int>(uniform(rng)));
    } else {
      values[i] = uniform(rng);
    }
  }
  return values;
}

std::vector<int64_t> IntValues(uint32_t seed, int64_t n) {
  const int64_t specials[] = {0,
                              1,
                              -1,
                              2,
                              -2,
                              3,
                              std::numeric_limits<int64_t>::min(),
                              std::numeric_limits<int64_t>::max(),
                              std::numeric_limits<int32_t>::min(),
                              std::numeric_limits<int32_t>::max()};
  std::mt19937_64 rng(seed);
  std::vector<int64_t> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    values[i] = r % 3 == 0   ? specials[r % std::size(specials)]
                : r % 3 == 1 ? static_cast<int64_t>(r % 41) - 20
                             : static_cast<int64_t>(r);
  }
  return values;
}

// Runs `fn` over `arity` operands made by `make`, each starting `offset` elements into its
// buffer (so some are not aligned to the vector width), into a fresh output or in place.
template <typename T, typename Fn, typename Make>
std::vector<T> RunTile(Fn fn, int arity, int64_t n, int64_t offset, bool in_place, Make make) {
  std::vector<std::vector<T>> operands;
  const T* in[3] = {};
  for (int k = 0; k < arity; ++k) {
    operands.push_back(make(static_cast<uint32_t>(1000 * k + n), n + offset));
    in[k] = operands.back().data() + offset;
  }
  std::vector<T> out(static_cast<size_t>(n + offset), T{});
  T* target = in_place ? operands[0].data() + offset : out.data() + offset;
  fn(in, target, n);
  return std::vector<T>(target, target + n);
}

template <typename T>
bool SameBits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

TEST(CpuElementTargets, Avx2GivesTheBaselineBitsForEveryOpAndDomain) {
  if (!ElementTargetAvailable(ElementTarget::kAvx2)) GTEST_SKIP() << "this CPU has no AVX2";
  int compared = 0;
  for (FuseOpKind kind : kKinds) {
    if (!HasTile(kind)) continue;
    const int arity = FuseOpArity(kind);
    for (DType dtype : {DType::kF32, DType::kI64}) {
      const TileOp base = ElementTileOn(ElementTarget::kBaseline, kind, dtype);
      const TileOp avx2 = ElementTileOn(ElementTarget::kAvx2, kind, dtype);
      ASSERT_EQ(base.domain, avx2.domain);
      for (int64_t n : kLengths) {
        for (int64_t offset : {0, 1, 3}) {
          for (bool in_place : {false, true}) {
            const std::string where = std::string(FuseOpKindName(kind)) + " " +
                                      std::string(DTypeName(dtype)) + " n=" + std::to_string(n) +
                                      " offset=" + std::to_string(offset) +
                                      (in_place ? " in place" : "");
            if (base.domain == Domain::kFloat) {
              ASSERT_NE(avx2.float_fn, nullptr) << where;
              EXPECT_TRUE(
                  SameBits(RunTile<float>(base.float_fn, arity, n, offset, in_place, FloatValues),
                           RunTile<float>(avx2.float_fn, arity, n, offset, in_place, FloatValues)))
                  << where;
            } else {
              ASSERT_NE(avx2.int_fn, nullptr) << where;
              EXPECT_TRUE(
                  SameBits(RunTile<int64_t>(base.int_fn, arity, n, offset, in_place, IntValues),
                           RunTile<int64_t>(avx2.int_fn, arity, n, offset, in_place, IntValues)))
                  << where;
            }
            ++compared;
          }
        }
      }
    }
  }
  EXPECT_GT(compared, 0);
}

TEST(CpuElementTargets, RepeatedRightOperandMatchesOnBothTargetsAndTheFullTile) {
  if (!ElementTargetAvailable(ElementTarget::kAvx2)) GTEST_SKIP() << "this CPU has no AVX2";
  for (FuseOpKind kind : kKinds) {
    if (!HasTile(kind)) continue;
    const TileOp base = ElementTileOn(ElementTarget::kBaseline, kind, DType::kF32);
    const TileOp avx2 = ElementTileOn(ElementTarget::kAvx2, kind, DType::kF32);
    ASSERT_EQ(base.float_rhs_repeated == nullptr, avx2.float_rhs_repeated == nullptr);
    if (base.float_rhs_repeated == nullptr) continue;
    for (float rhs : FloatValues(7, 64)) {
      for (int64_t n : kLengths) {
        const std::vector<float> lhs = FloatValues(static_cast<uint32_t>(n), n);
        const std::vector<float> filled(static_cast<size_t>(n), rhs);
        const float* repeated[2] = {lhs.data(), &rhs};
        const float* full[2] = {lhs.data(), filled.data()};
        std::vector<float> on_base(static_cast<size_t>(n)), on_avx2(on_base), on_full(on_base);
        base.float_rhs_repeated(repeated, on_base.data(), n);
        avx2.float_rhs_repeated(repeated, on_avx2.data(), n);
        avx2.float_fn(full, on_full.data(), n);
        const std::string where = std::string(FuseOpKindName(kind)) + " n=" + std::to_string(n) +
                                  " rhs bits=" + std::to_string(std::bit_cast<uint32_t>(rhs));
        EXPECT_TRUE(SameBits(on_base, on_avx2)) << where;
        EXPECT_TRUE(SameBits(on_base, on_full)) << where;
      }
    }
  }
}

// Every pair of special values, each binary and ternary op of the float domain (the bitwise
// ops compute in i64 whatever their operands: Note [Bitwise ops]): two NaNs with different
// payloads meet here (Note [NaN operand order], elementwise.cpp), and the repeated right
// operand gives the filled one's bits.
TEST(CpuElementTargets, EveryPairOfSpecialsGivesTheSameBitsOnBothTargets) {
  if (!ElementTargetAvailable(ElementTarget::kAvx2)) GTEST_SKIP() << "this CPU has no AVX2";
  const std::vector<float> specials = Specials();
  std::vector<float> lhs, rhs;
  for (float a : specials) {
    for (float b : specials) {
      lhs.push_back(a);
      rhs.push_back(b);
    }
  }
  const int64_t n = static_cast<int64_t>(lhs.size());
  for (FuseOpKind kind : kKinds) {
    if (!HasTile(kind) || FuseOpArity(kind) < 2) continue;
    if (ElementTileOn(ElementTarget::kBaseline, kind, DType::kF32).domain != Domain::kFloat) {
      continue;
    }
    const float* in[3] = {lhs.data(), rhs.data(), lhs.data()};
    std::vector<float> on_base(lhs.size()), on_avx2(lhs.size());
    ElementTileOn(ElementTarget::kBaseline, kind, DType::kF32).float_fn(in, on_base.data(), n);
    ElementTileOn(ElementTarget::kAvx2, kind, DType::kF32).float_fn(in, on_avx2.data(), n);
    EXPECT_TRUE(SameBits(on_base, on_avx2)) << FuseOpKindName(kind);
    for (ElementTarget target : {ElementTarget::kBaseline, ElementTarget::kAvx2}) {
      const TileOp op = ElementTileOn(target, kind, DType::kF32);
      if (op.float_rhs_repeated == nullptr) continue;
      for (size_t j = 0; j < specials.size(); ++j) {
        // Every special against specials[j] as one repeated number and as a filled tile.
        std::vector<float> row_lhs(specials), filled(specials.size(), specials[j]);
        std::vector<float> repeated(specials.size()), full(specials.size());
        const float* by_one[2] = {row_lhs.data(), &specials[j]};
        const float* by_all[2] = {row_lhs.data(), filled.data()};
        op.float_rhs_repeated(by_one, repeated.data(), static_cast<int64_t>(specials.size()));
        op.float_fn(by_all, full.data(), static_cast<int64_t>(specials.size()));
        EXPECT_TRUE(SameBits(repeated, full)) << FuseOpKindName(kind) << " rhs #" << j;
      }
    }
  }
}

// The process's target: AVX2 where the CPU has it, the baseline when EMBER_CPU_VECTOR_MATH=sse
// (the CpuVectorMath.SsePath test runs this suite that way), and ElementTile hands out its set.
TEST(CpuElementTargets, ProcessTargetFollowsTheCpuAndTheSseSwitch) {
  const ElementTarget expected =
      !VectorMathForcedSse() && ElementTargetAvailable(ElementTarget::kAvx2)
          ? ElementTarget::kAvx2
          : ElementTarget::kBaseline;
  EXPECT_EQ(ElementTileTarget(), expected);
  const TileOp chosen = ElementTile(FuseOpKind::kAdd, DType::kF32);
  const TileOp on = ElementTileOn(expected, FuseOpKind::kAdd, DType::kF32);
  EXPECT_EQ(chosen.float_fn, on.float_fn);
  EXPECT_EQ(chosen.int_fn, on.int_fn);
  EXPECT_EQ(chosen.float_rhs_repeated, on.float_rhs_repeated);
}

}  // namespace
}  // namespace ember::cpu
