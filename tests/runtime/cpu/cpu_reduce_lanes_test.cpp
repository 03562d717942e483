// Row folds in vector lanes (engine/runtime/cpu/reduce_lanes.h): for every op, on every target
// the machine has, each row's result is bit-identical to the scalar fold of reduce_fold.h
// (NaN sums: NaN, ExpectRowsMatch says why)
// (Start, Fold in order, Finish), for row counts that are not a multiple of the lanes, short
// and long rows, empty rows, rows folded in chunks, NaN (payloads, signalling), infinities,
// ties and signed zeros; the same for outputs side by side (the column form, a reduce along an
// outer axis); and ReduceDim, which uses both, agrees with the same reference on dense, strided
// and f16 inputs.
#include "engine/runtime/cpu/reduce_lanes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/runtime/cpu/reduce_fold.h"
#include "tests/runtime/cpu/cpu_test_util.h"

namespace ember::cpu {
namespace {

constexpr ReduceOp kOps[] = {ReduceOp::kSum, ReduceOp::kMean,   ReduceOp::kProd,  ReduceOp::kMax,
                             ReduceOp::kMin, ReduceOp::kArgMax, ReduceOp::kArgMin};

const char* Name(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return "sum";
    case ReduceOp::kMean: return "mean";
    case ReduceOp::kProd: return "prod";
    case ReduceOp::kMax: return "max";
    case ReduceOp::kMin: return "min";
    case ReduceOp::kArgMax: return "argmax";
    case ReduceOp::kArgMin: return "argmin";
  }
  return "?";
}

std::vector<RowLaneTarget> Targets() {
  std::vector<RowLaneTarget> targets = {RowLaneTarget::kBaseline};
  if (RowLaneTargetAvailable(RowLaneTarget::kAvx2)) targets.push_back(RowLaneTarget::kAvx2);
  return targets;
}

const char* Name(RowLaneTarget target) {
  return target == RowLaneTarget::kAvx2 ? "avx2" : "baseline";
}

// The scalar fold of reduce_fold.h over one row, positions in order (or reversed, to show
// that the data would reveal a change of order).
double ScalarFold(ReduceOp op, const float* row, int64_t length, bool reversed = false) {
  Accumulator<float> acc = Start<float>(op);
  for (int64_t r = 0; r < length; ++r) {
    const int64_t at = reversed ? length - 1 - r : r;
    Fold(op, acc, row[at], r);
  }
  return Finish(op, acc, length);
}

// `rows` rows of `length` numbers (row-major) folded in groups of kRowLanes on `target`, each
// row in chunks of `chunk` positions; lanes past the last row point at row 0.
std::vector<double> LaneFold(RowLaneTarget target, ReduceOp op, const std::vector<float>& data,
                             int64_t rows, int64_t length, int64_t chunk) {
  std::vector<double> out(static_cast<size_t>(rows));
  for (int64_t g = 0; g < rows; g += kRowLanes) {
    const int count = static_cast<int>(std::min<int64_t>(kRowLanes, rows - g));
    RowLanes lanes = StartRowLanes(op);
    for (int64_t r0 = 0; r0 < length; r0 += chunk) {
      const int64_t n = std::min(chunk, length - r0);
      const float* at[kRowLanes];
      for (int j = 0; j < kRowLanes; ++j) {
        at[j] = data.data() + (j < count ? g + j : g) * length + r0;
      }
      FoldRowChunkOn(target, op, at, r0, n, lanes);
    }
    FinishRowLanes(op, lanes, count, length, out.data() + g);
  }
  return out;
}

// Numbers whose double sums and products depend on the order (magnitudes from 1e-6 to 1e7,
// both signs), with runs of repeated values (ties), signed zeros and, if `specials`, NaNs
// with different payloads (quiet and signalling) and infinities.
std::vector<float> Numbers(size_t n, uint32_t seed, bool specials) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-6, 7);
  std::uniform_int_distribution<int> kind(0, 99);
  const float pool[] = {3.0f, -3.0f, 0.0f, -0.0f, 1.5f};
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    const int k = kind(rng);
    if (k < 15) {
      v[i] = pool[k % 5];  // ties and zeros
    } else if (specials && k < 18) {
      const uint32_t low = static_cast<uint32_t>(i) & 0xffff;
      const uint32_t bits = k == 15   ? 0x7fc00000u | low   // quiet, with a payload
                            : k == 16 ? 0x7f800001u | low   // signalling
                                      : 0xffc00000u | low;  // quiet, negative
      v[i] = std::bit_cast<float>(bits);
    } else if (specials && k < 20) {
      v[i] = k == 18 ? std::numeric_limits<float>::infinity()
                     : -std::numeric_limits<float>::infinity();
    } else {
      v[i] = mantissa(rng) * std::pow(10.0f, static_cast<float>(exponent(rng)));
    }
  }
  return v;
}

