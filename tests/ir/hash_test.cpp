// Stable hashes (engine/ir/hash.h): golden values pinned once and never to change, and the
// EMBER_HASH_ZERO build, in which every hash is 0 and equality alone must tell ops apart.
#include "engine/ir/hash.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include <xxhash.h>

#include "engine/ir/builders.h"
#include "engine/ir/canonical.h"
#include "engine/ir/relative.h"
#include "tests/ir/sample_ops.h"

namespace ember {
namespace {

using test::Out;
using test::T;

#define SKIP_IF_HASH_ZERO()                                                  \
  do {                                                                       \
    if (kHashZero) GTEST_SKIP() << "EMBER_HASH_ZERO build: every hash is 0"; \
  } while (0)

std::vector<OperationIr> RelativeSeedProgram(TensorId base, Shape shape, double s) {
  OperationConverter converter;
  std::vector<OperationIr> relative;
  for (const OperationIr& op : ir_test::SeedProgram(base, std::move(shape), s)) {
    relative.push_back(converter.ToRelative(op));
  }
  return relative;
}

// --- golden values: computed once from the canonical bytes and pinned -----------------------

TEST(Hash, GoldenHashOfExp) {
  SKIP_IF_HASH_ZERO();
  // The op whose bytes CanonicalBytes.GoldenBytesOfExp pins.
  EXPECT_EQ(FormatHash(HashOp(ir::Unary(OpKind::kExp, T(1, {4}), Out(2, {4})))),
            "0x4a53afd296adea69");
}

TEST(Hash, GoldenHashesOfTheRelativeSeedProgram) {
  SKIP_IF_HASH_ZERO();
  const std::vector<OperationIr> ops = RelativeSeedProgram(0, {64, 64}, 2.0);
  EXPECT_EQ(FormatHash(HashOp(ops[0])), "0xb1a5179d837fb910");
  EXPECT_EQ(FormatHash(HashOp(ops[1])), "0xee1aee53fa8d2c7e");
  EXPECT_EQ(FormatHash(HashOp(ops[2])), "0x673111f8145f4ffc");
  EXPECT_EQ(FormatHash(HashOp(ops[3])), "0xc90cfc50010ac787");
  EXPECT_EQ(FormatHash(HashOps(ops)), "0x05ae3f83860cc3b88b083a35107f804b");
}

TEST(Hash, GoldenHashesOfOtherOps) {
  SKIP_IF_HASH_ZERO();
  // Spelled out here (not taken from SampleOp) so that editing the samples cannot move them.
  const OperationIr random = ir::Random(
      Out(102, {4, 8}), Distribution{.kind = Distribution::Kind::kNormal, .a = 0.5, .b = 2.0});
  const OperationIr slice =
      ir::SliceOp(T(100, {4, 8}), {Slice{1, 3, 1}, Slice{0, std::nullopt, 1}}, Out(102, {2, 8}));
  const OperationIr mask_where =
      ir::MaskWhere(T(100, {4, 8}), T(101, {4, 8}, TensorStatus::kReadOnly, DType::kBool),
                    T(103, {4, 8}), Out(102, {4, 8}));
  EXPECT_EQ(FormatHash(HashOp(random)), "0xe8b93821fbbe65c8");
  EXPECT_EQ(FormatHash(HashOp(slice)), "0x6d2b53f6f675008f");
  EXPECT_EQ(FormatHash(HashOp(mask_where)), "0x36db5372ed7c229f");
  EXPECT_EQ(FormatHash(HashOps({})), "0x624d00ca1a5816e84487fda79cc1828d");
}

// --- properties -----------------------------------------------------------------------------

TEST(Hash, IsXxh3OfTheCanonicalBytes) {
  SKIP_IF_HASH_ZERO();
  // The linked library is XXH3 proper: its published empty-input values (seed 0).
  EXPECT_EQ(XXH3_64bits(nullptr, 0), 0x2d06800538d394c2ULL);
  EXPECT_EQ(XXH3_128bits(nullptr, 0).low64, 0x6001c324468d497fULL);
  EXPECT_EQ(XXH3_128bits(nullptr, 0).high64, 0x99aa06d3014798d8ULL);
  for (OpKind kind : ir_test::AllOpKinds()) {
    SCOPED_TRACE(OpKindName(kind));
    const OperationIr op = ir_test::SampleOp(kind);
    const std::vector<uint8_t> bytes = CanonicalBytes(op);
    EXPECT_EQ(HashOp(op), XXH3_64bits(bytes.data(), bytes.size()));
  }
  const std::vector<OperationIr> ops = RelativeSeedProgram(0, {64, 64}, 2.0);
  const std::vector<uint8_t> bytes = CanonicalListBytes(ops);
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  EXPECT_EQ(HashOps(ops), (Hash128{.low = h.low64, .high = h.high64}));
  // A one-op list is versioned and counted, so it does not hash like its op.
  EXPECT_NE(HashOps(std::span(ops).first(1)).low, HashOp(ops[0]));
}

TEST(Hash, EqualOpsHashEqual) {
  for (OpKind kind : ir_test::AllOpKinds()) {
    SCOPED_TRACE(OpKindName(kind));
    EXPECT_EQ(HashOp(ir_test::SampleOp(kind)), HashOp(ir_test::SampleOp(kind)));
  }
  EXPECT_EQ(HashOps(RelativeSeedProgram(0, {64, 64}, 2.0)),
            HashOps(RelativeSeedProgram(40, {32, 32}, 3.0)));
}

TEST(Hash, DistinctOpsHashDistinct) {
  SKIP_IF_HASH_ZERO();
  std::vector<uint64_t> hashes;
  for (OpKind kind : ir_test::AllOpKinds()) hashes.push_back(HashOp(ir_test::SampleOp(kind)));
  std::sort(hashes.begin(), hashes.end());
  EXPECT_EQ(std::adjacent_find(hashes.begin(), hashes.end()), hashes.end());
  EXPECT_NE(HashOps(RelativeSeedProgram(0, {64, 64}, 2.0)),
            HashOps(RelativeSeedProgram(0, {64, 32}, 2.0)));
}

TEST(Hash, NaNOpHashesAndComparesEqualToItself) {
  const OperationIr op =
      ir::Scalar(OpKind::kAddScalar, T(1, {4}),
                 ScalarIr::Float(std::numeric_limits<double>::quiet_NaN()), Out(2, {4}));
  EXPECT_EQ(op, op);
  EXPECT_EQ(HashOp(op), HashOp(OperationIr(op)));
}

TEST(Hash, SignedZerosAreDifferentOps) {
  const auto add = [](double v) {
    return ir::Scalar(OpKind::kAddScalar, T(1, {4}), ScalarIr::Float(v), Out(2, {4}));
  };
  EXPECT_NE(add(-0.0), add(0.0));
  if (!kHashZero) {
    EXPECT_NE(HashOp(add(-0.0)), HashOp(add(0.0)));
  }
}

// The EMBER_HASH_ZERO build (CMake preset hash-zero): hashes collapse, equality still decides.
TEST(Hash, HashZeroBuildMakesEveryHashZeroButKeepsOpsApart) {
  if (!kHashZero) GTEST_SKIP() << "only in a -DEMBER_HASH_ZERO=ON build";
  const std::vector<OperationIr> square = RelativeSeedProgram(0, {64, 64}, 2.0);
  const std::vector<OperationIr> wide = RelativeSeedProgram(0, {64, 32}, 2.0);
  for (OpKind kind : ir_test::AllOpKinds()) EXPECT_EQ(HashOp(ir_test::SampleOp(kind)), 0u);
  EXPECT_EQ(HashOps(square), (Hash128{}));
  EXPECT_EQ(HashOps(wide), (Hash128{}));
  EXPECT_EQ(HashOp(square[0]), HashOp(wide[0]));
  EXPECT_NE(square[0], wide[0]);
  EXPECT_NE(square, wide);
  EXPECT_NE(CanonicalBytes(square[0]), CanonicalBytes(wide[0]));
  EXPECT_NE(ir_test::SampleOp(OpKind::kAdd), ir_test::SampleOp(OpKind::kSub));
}

TEST(Hash, FormatHash) {
  EXPECT_EQ(FormatHash(uint64_t{0}), "0x0000000000000000");
  EXPECT_EQ(FormatHash(uint64_t{0xdeadbeef}), "0x00000000deadbeef");
  EXPECT_EQ(FormatHash(~uint64_t{0}), "0xffffffffffffffff");
  EXPECT_EQ(FormatHash(Hash128{.low = 0x1, .high = 0xabc}), "0x0000000000000abc0000000000000001");
}

// HashOp writes the canonical bytes on its stack up to 512 bytes and into a vector beyond:
// both sides of that line hash the bytes CanonicalBytes gives.
TEST(Hash, HashOpHashesTheCanonicalBytesOnAndOffTheStack) {
  SKIP_IF_HASH_ZERO();
  for (size_t inputs : {1, 2, 8, 9, 20}) {
    std::vector<TensorIr> tensors;
    for (size_t k = 0; k < inputs; ++k) tensors.push_back(T(10 + k, {2, 3, 4, 5}));
    const OperationIr cat =
        ir::Cat(tensors, 0, Out(99, {static_cast<int64_t>(2 * inputs), 3, 4, 5}));
    const std::vector<uint8_t> bytes = CanonicalBytes(cat);
    SCOPED_TRACE(bytes.size());
    EXPECT_EQ(CanonicalSize(cat), bytes.size());
    EXPECT_EQ(HashOp(cat), XXH3_64bits(bytes.data(), bytes.size()));
  }
}

}  // namespace
}  // namespace ember
