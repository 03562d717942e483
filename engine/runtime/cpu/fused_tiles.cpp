#include "engine/runtime/cpu/fused_tiles.h"
#include "engine/runtime/cpu/buffer_cache.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/runtime/cpu/convert.h"
#include "engine/runtime/cpu/fused_indexed.h"

namespace ember::cpu {
namespace {

int NumberSize(Domain domain) { return DTypeSize(DomainDType(domain)); }

// Numbers [begin, begin + n) of `view` in `domain`: a pointer into the tensor when it is dense
// in that domain's type (unless `copy`), else `slot` filled.
const void* LoadView(const StridedView& view, Domain domain, int64_t begin, int64_t n, void* slot,
                     bool copy) {
  const void* loaded =
      domain == Domain::kFloat
          ? static_cast<const void*>(LoadF32(view, begin, n, static_cast<float*>(slot)))
          : LoadI64(view, begin, n, static_cast<int64_t*>(slot));
  if (!copy || loaded == slot) return loaded;
  std::memcpy(slot, loaded, n * NumberSize(domain));
  return slot;
}

// Full positions [rel, rel + n) of the group, from a reduced block's numbers: position
// (unit, r, i) reads number (unit, i). Copied in runs: along i, or (inner == 1) a fill along r.
template <typename T>
const T* Repeat(const T* numbers, const GroupBuffers& group, int64_t rel, int64_t n, T* slot) {
  const int64_t length = group.axis_length, inner = group.inner;
  for (int64_t done = 0; done < n;) {
    const int64_t q = rel + done;
    const T* from = numbers + q / (length * inner) * inner + q % inner;
    if (inner == 1) {
      const int64_t run = std::min(n - done, length - q % length);
      std::fill_n(slot + done, run, *from);
      done += run;
      continue;
    }
    const int64_t run = std::min(n - done, inner - q % inner);
    std::copy_n(from, run, slot + done);
    done += run;
  }
  return slot;
}

const void* LoadTile(const BlockProgram& program, const TileSource& source,
                     const GroupBuffers& group, int64_t pos, int64_t rel, int64_t n, void* slot) {
  switch (source.kind) {
    case TileSource::Kind::kTensor:
      return LoadView(source.view, source.domain, pos, n, slot, source.copy);
    case TileSource::Kind::kBroadcastBuffer:
      if (source.domain == Domain::kFloat) {
        return Repeat(reinterpret_cast<const float*>(group.data[source.index]), group, rel, n,
                      static_cast<float*>(slot));
      }
      return Repeat(reinterpret_cast<const int64_t*>(group.data[source.index]), group, rel, n,
                    static_cast<int64_t*>(slot));
    case TileSource::Kind::kBuffer:
      return group.data[source.index] + rel * NumberSize(source.domain);
    case TileSource::Kind::kConstant:
      if (source.domain == Domain::kFloat) return program.float_constants[source.index].data();
      return program.int_constants[source.index].data();
  }
  return nullptr;
}

void StoreNumbers(const void* src, Domain domain, int64_t n, DType dtype, std::byte* dst) {
  if (domain == Domain::kFloat) {
    StoreRunF32(static_cast<const float*>(src), n, dtype, dst);
  } else {
    StoreRunI64(static_cast<const int64_t*>(src), n, dtype, dst);
  }
}

// Stored as `dtype`, then loaded back into its domain: exactly what an unfused kernel's store
// and the next kernel's load do.
void ConvertTile(const void* src, Domain from, DType dtype, void* dst, int64_t n, std::byte* temp) {
  StoreNumbers(src, from, n, dtype, temp);
  if (DomainOf(dtype) == Domain::kFloat) {
    LoadRunF32(temp, dtype, 1, n, static_cast<float*>(dst));
  } else {
    LoadRunI64(temp, dtype, 1, n, static_cast<int64_t*>(dst));
  }
}

void ComputeTile(const TileStep& step, const std::vector<const void*>& at, void* out, int64_t n) {
  if (step.op.domain == Domain::kFloat) {
    const float* in[kMaxOperands] = {};
    for (int k = 0; k < kMaxOperands && step.args[k] >= 0; ++k) {
      in[k] = static_cast<const float*>(at[step.args[k]]);
    }
    step.op.float_fn(in, static_cast<float*>(out), n);
    return;
  }
  const int64_t* in[kMaxOperands] = {};
  for (int k = 0; k < kMaxOperands && step.args[k] >= 0; ++k) {
    in[k] = static_cast<const int64_t*>(at[step.args[k]]);
  }
  step.op.int_fn(in, static_cast<int64_t*>(out), n);
}

// An output with size-1 dims where the reference is bigger: only positions at coordinate 0 in
// those dims write, so each element is written once, by one thread (every position that maps
// there holds the same value).
void StoreRepeated(const OutputTarget& target, const void* src, Domain domain, int64_t pos,
                   int64_t n) {
  const Shape& ref = target.ref;
  const size_t last = ref.size() - 1;
  std::vector<int64_t> index(ref.size());
  int64_t rest = pos;
  for (size_t k = ref.size(); k-- > 0;) {
    index[k] = rest % ref[k];
    rest /= ref[k];
  }
  const int size = DTypeSize(target.dtype);
  const auto* numbers = static_cast<const std::byte*>(src);
  for (int64_t done = 0; done < n;) {
    const int64_t length = std::min(n - done, ref[last] - index[last]);
    bool first = true;
    int64_t offset = 0;
    for (size_t k = 0; k <= last; ++k) {
      const bool repeated = target.strides[k] == 0 && ref[k] > 1;
      if (repeated && index[k] != 0) first = false;
      offset += index[k] * target.strides[k];
    }
    // A run along a repeated last dim writes its coordinate-0 element only.
    const int64_t count = target.strides[last] == 0 && ref[last] > 1 ? 1 : length;
    if (first) {
      StoreNumbers(numbers + done * NumberSize(domain), domain, count, target.dtype,
                   target.data + offset * size);
    }
    done += length;
    index[last] += length;
    for (size_t k = last; k > 0 && index[k] == ref[k]; --k) {
      index[k] = 0;
      ++index[k - 1];
    }
  }
}

void StoreTile(const OutputTarget& target, const void* src, Domain domain, int64_t pos, int64_t n) {
  if (target.dense) {
    StoreNumbers(src, domain, n, target.dtype, target.data + pos * DTypeSize(target.dtype));
    return;
  }
  StoreRepeated(target, src, domain, pos, n);
}

// Where a kKeep or kStore puts the tile's numbers when they need no conversion: the group buffer,
// or a direct output (Note [Direct writes]); null for a store that converts or scatters.
void* Destination(const BlockProgram& program, const TileStep& step, const GroupBuffers& group,
                  int64_t pos, int64_t rel) {
  if (step.kind == TileStep::Kind::kKeep) {
    const Domain domain = program.values[step.args[0]].domain;
    return group.data[step.target] + rel * NumberSize(domain);
  }
  const OutputTarget& target = program.targets[step.target];
  if (!target.direct) return nullptr;
  return target.data + pos * DTypeSize(target.dtype);
}

// Where a step that makes a value writes it: the destination of the store or keep it feeds
// (Note [Direct writes]) when that takes it, else its slot; null for a value without one.
void* OutPlace(const BlockProgram& program, const TileStep& step, const GroupBuffers& group,
               int64_t pos, int64_t rel, TileScratch& scratch) {
  if (step.out < 0) return nullptr;
  if (step.into >= 0) {
    if (void* into = Destination(program, program.steps[step.into], group, pos, rel)) return into;
  }
  const int slot = program.values[step.out].slot;
  return slot >= 0 ? scratch.slot(slot) : nullptr;
}

}  // namespace

TileScratch::TileScratch(int slots)
    : slots_(slots),
      bytes_(BufferCache::Global().Allocate(static_cast<size_t>((slots + 1) * kSlotBytes),
                                            &capacity_)) {}

TileScratch::~TileScratch() { BufferCache::Global().Release(bytes_, capacity_); }

void RunBlockTiles(const BlockProgram& program, const GroupBuffers& group, int64_t base,
                   int64_t begin, int64_t end, TileScratch& scratch) {
  const std::vector<TileValue>& values = program.values;
  std::vector<const void*>& at = scratch.places(values.size());
  std::vector<uint8_t>& repeated = scratch.repeated();
  // A repeated value (Note [Repeated rows]) as a tile of copies in its slot, for a step that
  // reads whole tiles.
  auto spread = [&](int v, int64_t n) {
    if (v < 0 || !repeated[v]) return;
    float* slot = static_cast<float*>(scratch.slot(values[v].slot));
    std::fill_n(slot, n, *static_cast<const float*>(at[v]));
    at[v] = slot;
    repeated[v] = 0;
  };
  for (int64_t pos = begin; pos < end; pos += kFusedTile) {
    const int64_t n = std::min(kFusedTile, end - pos);
    const int64_t rel = pos - base;
    const int64_t length = group.axis_length;
    const bool one_row = group.inner == 1 && length > 0 && rel / length == (rel + n - 1) / length;
    for (const TileStep& step : program.steps) {
      if (step.kind == TileStep::Kind::kCompute && step.op.domain == Domain::kFloat &&
          step.op.float_rhs_repeated != nullptr && step.args[1] >= 0 && repeated[step.args[1]]) {
        spread(step.args[0], n);
        void* out = OutPlace(program, step, group, pos, rel, scratch);
        const float* in[kMaxOperands] = {static_cast<const float*>(at[step.args[0]]),
                                         static_cast<const float*>(at[step.args[1]])};
        step.op.float_rhs_repeated(in, static_cast<float*>(out), n);
        at[step.out] = out;
        repeated[step.out] = 0;
        continue;
      }
      for (int a : step.args) spread(a, n);
      if (step.out >= 0) repeated[step.out] = 0;
      if (one_row && step.kind == TileStep::Kind::kLoad) {
        const TileSource& source = program.sources[step.target];
        if (source.kind == TileSource::Kind::kBroadcastBuffer && source.domain == Domain::kFloat) {
          at[step.out] = reinterpret_cast<const float*>(group.data[source.index]) + rel / length;
          repeated[step.out] = 1;
          continue;
        }
      }
      void* out = OutPlace(program, step, group, pos, rel, scratch);
      const int a = step.args[0];
      switch (step.kind) {
        case TileStep::Kind::kLoad:
          at[step.out] = LoadTile(program, program.sources[step.target], group, pos, rel, n, out);
          break;
        case TileStep::Kind::kConvert:
          ConvertTile(at[a], values[a].domain, step.dtype, out, n, scratch.temp());
          at[step.out] = out;
          break;
        case TileStep::Kind::kCompute:
          ComputeTile(step, at, out, n);
          at[step.out] = out;
          break;
        case TileStep::Kind::kStore:
          // A step wrote the numbers here already (Note [Direct writes]).
          if (at[a] == Destination(program, step, group, pos, rel)) break;
          StoreTile(program.targets[step.target], at[a], values[a].domain, pos, n);
          break;
        case TileStep::Kind::kIndexed:
          LoadIndexedTile(program.indexed[step.target], pos, n, out, scratch.temp());
          at[step.out] = out;
          break;
        case TileStep::Kind::kKeep: {
          void* into = Destination(program, step, group, pos, rel);
          if (at[a] != into) {
            std::memcpy(into, at[a], n * NumberSize(values[a].domain));
          }
          break;
        }
      }
    }
  }
}

}  // namespace ember::cpu