// Products of many numbers overflow or vanish; these stay near 1 so the order still shows.
std::vector<float> NearOne(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(0.9f, 1.1f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

bool IsArithmetic(ReduceOp op) {
  return op == ReduceOp::kSum || op == ReduceOp::kMean || op == ReduceOp::kProd;
}

// Bit for bit, except that a sum or product of two NaNs may be either NaN: x86 returns the
// first operand's, and which operand is first is the compiler's choice (the add commutes), in
// the reference compiled here as anywhere. Max, Min and the arg ops select, so their NaN is
// exactly the first one.
void ExpectRowsMatch(RowLaneTarget target, ReduceOp op, const std::vector<float>& data,
                     int64_t rows, int64_t length, int64_t chunk) {
  const std::vector<double> got = LaneFold(target, op, data, rows, length, chunk);
  for (int64_t i = 0; i < rows; ++i) {
    const double want = ScalarFold(op, data.data() + i * length, length);
    if (IsArithmetic(op) && std::isnan(want)) {  // Note [Row folds in lanes]: which NaN
      ASSERT_TRUE(std::isnan(got[i])) << Name(op) << " row " << i;
      continue;
    }
    ASSERT_EQ(std::bit_cast<uint64_t>(got[i]), std::bit_cast<uint64_t>(want))
        << Name(op) << " on " << Name(target) << ": row " << i << " of " << rows << ", length "
        << length << ", chunk " << chunk << ": got " << got[i] << ", want " << want;
  }
}

TEST(CpuReduceLanes, EveryOpMatchesTheScalarFoldBitForBit) {
  const int64_t row_counts[] = {1, 3, 7, 8, 9, 13, 16, 17, 24, 33};
  const int64_t lengths[] = {0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 64, 100, 1000, 1027};
  uint32_t seed = 1;
  for (RowLaneTarget target : Targets()) {
    for (ReduceOp op : kOps) {
      for (int64_t rows : row_counts) {
        for (int64_t length : lengths) {
          const size_t n = static_cast<size_t>(rows * length);
          const bool specials = op != ReduceOp::kSum && op != ReduceOp::kMean && seed % 2 == 0;
          const std::vector<float> data =
              op == ReduceOp::kProd ? NearOne(n, seed) : Numbers(n, seed, specials);
          ++seed;
          ExpectRowsMatch(target, op, data, rows, length, std::max<int64_t>(length, 1));
        }
      }
    }
  }
}

TEST(CpuReduceLanes, ChunksOfARowFoldAsOneRow) {
  // Chunks of 5 and 13 positions leave vector blocks unaligned with the row and tails in the
  // middle of it; 8 keeps them aligned.
  for (RowLaneTarget target : Targets()) {
    for (ReduceOp op : kOps) {
      for (int64_t chunk : {1, 5, 8, 13, 512}) {
        const std::vector<float> data =
            op == ReduceOp::kProd ? NearOne(11 * 300, 7) : Numbers(11 * 300, 7, true);
        ExpectRowsMatch(target, op, data, 11, 300, chunk);
      }
    }
  }
}

// The data above would reveal a fold in another order: reversed, the sums and products of
// most rows change, so matching the in-order fold is not a property of any order.
TEST(CpuReduceLanes, TheTestDataDependsOnTheFoldOrder) {
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kProd}) {
    const std::vector<float> data =
        op == ReduceOp::kProd ? NearOne(9 * 1000, 3) : Numbers(9 * 1000, 3, false);
    int differ = 0;
    for (int64_t i = 0; i < 9; ++i) {
      const float* row = data.data() + i * 1000;
      differ += ScalarFold(op, row, 1000) != ScalarFold(op, row, 1000, true);
    }
    EXPECT_GE(differ, 5) << Name(op);
  }
}

