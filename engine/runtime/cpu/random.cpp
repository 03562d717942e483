#include "engine/runtime/cpu/random.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>

#include "engine/core/half.h"
#include "engine/runtime/cpu/convert.h"
#include "engine/runtime/cpu/cpu_buffer.h"
#include "engine/runtime/cpu/map_tiles.h"
#include "engine/runtime/cpu/strided.h"

namespace ember::cpu {
namespace {

constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ull;

// SplitMix64's output function (Steele, Lea, Flood 2014).
uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// [0, 1) with 53 random bits.
double Unit(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1p-53; }

// The 16-bit pattern of the next value below `h` (toward -infinity).
uint16_t NextDown16(uint16_t h) {
  if ((h & 0x7fffu) == 0) return 0x8001u;  // +-0 -> smallest negative subnormal
  return (h & 0x8000u) ? h + 1 : h - 1;
}

// Values of elements [begin, begin + n) in double.
void Draw(const Distribution& d, uint64_t key, uint64_t first, int64_t begin, int64_t n,
          double* values) {
  if (d.kind == Distribution::Kind::kUniform) {
    for (int64_t i = 0; i < n; ++i) {
      const double u = Unit(RandomGenerator::Bits(key, first + begin + i));
      values[i] = d.a + (d.b - d.a) * u;
      // a + (b - a) * u can round up to b; keep the bound excluded.
      if (values[i] >= d.b && d.b > d.a) values[i] = std::nextafter(d.b, d.a);
    }
    return;
  }
  // Each pair gives two values (cosine, sine); compute both once and keep those in range.
  for (int64_t pair = begin / 2; pair * 2 < begin + n; ++pair) {
    const uint64_t counter = first + 2 * static_cast<uint64_t>(pair);
    const double u1 = 1.0 - Unit(RandomGenerator::Bits(key, counter));  // (0, 1]
    const double u2 = Unit(RandomGenerator::Bits(key, counter + 1));
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double angle = 2.0 * std::numbers::pi * u2;
    const int64_t even = 2 * pair - begin;  // position of the pair's first element in values
    if (even >= 0) values[even] = d.a + d.b * (radius * std::cos(angle));
    if (even + 1 < n) values[even + 1] = d.a + d.b * (radius * std::sin(angle));
  }
}

// Stores values as `dtype` at dst; `upper` is the excluded upper bound (infinite: none).
void StoreDrawn(const double* values, int64_t n, DType dtype, double upper, std::byte* dst) {
  if (!IsFloat(dtype)) {
    int64_t ints[kTileSize];
    for (int64_t i = 0; i < n; ++i) ints[i] = SaturatingToInt64(std::floor(values[i]));
    StoreRunI64(ints, n, dtype, dst);
    return;
  }
  const bool bounded = std::isfinite(upper);
  float floats[kTileSize];
  for (int64_t i = 0; i < n; ++i) {
    float f = static_cast<float>(values[i]);
    if (bounded && f >= upper) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
    floats[i] = f;
  }
  StoreRunF32(floats, n, dtype, dst);
  if (dtype == DType::kF32 || !bounded) return;
  for (int64_t i = 0; i < n; ++i) {  // f16 / bf16 rounding may have reached `upper` too
    uint16_t h;
    std::memcpy(&h, dst + 2 * i, 2);
    const auto decode = [&](uint16_t v) {
      return dtype == DType::kF16 ? HalfToFloat(v) : BFloat16ToFloat(v);
    };
    while (decode(h) >= upper) h = NextDown16(h);
    std::memcpy(dst + 2 * i, &h, 2);
  }
}

}  // namespace

void RandomGenerator::Seed(uint64_t seed) {
  key_ = Mix(seed + kGolden);
  counter_ = 0;
}

uint64_t RandomGenerator::Reserve(uint64_t count) {
  const uint64_t first = counter_;
  counter_ += count;
  return first;
}

uint64_t RandomGenerator::Bits(uint64_t key, uint64_t counter) {
  return Mix(key + (counter + 1) * kGolden);
}

TensorHandle Random(const Distribution& distribution, const TensorIr& out,
                    RandomGenerator& generator, ThreadPool& pool) {
  TensorHandle result = NewHandle(out.shape, out.dtype);
  const int64_t n = result.NumElements();
  const bool uniform = distribution.kind == Distribution::Kind::kUniform;
  // Normal draws come in pairs; an odd count still reserves the whole last pair.
  const uint64_t first = generator.Reserve(uniform ? n : 2 * ((n + 1) / 2));
  const uint64_t key = generator.key();
  // Only a non-empty uniform range has an excluded bound to respect.
  const double upper = uniform && distribution.b > distribution.a
                           ? distribution.b
                           : std::numeric_limits<double>::infinity();
  std::byte* dst = ElementData(result);
  const int size = DTypeSize(out.dtype);
  pool.ParallelFor(n, kParallelGrain, [&](int64_t begin, int64_t end) {
    double values[kTileSize];
    for (int64_t tile = begin; tile < end; tile += kTileSize) {
      const int64_t count = std::min(kTileSize, end - tile);
      Draw(distribution, key, first, tile, count, values);
      StoreDrawn(values, count, out.dtype, upper, dst + tile * size);
    }
  });
  return result;
}

}  // namespace ember::cpu
