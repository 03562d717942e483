// Traces the real fusers build, and launches of them over real shapes, for the code
// generator's tests: relative shape id k > 0 becomes the dim `dims[k]`, id 0 is 1; every
// tensor is contiguous at a 256-byte aligned fake address (codegen never dereferences it).
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "codegen/kernel_plan.h"
#include "engine/fuse/fuser.h"
#include "engine/fuse/trace_optimization.h"
#include "tests/common/ir_builders.h"

namespace ember::codegen_test {

using namespace ember::codegen;

inline Shape Contiguous(const Shape& shape) {
  Shape strides(shape.size());
  int64_t s = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = s;
    s *= shape[d];
  }
  return strides;
}

// Feeds `ops` to `fuser` and returns its trace. REQUIRES: the fuser takes every op.
inline FuseTrace TraceOf(OperationFuser& fuser, const std::vector<OperationIr>& ops) {
  for (const OperationIr& op : ops) fuser.Fuse(op);
  auto opt = std::dynamic_pointer_cast<TraceOptimization>(fuser.Finish());
  if (opt == nullptr) return {};
  return opt->trace();
}

class LaunchMaker {
 public:
  explicit LaunchMaker(std::map<int64_t, int64_t> dims) : dims_(std::move(dims)) {}

  Shape Real(const Shape& relative) const {
    Shape real;
    for (int64_t id : relative) real.push_back(id == 0 ? 1 : dims_.at(id));
    return real;
  }

  BoundTensor Tensor(const Shape& relative, DType dtype) {
    BoundTensor t{.dtype = dtype, .shape = Real(relative)};
    t.strides = Contiguous(t.shape);
    t.address = next_address_;
    next_address_ += uint64_t{1} << 36;  // apart, whatever their size (chain_memory.h)
    return t;
  }

  TraceLaunch Make(const FuseTrace& trace) {
    TraceLaunch launch{.trace = &trace};
    for (const TensorIr& in : trace.resources.inputs) {
      launch.inputs.push_back(Tensor(in.shape, in.dtype));
    }
    for (const FuseView& view : trace.resources.views) {
      BoundTensor v = launch.inputs.at(view.input);
      v.shape = Real(view.shape);
      if (view.kind == FuseView::Kind::kSwapDims) {
        const auto rank = static_cast<int64_t>(v.shape.size());
        const int64_t a = view.dim1 < 0 ? view.dim1 + rank : view.dim1;
        const int64_t b = view.dim2 < 0 ? view.dim2 + rank : view.dim2;
        std::swap(v.strides[a], v.strides[b]);
      } else {
        v.strides = Contiguous(v.shape);
      }
      launch.views.push_back(v);
    }
    for (const TensorIr& out : trace.resources.outputs) {
      launch.outputs.push_back(Tensor(out.shape, out.dtype));
    }
    for (size_t k = 0; k < trace.resources.scalars.size(); ++k) {
      launch.scalars.push_back(ScalarIr::Float(2.0));
    }
    for (const FuseBlock& block : trace.blocks)
      launch.block_shapes.push_back(Real(block.shape_ref));
    if (trace.matmul) {
      launch.matmul_result = Tensor(trace.blocks[0].shape_ref, trace.matmul->output.dtype);
    }
    return launch;
  }

 private:
  std::map<int64_t, int64_t> dims_;
  uint64_t next_address_ = 1 << 20;
};

}  // namespace ember::codegen_test
