// GraphRecipeStore: where the backend keeps the tapes of launch windows that repeated (Note
// [Launch windows], engine/runtime/cuda/backend/launch_graphs.h), so that a later process
// captures such a window at its first occurrence instead of after it has repeated: the plan
// database of either kind and its shared-memory tier (store/persistent_recipes.h), reached
// through the PlanBacking (engine/stream/plan_backing.h). A plug-in like DeviceFactStore: a
// backend without graphs never sees one.
//
// A recipe is data, never code: its body is a tape (engine/runtime/graph_tape.h) that the backend
// decodes and compares in full with a tape it has just run eagerly; a recipe only lowers how
// often that tape must repeat before it is captured. A recipe that does not decode, or names a
// tape this process never runs, is ignored; one whose kernels are gone from the database is
// refused by `ember-plans recipes verify` and removed by `ember-plans gc`.
//
// Threading: called under the device server's lock, one call at a time per store.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ember {

struct GraphRecipe {
  uint64_t key = 0;  // TapeHash of the tape
  std::string body;  // EncodeTape of the tape
  // The KernelBinaryKey hashes it launches (TapeKernels), kept beside the body so that a store
  // can tell which recipes lost a kernel without decoding them.
  std::vector<uint64_t> kernels;
  bool operator==(const GraphRecipe&) const = default;
};

class GraphRecipeStore {
 public:
  virtual ~GraphRecipeStore() = default;
  // The longest body a store keeps; a longer recipe is not remembered.
  static constexpr size_t kMaxBodyBytes = 64 * 1024;

  // Every recipe kept for this environment and workload (by any process that shares the
  // database), damaged rows skipped. Called once, when the backend takes the store.
  virtual std::vector<GraphRecipe> LoadAll() = 0;
  // Keeps `recipe`, replacing one with the same key; written behind (never waits on the
  // database).
  virtual void Remember(const GraphRecipe& recipe) = 0;
};

}  // namespace ember
