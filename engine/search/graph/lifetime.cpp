#include "engine/search/graph/lifetime.h"

#include <cstdint>
#include <unordered_map>
#include <unordered_set>

#include "engine/core/check.h"

namespace ember {
namespace {

enum class Life : uint8_t { kAlive, kDead };  // an id absent from the map is not known yet

// The simulation of lifetime.h over `count` nodes, the k-th being node_at(k).
template <typename NodeAt>
bool Simulate(size_t count, const NodeAt& node_at) {
  std::unordered_set<TensorId> produced_in_order;
  for (size_t k = 0; k < count; ++k) {
    const DataFlow& node = node_at(k);
    produced_in_order.insert(node.produced.begin(), node.produced.end());
  }

  std::unordered_map<TensorId, Life> life;
  for (size_t k = 0; k < count; ++k) {
    const DataFlow& node = node_at(k);
    for (TensorId id : node.read) {
      auto it = life.find(id);
      if (it != life.end()) {
        if (it->second == Life::kDead) return false;  // read after its last use
        continue;
      }
      if (produced_in_order.contains(id)) return false;  // read before its producer ran
      life.emplace(id, Life::kAlive);                    // from outside the order
    }
    for (TensorId id : node.freed) life[id] = Life::kDead;
    for (TensorId id : node.produced) life[id] = Life::kAlive;
  }
  return true;
}

}  // namespace

bool IsValidExecutionOrder(std::span<const DataFlow> order) {
  return Simulate(order.size(), [&](size_t k) -> const DataFlow& { return order[k]; });
}

bool IsValidExecutionOrder(std::span<const DataFlow> nodes, std::span<const size_t> order) {
  for (size_t index : order) {
    EMBER_CHECK(index < nodes.size(), "order names node {} of {}", index, nodes.size());
  }
  return Simulate(order.size(), [&](size_t k) -> const DataFlow& { return nodes[order[k]]; });
}

}  // namespace ember
