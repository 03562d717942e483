#include "codegen/handover.h"

#include <ember/error.h>

namespace ember::codegen {
std::vector<Handover> FindHandovers(const FuseTrace& trace, KernelMode mode, bool shared,
                                    const std::vector<bool>& full) {
  std::vector<Handover> found;
  int scratch = 0;
  auto add = [&](const FuseArg& arg) {
    for (const Handover& h : found) {
      if (h.block == arg.block && h.pos == arg.pos) return;
    }
    if (arg.block >= trace.blocks.size()) throw Error("a handover from a missing block");
    Handover h{.block = arg.block, .pos = arg.pos, .dtype = arg.dtype};
    const bool from_full = full.at(arg.block);
    if (mode == KernelMode::kBlock || (from_full && !(mode == KernelMode::kRow && shared))) {
      h.storage = Handover::Storage::kScratch;
      h.scratch = scratch++;
    } else {
      h.storage = from_full ? Handover::Storage::kShared : Handover::Storage::kRegister;
    }
    found.push_back(h);
  };
  for (const FuseBlock& block : trace.blocks) {
    ForEachArg(block, [&](const FuseArg& arg, bool is_out) {
      if (!is_out && arg.kind == FuseArgKind::kMultiBlockLocal) add(arg);
    });
  }
  return found;
}

}  // namespace ember::codegen
