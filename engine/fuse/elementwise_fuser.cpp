#include "engine/fuse/elementwise_fuser.h"

#include "engine/fuse/trace_optimization.h"

namespace ember {

ElementWiseFuser::ElementWiseFuser(uint32_t max_bindings)
    : fuser_(max_bindings, FuseSettings{.broadcast = true, .output_shape_updates = true}) {}

std::shared_ptr<Optimization> ElementWiseFuser::Finish() {
  return std::make_shared<TraceOptimization>(std::string(kName), fuser_.Finish(), fuser_.len(),
                                             fuser_.Score());
}

std::unique_ptr<OperationFuser> ElementWiseFuser::Clone() const {
  return std::make_unique<ElementWiseFuser>(*this);
}

}  // namespace ember
