// The device code every generated kernel starts with: domain loads and stores, the integer
// rules, aligned vector moves and the reduction helpers (prelude.cpp says which CPU rules
// each one follows).
#pragma once

#include <string_view>

namespace ember::codegen {

std::string_view CudaPrelude();

}  // namespace ember::codegen