TEST(CpuReduceLanes, NanTiesAndSignedZeros) {
  const float nan_a = std::bit_cast<float>(0x7fc00001u);
  const float nan_b = std::bit_cast<float>(0xffc00002u);
  const float snan = std::bit_cast<float>(0x7f800003u);
  const float inf = std::numeric_limits<float>::infinity();
  // Eight rows of 12: each row a case, beyond the first vector block and into the tail.
  const std::vector<std::vector<float>> rows = {
      {1, 2, nan_a, 5, nan_b, 9, 1, 1, 1, 1, 1, 1},        // the first NaN stays, at index 2
      {0.0f, -0.0f, 0.0f, -0.0f, 0, 0, 0, 0, 0, 0, 0, 0},  // +0 first: max and min keep it
      {-0.0f, 0.0f, -0.0f, 0, 0, 0, 0, 0, 0, 0, 0, 0},     // -0 first
      {3, 7, 7, 1, 7, 0, 0, 0, 0, 0, 0, 7},  // ties: the first 7 (argmax 1), the first 0
      {-inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf},
      {inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf},
      {4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, snan},     // a signalling NaN in the tail
      {nan_b, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},  // a NaN at position 0
  };
  std::vector<float> data;
  for (const auto& row : rows) data.insert(data.end(), row.begin(), row.end());
  // And again as rows 8-15 (the second group of lanes) and as 13 rows.
  std::vector<float> twice = data;
  twice.insert(twice.end(), data.rbegin(), data.rend());
  for (RowLaneTarget target : Targets()) {
    for (ReduceOp op : kOps) {
      ExpectRowsMatch(target, op, data, 8, 12, 12);
      ExpectRowsMatch(target, op, twice, 16, 12, 12);
      ExpectRowsMatch(target, op, twice, 13, 12, 12);
    }
  }
  // And the rules themselves, as reduce_fold.h states them.
  const std::vector<double> argmax = LaneFold(Targets().back(), ReduceOp::kArgMax, data, 8, 12, 12);
  EXPECT_EQ(argmax[0], 2);  // the first NaN
  EXPECT_EQ(argmax[3], 1);  // the first of the tied 7s
  EXPECT_EQ(argmax[4], 0);  // all -inf: position 0
  EXPECT_EQ(argmax[7], 0);  // NaN at position 0
  const std::vector<double> max = LaneFold(Targets().back(), ReduceOp::kMax, data, 8, 12, 12);
  EXPECT_FALSE(std::signbit(max[1]));  // +0 came first
  EXPECT_TRUE(std::signbit(max[2]));   // -0 came first
  EXPECT_EQ(std::bit_cast<uint64_t>(max[0]), std::bit_cast<uint64_t>(static_cast<double>(nan_a)));
  const std::vector<double> argmin = LaneFold(Targets().back(), ReduceOp::kArgMin, data, 8, 12, 12);
  EXPECT_EQ(argmin[3], 5);  // the first 0
}

// A NaN met in the first block stays the best through later blocks without a NaN (which step
// with the compare alone) and through the tail, in two groups of eight rows.
TEST(CpuReduceLanes, ANanBestStaysThroughLaterBlocks) {
  constexpr int64_t kRows = 16, kLength = 43;
  std::vector<float> data(kRows * kLength);
  for (int64_t i = 0; i < kRows; ++i) {
    for (int64_t r = 0; r < kLength; ++r) {
      const float up = static_cast<float>(r), down = static_cast<float>(-r);
      data[i * kLength + r] = i % 2 == 1 && r == 1
                                  ? std::bit_cast<float>(0x7fc00000u | static_cast<uint32_t>(i))
                                  : (i % 4 < 2 ? up : down);
    }
  }
  for (RowLaneTarget target : Targets()) {
    for (ReduceOp op : kOps) {
      if (op == ReduceOp::kProd || op == ReduceOp::kSum || op == ReduceOp::kMean) continue;
      ExpectRowsMatch(target, op, data, kRows, kLength, kLength);
      const std::vector<double> got = LaneFold(target, op, data, kRows, kLength, kLength);
      for (int64_t i = 1; i < kRows; i += 2) {
        if (IsArg(op)) {
          EXPECT_EQ(got[i], 1) << Name(op) << " row " << i;
        } else {
          EXPECT_TRUE(std::isnan(got[i])) << Name(op) << " row " << i;
        }
      }
    }
  }
}

// Outputs side by side: `count` outputs, position r of output j at data[r * stride + j],
// folded on `target` in chunks of `chunk` positions.
std::vector<double> ColumnFold(RowLaneTarget target, ReduceOp op, const std::vector<float>& data,
                               int64_t count, int64_t stride, int64_t length, int64_t chunk) {
  auto lanes = std::make_unique<ColumnLanes>();
  StartColumnLanes(op, count, *lanes);
  for (int64_t r0 = 0; r0 < length; r0 += chunk) {
    const int64_t n = std::min(chunk, length - r0);
    FoldColumnChunkOn(target, op, data.data() + r0 * stride, stride, r0, n, count, *lanes);
  }
  std::vector<double> out(static_cast<size_t>(count));
  FinishColumnLanes(op, *lanes, count, length, out.data());
  return out;
}

