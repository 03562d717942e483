// Starting ember-lab itself as a child process (cold/warm runs, workers) and collecting what it
// prints. The child is /proc/self/exe with the given arguments and this process's environment;
// its stdout comes back through a pipe (the child prints its RunResult as JSON there), its
// stderr is this process's stderr, so engine logs and errors reach the user.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace ember::lab {

// A pipe that holds children back until Release(): each child gets its read end as fd
// kStartFd and waits there for end-of-file before it starts its clock (--start-fd), so all of
// them begin at the same instant.
class StartBarrier {
 public:
  static constexpr int kStartFd = 3;
  StartBarrier();  // throws std::runtime_error when no pipe can be made
  ~StartBarrier();
  StartBarrier(const StartBarrier&) = delete;
  StartBarrier& operator=(const StartBarrier&) = delete;
  int read_fd() const { return read_fd_; }
  void Release();  // closes the write end: every child waiting on the read end starts

 private:
  int read_fd_ = -1;
  int write_fd_ = -1;
};

class ChildProcess {
 public:
  // Starts /proc/self/exe `args...`. With `barrier`, the child's fd StartBarrier::kStartFd is
  // the barrier's read end. Throws std::runtime_error when the process cannot be started.
  ChildProcess(const std::vector<std::string>& args, const StartBarrier* barrier = nullptr);
  ~ChildProcess();
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ChildProcess& operator=(ChildProcess&&) = delete;

  // Reads the child's stdout to its end and waits for the child. Returns the output; `failure`
  // is empty when the child exited with status 0, else says how it ended.
  std::string Finish(std::string* failure);

 private:
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
};

// Waits until `fd` reaches end-of-file (the barrier opening), then closes it.
void WaitForStart(int fd);

}  // namespace ember::lab
