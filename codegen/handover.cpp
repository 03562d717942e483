#include "codegen/handover.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

#include <ember/error.h>

#include "codegen/cuda_expr.h"

namespace ember::codegen {
namespace {

bool WideSlot(DType dtype) { return !FloatDomain(dtype); }

// Note [Shared handover slots]: in the order the handovers are written, each takes the lowest
// slot of its width whose value is read for the last time before that write (steps count over
// the whole trace, so an earlier block's read is an earlier step); then slots are renumbered
// by first use in `found`'s order.
void AssignSlots(std::vector<Handover>& found) {
  std::vector<size_t> by_writer;
  for (size_t k = 0; k < found.size(); ++k) {
    if (found[k].storage == Handover::Storage::kShared) by_writer.push_back(k);
  }
  std::stable_sort(by_writer.begin(), by_writer.end(),
                   [&](size_t a, size_t b) { return found[a].write_step < found[b].write_step; });
  struct Slot {
    bool wide;
    uint32_t last_step;  // the step of its current value's last read
  };
  std::vector<Slot> slots;
  for (size_t k : by_writer) {
    Handover& h = found[k];
    const bool wide = WideSlot(h.dtype);
    int chosen = -1;
    for (size_t s = 0; s < slots.size(); ++s) {
      if (slots[s].wide == wide && slots[s].last_step < h.write_step) {
        chosen = static_cast<int>(s);
        break;
      }
    }
    if (chosen < 0) {
      chosen = static_cast<int>(slots.size());
      slots.push_back({.wide = wide, .last_step = 0});
    }
    slots[chosen].last_step = h.last_read_step;
    h.slot = chosen;
  }
  std::vector<int> renumber(slots.size(), -1);
  int next = 0;
  for (Handover& h : found) {
    if (h.storage != Handover::Storage::kShared) continue;
    if (renumber[h.slot] < 0) renumber[h.slot] = next++;
    h.slot = renumber[h.slot];
  }
}

}  // namespace

std::vector<Handover> FindHandovers(const FuseTrace& trace, KernelMode mode, bool shared,
                                    const std::vector<bool>& full) {
  std::vector<Handover> found;
  int scratch = 0;
  uint32_t step = 0;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> written_at;
  auto add = [&](const FuseArg& arg, uint32_t reader) {
    for (Handover& h : found) {
      if (h.block == arg.block && h.pos == arg.pos) {
        h.last_read = std::max(h.last_read, reader);
        h.last_read_step = step;
        return;
      }
    }
    if (arg.block >= trace.blocks.size()) throw Error("a handover from a missing block");
    Handover h{.block = arg.block,
               .pos = arg.pos,
               .dtype = arg.dtype,
               .last_read = reader,
               .last_read_step = step};
    const bool from_full = full.at(arg.block);
    if (mode == KernelMode::kBlock || (from_full && !(mode == KernelMode::kRow && shared))) {
      h.storage = Handover::Storage::kScratch;
      h.scratch = scratch++;
    } else {
      h.storage = from_full ? Handover::Storage::kShared : Handover::Storage::kRegister;
    }
    found.push_back(h);
  };
  for (uint32_t b = 0; b < trace.blocks.size(); ++b) {
    ForEachArg(trace.blocks[b], [&](const FuseArg& arg, bool is_out) {
      ++step;
      if (arg.kind != FuseArgKind::kMultiBlockLocal) return;
      if (is_out) {
        written_at.try_emplace({arg.block, arg.pos}, step);
      } else {
        add(arg, b);
      }
    });
  }
  for (Handover& h : found) {
    const auto it = written_at.find({h.block, h.pos});
    h.write_step = it == written_at.end() ? 0 : it->second;
  }
  AssignSlots(found);
  return found;
}

int SharedSlotBytes(const std::vector<Handover>& handovers) {
  std::vector<int> bytes;
  for (const Handover& h : handovers) {
    if (h.storage != Handover::Storage::kShared) continue;
    if (bytes.size() <= static_cast<size_t>(h.slot)) bytes.resize(h.slot + 1, 0);
    bytes[h.slot] = WideSlot(h.dtype) ? 8 : 4;
  }
  return std::accumulate(bytes.begin(), bytes.end(), 0);
}

}  // namespace ember::codegen
