#include "engine/fuse/builtin_fusers.h"

#include "engine/fuse/elementwise_fuser.h"
#include "engine/fuse/matmul_fuser.h"
#include "engine/fuse/reduce_broadcasted_fuser.h"
#include "engine/fuse/reduce_fuser.h"

namespace ember {

namespace {

template <typename Fuser>
std::unique_ptr<OperationFuser> Make(uint32_t max_bindings) {
  return std::make_unique<Fuser>(max_bindings);
}

template <typename Fuser>
constexpr BuiltinFuserEntry Row() {
  return {Fuser::kName, Fuser::kVersion, &Make<Fuser>};
}

constexpr BuiltinFuserEntry kTable[] = {
    Row<ElementWiseFuser>(),
    Row<MatmulFuser>(),
    Row<ReduceFuser>(),
    Row<ReduceBroadcastedFuser>(),
};

}  // namespace

std::span<const BuiltinFuserEntry> BuiltinFuserTable() { return kTable; }

std::vector<std::unique_ptr<OperationFuser>> BuiltinFusers(uint32_t max_bindings) {
  std::vector<std::unique_ptr<OperationFuser>> fusers;
  for (const BuiltinFuserEntry& entry : kTable) fusers.push_back(entry.make(max_bindings));
  return fusers;
}

std::unique_ptr<OperationFuser> BuiltinFuser(std::string_view name, uint32_t max_bindings) {
  for (const BuiltinFuserEntry& entry : kTable) {
    if (entry.name == name) return entry.make(max_bindings);
  }
  return nullptr;
}

}  // namespace ember