TEST(CpuReduceLanes, ColumnsMatchTheScalarFoldBitForBit) {
  // Counts around the blocks of 32 and 8 outputs and the scalar tail; a stride past the count
  // (other numbers between the runs); chunks of 1 and 7 positions.
  const int64_t counts[] = {1, 7, 8, 9, 31, 32, 33, 45, 77, 2048};
  const int64_t lengths[] = {0, 1, 5, 64, 300};
  uint32_t seed = 100;
  for (RowLaneTarget target : Targets()) {
    for (ReduceOp op : kOps) {
      for (int64_t count : counts) {
        for (int64_t length : lengths) {
          const int64_t stride = count + 3;
          const size_t n = static_cast<size_t>(stride * length);
          const bool specials = !IsArithmetic(op) || seed % 3 == 0;
          const std::vector<float> data =
              op == ReduceOp::kProd ? NearOne(n, seed) : Numbers(n, seed, specials);
          ++seed;
          for (int64_t chunk : {std::max<int64_t>(length, 1), int64_t{1}, int64_t{7}}) {
            const std::vector<double> got =
                ColumnFold(target, op, data, count, stride, length, chunk);
            std::vector<float> column(static_cast<size_t>(length));
            for (int64_t j = 0; j < count; ++j) {
              for (int64_t r = 0; r < length; ++r) column[r] = data[r * stride + j];
              const double want = ScalarFold(op, column.data(), length);
              if (IsArithmetic(op) && std::isnan(want)) {  // which NaN: ExpectRowsMatch
                ASSERT_TRUE(std::isnan(got[j])) << Name(op) << " output " << j;
                continue;
              }
              ASSERT_EQ(std::bit_cast<uint64_t>(got[j]), std::bit_cast<uint64_t>(want))
                  << Name(op) << " on " << Name(target) << ": output " << j << " of " << count
                  << ", length " << length << ", chunk " << chunk << ": got " << got[j] << ", want "
                  << want;
            }
          }
        }
      }
    }
  }
}

TEST(CpuReduceLanes, EmptyRowsFinishAsTheScalarFold) {
  const std::vector<float> none;
  for (RowLaneTarget target : Targets()) {
    for (ReduceOp op : kOps) {
      RowLanes lanes = StartRowLanes(op);
      const float* at[kRowLanes] = {};
      FoldRowChunkOn(target, op, at, 0, 0, lanes);
      double finished[kRowLanes];
      FinishRowLanes(op, lanes, 3, 0, finished);
      const double want = ScalarFold(op, nullptr, 0);
      for (int j = 0; j < 3; ++j) {
        EXPECT_EQ(std::bit_cast<uint64_t>(finished[j]), std::bit_cast<uint64_t>(want)) << Name(op);
      }
    }
  }
  EXPECT_TRUE(std::isnan(ScalarFold(ReduceOp::kMean, nullptr, 0)));  // 0/0
  EXPECT_EQ(ScalarFold(ReduceOp::kProd, nullptr, 0), 1.0);
}

