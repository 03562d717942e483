#include "engine/runtime/cpu/map_tiles.h"

#include <algorithm>
#include <optional>
#include <type_traits>
#include <vector>

#include "engine/core/check.h"
#include "engine/runtime/cpu/convert.h"
#include "engine/runtime/cpu/cpu_buffer.h"
#include "engine/runtime/cpu/strided.h"

namespace ember::cpu {
namespace {

std::optional<TensorHandle> ReusableInput(std::span<const Operand> operands, const TensorIr& out) {
  for (const Operand& operand : operands) {
    const TensorHandle* t = operand.tensor;
    if (t == nullptr || !operand.last_use) continue;
    if (t->dtype == out.dtype && t->shape == out.shape && t->IsContiguous() &&
        MayWriteInPlace(*t)) {
      return *t;
    }
  }
  return std::nullopt;
}

// Domain-typed half of MapTiles; T is float or int64_t. Kept as a template of two instances
// because the two domains differ only in the element type and their load/store functions.
template <typename T>
void RunTiles(void (*fn)(const T* const*, T*, int64_t), std::span<const Operand> operands,
              std::span<const StridedView> views, TensorHandle& out, ThreadPool& pool) {
  constexpr DType kDense = std::is_same_v<T, float> ? DType::kF32 : DType::kI64;
  const int64_t n = out.NumElements();
  std::byte* out_data = ElementData(out);
  const int out_size = DTypeSize(out.dtype);
  pool.ParallelFor(n, kParallelGrain, [&](int64_t chunk_begin, int64_t chunk_end) {
    alignas(64) T scratch[kMaxOperands][kTileSize];
    alignas(64) T result[kTileSize];
    const T* in[kMaxOperands] = {};
    // Scalars fill their scratch once per chunk; tensor loads never touch it.
    for (size_t k = 0; k < operands.size(); ++k) {
      if (operands[k].tensor != nullptr) continue;
      const T value = std::is_same_v<T, float> ? static_cast<T>(ScalarAsFloat(operands[k].scalar))
                                               : static_cast<T>(ScalarAsInt(operands[k].scalar));
      std::fill_n(scratch[k], kTileSize, value);
      in[k] = scratch[k];
    }
    for (int64_t begin = chunk_begin; begin < chunk_end; begin += kTileSize) {
      const int64_t count = std::min(kTileSize, chunk_end - begin);
      for (size_t k = 0; k < operands.size(); ++k) {
        if (operands[k].tensor == nullptr) continue;
        if constexpr (std::is_same_v<T, float>) {
          in[k] = LoadF32(views[k], begin, count, scratch[k]);
        } else {
          in[k] = LoadI64(views[k], begin, count, scratch[k]);
        }
      }
      std::byte* dst = out_data + begin * out_size;
      if (out.dtype == kDense) {
        fn(in, reinterpret_cast<T*>(dst), count);
        continue;
      }
      fn(in, result, count);
      if constexpr (std::is_same_v<T, float>) {
        StoreRunF32(result, count, out.dtype, dst);
      } else {
        StoreRunI64(result, count, out.dtype, dst);
      }
    }
  });
}

}  // namespace

TensorHandle MapTiles(const TileOp& op, std::span<const Operand> operands, const TensorIr& out,
                      ThreadPool& pool) {
  EMBER_CHECK(!operands.empty() && operands.size() <= kMaxOperands, "{} operands", operands.size());
  std::optional<TensorHandle> reused = ReusableInput(operands, out);
  TensorHandle result = reused ? std::move(*reused) : NewHandle(out.shape, out.dtype);
  std::vector<StridedView> views(operands.size());
  for (size_t k = 0; k < operands.size(); ++k) {
    if (operands[k].tensor != nullptr) views[k] = BroadcastView(*operands[k].tensor, out.shape);
  }
  if (op.domain == Domain::kFloat) {
    EMBER_CHECK(op.float_fn != nullptr, "no float function");
    RunTiles<float>(op.float_fn, operands, views, result, pool);
  } else {
    EMBER_CHECK(op.int_fn != nullptr, "no int function");
    RunTiles<int64_t>(op.int_fn, operands, views, result, pool);
  }
  return result;
}

}  // namespace ember::cpu
