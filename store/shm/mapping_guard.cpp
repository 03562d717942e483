#include "store/shm/mapping_guard.h"

#include <signal.h>
#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <mutex>

namespace ember::shm {
namespace {

// One guarded range; begin == 0 marks a free slot. Only atomics: the handler reads them.
struct Slot {
  std::atomic<uintptr_t> begin{0};
  std::atomic<uintptr_t> end{0};
  std::atomic<bool> lost{false};
  std::atomic<bool> taken{false};  // owned by a guard (set before begin, cleared after)
};

Slot g_slots[MappingGuard::kMaxGuards];
struct sigaction g_previous {};

void PassOn(int sig, siginfo_t* info, void* context) {
  if ((g_previous.sa_flags & SA_SIGINFO) != 0 && g_previous.sa_sigaction != nullptr) {
    g_previous.sa_sigaction(sig, info, context);
    return;
  }
  if (g_previous.sa_handler == SIG_IGN) return;
  if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != nullptr) {
    g_previous.sa_handler(sig);
    return;
  }
  // The default action: die of SIGBUS. The signal is blocked while this handler runs, so the
  // raised one is delivered, with the default action, as the handler returns.
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(SIGBUS, &default_action, nullptr);
  raise(SIGBUS);
}

void OnSigbus(int sig, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  for (Slot& slot : g_slots) {
    const uintptr_t begin = slot.begin.load(std::memory_order_acquire);
    const uintptr_t end = slot.end.load(std::memory_order_acquire);
    if (begin == 0 || address < begin || address >= end) continue;
    void* zeros = mmap(reinterpret_cast<void*>(begin), end - begin, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (zeros == MAP_FAILED) break;
    slot.lost.store(true, std::memory_order_release);
    return;  // the access runs again, on zeros
  }
  PassOn(sig, info, context);
}

void InstallHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_sigaction = &OnSigbus;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGBUS, &action, &g_previous);
  });
}

}  // namespace

MappingGuard::MappingGuard(void* base, size_t bytes) {
  InstallHandler();
  for (size_t i = 0; i < kMaxGuards; ++i) {
    bool expected = false;
    if (!g_slots[i].taken.compare_exchange_strong(expected, true)) continue;
    const auto begin = reinterpret_cast<uintptr_t>(base);
    g_slots[i].lost.store(false, std::memory_order_relaxed);
    g_slots[i].end.store(begin + bytes, std::memory_order_release);
    g_slots[i].begin.store(begin, std::memory_order_release);
    slot_ = static_cast<int>(i);
    return;
  }
}

MappingGuard::~MappingGuard() {
  if (slot_ < 0) return;
  Slot& slot = g_slots[slot_];
  slot.begin.store(0, std::memory_order_release);
  slot.end.store(0, std::memory_order_release);
  slot.taken.store(false, std::memory_order_release);
}

bool MappingGuard::lost() const {
  return slot_ >= 0 && g_slots[slot_].lost.load(std::memory_order_acquire);
}

}  // namespace ember::shm