// ReduceDim along an outer axis (the across-outputs loop, in column lanes): [L, 37] reduced
// over axis 0, dense f32 (read in place) and f16 (converted position by position), against the
// scalar fold of each column.
TEST(CpuReduceLanes, ReduceDimOverTheFirstAxisMatchesTheScalarFold) {
  const std::pair<OpKind, ReduceOp> kinds[] = {
      {OpKind::kSumDim, ReduceOp::kSum},   {OpKind::kMeanDim, ReduceOp::kMean},
      {OpKind::kProdDim, ReduceOp::kProd}, {OpKind::kMaxDim, ReduceOp::kMax},
      {OpKind::kMinDim, ReduceOp::kMin},   {OpKind::kArgMax, ReduceOp::kArgMax},
      {OpKind::kArgMin, ReduceOp::kArgMin}};
  constexpr int64_t kLength = 300, kOutputs = 2100;  // two tiles of outputs, the second short
  for (DType dtype : {DType::kF32, DType::kF16}) {
    for (const auto& [kind, op] : kinds) {
      std::vector<float> numbers = op == ReduceOp::kProd ? NearOne(kLength * kOutputs, 5)
                                                         : Numbers(kLength * kOutputs, 5, false);
      if (dtype == DType::kF16) {
        for (float& x : numbers) x = std::clamp(x, -6e4f, 6e4f);
      }
      const std::vector<double> values(numbers.begin(), numbers.end());
      std::vector<float> seen(values.size());
      for (size_t i = 0; i < values.size(); ++i) {
        seen[i] = static_cast<float>(testing::RoundTo(values[i], dtype));
      }
      testing::Harness h;
      const TensorIr x = h.Input({kLength, kOutputs}, dtype, values);
      const bool arg = op == ReduceOp::kArgMax || op == ReduceOp::kArgMin;
      const TensorIr o = h.Output({1, kOutputs}, arg ? DType::kI64 : DType::kF32);
      const std::vector<double> got = h.Run(ir::ReduceDim(kind, x, 0, o));
      std::vector<float> column(kLength);
      for (int64_t j = 0; j < kOutputs; ++j) {
        for (int64_t r = 0; r < kLength; ++r) column[r] = seen[r * kOutputs + j];
        const double want = ScalarFold(op, column.data(), kLength);
        const double stored = arg ? want : static_cast<double>(static_cast<float>(want));
        ASSERT_EQ(std::bit_cast<uint64_t>(got[j]), std::bit_cast<uint64_t>(stored))
            << Name(op) << " " << DTypeName(dtype) << " output " << j;
      }
    }
  }
}

// ReduceDim's along-the-axis loop folds in lanes: dense rows (read in place), a transposed
// input (the axis strided: gathered into scratch) and f16 (converted into scratch), 13 rows,
// against the scalar fold of the same f32 numbers.
TEST(CpuReduceLanes, ReduceDimMatchesTheScalarFold) {
  const std::pair<OpKind, ReduceOp> kinds[] = {
      {OpKind::kSumDim, ReduceOp::kSum},    {OpKind::kMeanDim, ReduceOp::kMean},
      {OpKind::kMaxDim, ReduceOp::kMax},    {OpKind::kMinDim, ReduceOp::kMin},
      {OpKind::kArgMax, ReduceOp::kArgMax}, {OpKind::kArgMin, ReduceOp::kArgMin}};
  constexpr int64_t kRows = 13, kLength = 1100;
  for (DType dtype : {DType::kF32, DType::kF16}) {
    for (bool transposed : {false, true}) {
      std::vector<float> numbers = Numbers(kRows * kLength, 11, false);
      if (dtype == DType::kF16) {
        for (float& x : numbers) x = std::clamp(x, -6e4f, 6e4f);
      }
      std::vector<double> values(numbers.begin(), numbers.end());
      testing::Harness h;
      // Transposed: stored as [L, rows] and permuted, so rows are strided by kRows.
      std::vector<double> stored = values;
      if (transposed) {
        for (int64_t i = 0; i < kRows; ++i) {
          for (int64_t r = 0; r < kLength; ++r) stored[r * kRows + i] = values[i * kLength + r];
        }
      }
      TensorIr x = transposed ? h.Input({kLength, kRows}, dtype, stored)
                              : h.Input({kRows, kLength}, dtype, stored);
      if (transposed) {
        const TensorIr t = h.Output({kRows, kLength}, dtype);
        h.Run(ir::Permute(x, {1, 0}, t));
        x = t;
      }
      // The f32 numbers the kernel sees (f16 rounds them on the way in).
      std::vector<float> rows(values.size());
      for (size_t i = 0; i < values.size(); ++i) {
        rows[i] = static_cast<float>(testing::RoundTo(values[i], dtype));
      }
      for (const auto& [kind, op] : kinds) {
        const bool arg = op == ReduceOp::kArgMax || op == ReduceOp::kArgMin;
        const TensorIr o = h.Output({kRows, 1}, arg ? DType::kI64 : DType::kF32);
        const std::vector<double> got = h.Run(ir::ReduceDim(kind, x, 1, o));
        for (int64_t i = 0; i < kRows; ++i) {
          const double want = ScalarFold(op, rows.data() + i * kLength, kLength);
          const double stored_want = arg ? want : static_cast<double>(static_cast<float>(want));
          EXPECT_EQ(std::bit_cast<uint64_t>(got[i]), std::bit_cast<uint64_t>(stored_want))
              << Name(op) << " " << DTypeName(dtype) << (transposed ? " transposed" : "") << " row "
              << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace ember::cpu
