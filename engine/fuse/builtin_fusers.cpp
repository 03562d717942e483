#include "engine/fuse/builtin_fusers.h"

#include "engine/fuse/elementwise_fuser.h"
#include "engine/fuse/matmul_fuser.h"
#include "engine/fuse/reduce_broadcasted_fuser.h"
#include "engine/fuse/reduce_fuser.h"

namespace ember {

std::vector<std::unique_ptr<OperationFuser>> BuiltinFusers(uint32_t max_bindings) {
  std::vector<std::unique_ptr<OperationFuser>> fusers;
  fusers.push_back(std::make_unique<ElementWiseFuser>(max_bindings));
  fusers.push_back(std::make_unique<MatmulFuser>(max_bindings));
  fusers.push_back(std::make_unique<ReduceFuser>(max_bindings));
  fusers.push_back(std::make_unique<ReduceBroadcastedFuser>(max_bindings));
  return fusers;
}

std::unique_ptr<OperationFuser> BuiltinFuser(std::string_view name, uint32_t max_bindings) {
  if (name == ElementWiseFuser::kName) return std::make_unique<ElementWiseFuser>(max_bindings);
  if (name == MatmulFuser::kName) return std::make_unique<MatmulFuser>(max_bindings);
  if (name == ReduceFuser::kName) return std::make_unique<ReduceFuser>(max_bindings);
  if (name == ReduceBroadcastedFuser::kName) {
    return std::make_unique<ReduceBroadcastedFuser>(max_bindings);
  }
  return nullptr;
}

}  // namespace ember
