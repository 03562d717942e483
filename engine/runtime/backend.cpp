#include "engine/runtime/backend.h"

#include <fmt/format.h>

#include <ember/error.h>

namespace ember {

std::vector<TensorHandle> Backend::ExecuteFused(const FusedLaunch& /*launch*/) {
  throw Error(fmt::format("the {} backend has no fused kernels", name()));
}

}  // namespace ember
