#include "codegen/chain_memory.h"

#include <cstdint>

#include "codegen/indexed_read.h"

namespace ember::codegen {
namespace {

struct Bytes {
  uint64_t begin = 0, end = 0;
};

Bytes BytesOf(const BoundTensor& t) {
  uint64_t below = 0, above = 0;  // elements a negative and a positive stride reach
  for (size_t d = 0; d < t.shape.size(); ++d) {
    if (t.shape[d] == 0) return {t.address, t.address};
    const int64_t stride = d < t.strides.size() ? t.strides[d] : 0;
    const auto reach = static_cast<uint64_t>((t.shape[d] - 1) * (stride < 0 ? -stride : stride));
    (stride < 0 ? below : above) += reach;
  }
  const uint64_t size = DTypeSize(t.dtype);
  const uint64_t low = below * size;
  return {t.address >= low ? t.address - low : 0, t.address + (above + 1) * size};
}

const BoundTensor* TensorOf(const TraceLaunch& launch, const FuseArg& arg) {
  switch (arg.kind) {
    case FuseArgKind::kInput:
      return arg.pos < launch.inputs.size() ? &launch.inputs[arg.pos] : nullptr;
    case FuseArgKind::kInputView:
      return arg.pos < launch.views.size() ? &launch.views[arg.pos] : nullptr;
    case FuseArgKind::kOutput:
      return arg.pos < launch.outputs.size() ? &launch.outputs[arg.pos] : nullptr;
    default: return nullptr;  // locals, handovers, scalars, literals
  }
}

struct ChainBytes {
  std::vector<Bytes> touched, written;
};

ChainBytes BytesOfChain(const TraceLaunch& launch, const FuseTrace& chain) {
  ChainBytes out;
  for (const FuseBlock& block : chain.blocks) {
    ForEachArg(block, [&](const FuseArg& arg, bool is_out) {
      const BoundTensor* t = TensorOf(launch, arg);
      if (t == nullptr) return;
      out.touched.push_back(BytesOf(*t));
      if (is_out) out.written.push_back(BytesOf(*t));
    });
    for (int t : IndexedTensors(block)) out.touched.push_back(BytesOf(launch.inputs.at(t)));
  }
  return out;
}

}  // namespace

bool ChainsApart(const TraceLaunch& launch, const std::vector<FuseTrace>& chains) {
  std::vector<ChainBytes> bytes;
  for (const FuseTrace& chain : chains) bytes.push_back(BytesOfChain(launch, chain));
  for (size_t k = 0; k < bytes.size(); ++k) {
    for (size_t j = 0; j < bytes.size(); ++j) {
      if (j == k) continue;
      for (const Bytes& w : bytes[k].written) {
        for (const Bytes& t : bytes[j].touched) {
          if (w.begin < t.end && t.begin < w.end) return false;
        }
      }
    }
  }
  return true;
}

}  // namespace ember::codegen
