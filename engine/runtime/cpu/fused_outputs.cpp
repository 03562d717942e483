#include "engine/runtime/cpu/fused_outputs.h"

#include <cstddef>

#include "engine/runtime/cpu/cpu_buffer.h"

namespace ember::cpu {
namespace {

constexpr int kNone = -1;
constexpr int kMany = -2;

// Records that `block` touches an entry: the one block seen so far, or kMany.
void See(int& slot, int block) {
  if (slot == kNone) slot = block;
  if (slot != block) slot = kMany;
}

}  // namespace

std::vector<int> ChooseInPlace(const FusedLaunch& launch) {
  const FuseTrace& trace = *launch.trace;
  const size_t inputs = launch.inputs.size();
  std::vector<int> reader(inputs, kNone);  // the one block reading it as a plain input
  std::vector<bool> excluded(inputs, false);
  std::vector<int> writer(launch.outputs.size(), kNone);
  std::vector<bool> reread(launch.outputs.size(), false);
  for (const FuseView& view : trace.resources.views) {
    if (view.input < inputs) excluded[view.input] = true;
  }
  // An indexed input is read at positions other than the output's (Note [Indexed inputs]):
  // an output in its buffer would overwrite elements later tiles still read.
  for (const FuseBlock& block : trace.blocks) {
    ForEachIndexed(block, [&](const FuseOp&, const FuseArg& arg) {
      if (arg.kind == FuseArgKind::kInput && arg.pos < inputs) excluded[arg.pos] = true;
    });
  }
  if (trace.matmul) {
    for (uint32_t i : {trace.matmul->lhs, trace.matmul->rhs}) {
      if (i < inputs) excluded[i] = true;
    }
  }
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    const FuseBlock& block = trace.blocks[b];
    ForEachArg(block, [&](const FuseArg& arg, bool is_out) {
      if (is_out) {
        if (arg.kind == FuseArgKind::kOutput && arg.pos < writer.size()) See(writer[arg.pos], b);
        return;
      }
      if (arg.kind == FuseArgKind::kInput && arg.pos < inputs) See(reader[arg.pos], b);
      if (arg.kind == FuseArgKind::kOutput && arg.pos < reread.size()) reread[arg.pos] = true;
    });
  }
  std::vector<int> chosen(launch.outputs.size(), kNone);
  std::vector<bool> taken(inputs, false);
  for (size_t o = 0; o < launch.outputs.size(); ++o) {
    const TensorIr& out = launch.outputs[o];
    if (reread[o] || writer[o] < 0 || launch.block_shapes[writer[o]] != out.shape) continue;
    for (size_t i = 0; i < inputs; ++i) {
      const TensorHandle& in = launch.inputs[i];
      const bool fits = i < launch.reusable.size() && launch.reusable[i] && !excluded[i] &&
                        !taken[i] && reader[i] == writer[o] && in.dtype == out.dtype &&
                        in.shape == out.shape && in.offset == 0 && in.IsContiguous() &&
                        MayWriteInPlace(in);
      if (!fits) continue;
      chosen[o] = static_cast<int>(i);
      taken[i] = true;
      break;
    }
  }
  return chosen;
}

int ChooseMatmulOutput(const FusedLaunch& launch, std::span<const int> in_place) {
  const FuseTrace& trace = *launch.trace;
  if (!trace.matmul) return kNone;
  for (size_t o = 0; o < launch.outputs.size(); ++o) {
    const TensorIr& out = launch.outputs[o];
    if (in_place[o] == kNone && out.shape == launch.block_shapes[0] &&
        out.dtype == trace.matmul->output.dtype) {
      return static_cast<int>(o);
    }
  }
  return kNone;
}

std::vector<TensorHandle> AllocateOutputs(const FusedLaunch& launch, std::span<const int> in_place,
                                          int matmul_output) {
  std::vector<TensorHandle> outputs;
  outputs.reserve(launch.outputs.size());
  for (size_t o = 0; o < launch.outputs.size(); ++o) {
    const TensorIr& out = launch.outputs[o];
    if (static_cast<int>(o) == matmul_output) {
      outputs.emplace_back();
      continue;
    }
    if (in_place[o] == kNone) {
      outputs.push_back(NewHandle(out.shape, out.dtype));
      continue;
    }
    TensorHandle handle = launch.inputs[in_place[o]];
    handle.strides = TensorHandle::ContiguousStrides(out.shape);  // size-1 dims may differ
    outputs.push_back(std::move(handle));
  }
  return outputs;
}

}  // namespace ember::cpu
