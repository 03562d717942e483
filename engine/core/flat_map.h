// FlatMap: the hash map of the per-op host path (tensor id -> status, relative id, handle;
// dim value -> shape id). tsl::robin_map (Debian's robin-map-dev) keeps its entries in one
// open-addressed array, so inserting a new tensor id allocates nothing and clear() keeps the
// array for the next segment; std::unordered_map allocated and freed a node per entry, which
// was most of the cache-hit path's malloc time (docs/BENCHMARKS.md, issue 18, third part).
//
// Unlike std::unordered_map, an insert or erase may move other entries: never keep a pointer
// or reference into a FlatMap across a call that inserts or erases.
#pragma once

#include <cstdint>
#include <type_traits>

#include <tsl/robin_map.h>

namespace ember {

// robin_map picks a bucket from the hash's low bits, and std::hash of an integer is the
// integer: dim values such as 64, 128 and 256 would then share a bucket. A multiply-xorshift
// (the finalizer of splitmix64, Steele et al., "Fast splittable pseudorandom number
// generators", OOPSLA 2014) spreads them.
struct MixHash {
  template <typename T>
  requires std::is_integral_v<T> size_t operator()(T key) const noexcept {
    uint64_t x = static_cast<uint64_t>(key);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<size_t>(x ^ (x >> 31));
  }
};

template <typename K, typename V>
using FlatMap = tsl::robin_map<K, V, MixHash>;

}  // namespace ember
