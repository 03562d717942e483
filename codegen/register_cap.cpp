#include "codegen/register_cap.h"

namespace ember::codegen {
namespace {

// Registers are given to a warp in steps of 256, 8 for each of its threads.
constexpr int kRegisterStep = 8;

// The blocks that fit by registers and by threads.
int BlocksAt(int threads, int registers_per_thread, Multiprocessor sm) {
  const int by_registers = sm.registers / (registers_per_thread * threads);
  const int by_threads = sm.threads / threads;
  const int fit = by_registers < by_threads ? by_registers : by_threads;
  return fit < sm.blocks ? fit : sm.blocks;
}

}  // namespace

int RegisterCapBlocks(int threads, int registers, Multiprocessor sm) {
  if (threads <= 0 || registers <= kRegisterStep) return 0;
  const int allocated = (registers + kRegisterStep - 1) / kRegisterStep * kRegisterStep;
  const int step_below = allocated - kRegisterStep;
  if (registers - step_below > kRegisterCapSlack) return 0;
  const int now = BlocksAt(threads, allocated, sm);
  const int capped = BlocksAt(threads, step_below, sm);
  return capped > now ? capped : 0;
}

}  // namespace ember::codegen
