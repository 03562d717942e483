// The per-output accumulation of the reduce kernels (Start, Fold, Finish, Store), shared by
// ReduceDim and ReduceAll (reduce.cpp) and by the reduce stages of fused traces
// (fused_reduce.cpp), so a fused reduce folds exactly as the unfused one: same accumulator,
// same order, same final rounding.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "engine/runtime/cpu/convert.h"
#include "engine/runtime/cpu/kernels.h"

namespace ember::cpu {

// The running state of one output. V is the domain's element type (float or int64_t); A the
// accumulator: double for floats (sums and products lose less), wrapping int64 for ints.
template <typename V>
struct Accumulator {
  using A = std::conditional_t<std::is_same_v<V, float>, double, int64_t>;
  A value;
  int64_t index;  // ArgMax / ArgMin: position along the axis
};

template <typename A>
A AddWrapping(A a, A b) {
  if constexpr (std::is_same_v<A, int64_t>) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  } else {
    return a + b;
  }
}

template <typename A>
A MulWrapping(A a, A b) {
  if constexpr (std::is_same_v<A, int64_t>) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else {
    return a * b;
  }
}

template <typename A>
bool IsNan(A v) {
  if constexpr (std::is_floating_point_v<A>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// Max/Min: the first NaN wins and stays (NaN propagates); otherwise strictly better, so the
// first occurrence of the extreme keeps its index.
template <typename A>
bool Beats(ReduceOp op, A x, A best) {
  if (IsNan(best)) return false;
  if (IsNan(x)) return true;
  return (op == ReduceOp::kMax || op == ReduceOp::kArgMax) ? x > best : x < best;
}

template <typename V>
Accumulator<V> Start(ReduceOp op) {
  using A = typename Accumulator<V>::A;
  return {op == ReduceOp::kProd ? A{1} : A{0}, 0};
}

// Folds value v, at position r along the axis, into acc.
template <typename V>
void Fold(ReduceOp op, Accumulator<V>& acc, V v, int64_t r) {
  using A = typename Accumulator<V>::A;
  const A x = static_cast<A>(v);
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kMean: acc.value = AddWrapping(acc.value, x); return;
    case ReduceOp::kProd: acc.value = MulWrapping(acc.value, x); return;
    case ReduceOp::kMax:
    case ReduceOp::kMin:
    case ReduceOp::kArgMax:
    case ReduceOp::kArgMin:
      if (r == 0 || Beats(op, x, acc.value)) acc = {x, r};
      return;
  }
}

// The final value of an output, as the domain's accumulator type (arg ops: the index).
template <typename V>
typename Accumulator<V>::A Finish(ReduceOp op, const Accumulator<V>& acc, int64_t length) {
  using A = typename Accumulator<V>::A;
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kProd:
    case ReduceOp::kMax:
    case ReduceOp::kMin: return acc.value;
    case ReduceOp::kArgMax:
    case ReduceOp::kArgMin: return static_cast<A>(acc.index);
    case ReduceOp::kMean:
      if constexpr (std::is_same_v<A, double>) {
        return acc.value / static_cast<double>(length);  // 0/0 = NaN for an empty axis
      } else {
        return length == 0 ? 0 : acc.value / length;  // truncates toward zero
      }
  }
  return acc.value;
}

constexpr bool IsArg(ReduceOp op) { return op == ReduceOp::kArgMax || op == ReduceOp::kArgMin; }

// Stores `n` finished outputs at `dst` (contiguous, out_dtype). Arg results are indices and
// always go through the integer path.
template <typename V>
void Store(ReduceOp op, const typename Accumulator<V>::A* values, int64_t n, DType out_dtype,
           std::byte* dst) {
  using A = typename Accumulator<V>::A;
  if constexpr (std::is_same_v<A, double>) {
    if (!IsArg(op)) {
      float narrowed[kTileSize];
      for (int64_t i = 0; i < n; ++i) narrowed[i] = static_cast<float>(values[i]);
      StoreRunF32(narrowed, n, out_dtype, dst);
      return;
    }
    int64_t indices[kTileSize];
    for (int64_t i = 0; i < n; ++i) indices[i] = static_cast<int64_t>(values[i]);
    StoreRunI64(indices, n, out_dtype, dst);
  } else {
    StoreRunI64(values, n, out_dtype, dst);
  }
}

}  // namespace ember::cpu
