#include "codegen/register_cap.h"

namespace ember::codegen {
namespace {

// Registers are given to a warp in steps of 256, 8 for each of its threads.
constexpr int kRegisterStep = 8;

// The blocks that fit by registers and by threads (a multiprocessor runs at most
// kThreadsPerSm threads: 2,048 on sm_70 through sm_90).
constexpr int kThreadsPerSm = 2048;

int BlocksAt(int threads, int registers_per_thread, int registers_per_sm) {
  const int by_registers = registers_per_sm / (registers_per_thread * threads);
  const int by_threads = kThreadsPerSm / threads;
  return by_registers < by_threads ? by_registers : by_threads;
}

}  // namespace

int RegisterCapBlocks(int threads, int registers, int registers_per_sm) {
  if (threads <= 0 || registers <= kRegisterStep) return 0;
  const int allocated = (registers + kRegisterStep - 1) / kRegisterStep * kRegisterStep;
  const int step_below = allocated - kRegisterStep;
  if (registers - step_below > kRegisterCapSlack) return 0;
  const int now = BlocksAt(threads, allocated, registers_per_sm);
  const int capped = BlocksAt(threads, step_below, registers_per_sm);
  return capped > now ? capped : 0;
}

}  // namespace ember::codegen
