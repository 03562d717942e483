#include "store/shm/process_token.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace ember {
namespace {

struct ProcStat {
  char state = '?';
  uint64_t start_ticks = 0;
};

// Fields 3 (state) and 22 (starttime) of /proc/<pid>/stat. The command name (field 2) is in
// parentheses and may hold spaces or parentheses, so parsing starts after the last ')'.
bool ReadProcStat(int pid, ProcStat* out) {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::array<char, 1024> buffer{};
  const ssize_t n = ::read(fd, buffer.data(), buffer.size() - 1);
  ::close(fd);
  if (n <= 0) return false;
  const char* end = std::strrchr(buffer.data(), ')');
  if (end == nullptr) return false;
  const char* p = end + 1;
  // After ')': " S ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime
  // stime cutime cstime priority nice num_threads itrealvalue starttime": starttime is the
  // 20th field after the state.
  while (*p == ' ') ++p;
  out->state = *p;
  for (int field = 0; field < 19; ++field) {
    p = std::strchr(p, ' ');
    if (p == nullptr) return false;
    ++p;
  }
  out->start_ticks = std::strtoull(p, nullptr, 10);
  return true;
}

uint64_t MakeToken(int pid) {
  ProcStat stat;
  const uint64_t start = ReadProcStat(pid, &stat) ? (stat.start_ticks & 0xffffffffu) : 0;
  return (static_cast<uint64_t>(static_cast<uint32_t>(pid)) << 32) | start;
}

}  // namespace

uint64_t SelfProcessToken() {
  // Cached per pid: a forked child has a new pid and computes its own.
  static thread_local int cached_pid = 0;
  static thread_local uint64_t cached = 0;
  const int pid = static_cast<int>(::getpid());
  if (pid != cached_pid) {
    cached = MakeToken(pid);
    cached_pid = pid;
  }
  return cached;
}

bool ProcessTokenAlive(uint64_t token) {
  const int pid = ProcessTokenPid(token);
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  ProcStat stat;
  if (!ReadProcStat(pid, &stat)) {
    // No /proc entry although kill() found it (another pid namespace, hidepid): assume alive;
    // the claim's expiry still bounds the wait.
    return true;
  }
  // A killed child its parent has not reaped yet is a zombie: it will never publish.
  if (stat.state == 'Z' || stat.state == 'X' || stat.state == 'x') return false;
  return (stat.start_ticks & 0xffffffffu) == (token & 0xffffffffu);
}

}  // namespace ember
