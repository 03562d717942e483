#include "tools/lab/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace ember::lab {

namespace {

std::string ErrnoText(const char* what, int err) {
  return std::string(what) + ": " + std::strerror(err);
}

}  // namespace

StartBarrier::StartBarrier() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(ErrnoText("pipe", errno));
  read_fd_ = fds[0];
  write_fd_ = fds[1];
}

StartBarrier::~StartBarrier() {
  Release();
  if (read_fd_ >= 0) close(read_fd_);
}

void StartBarrier::Release() {
  if (write_fd_ < 0) return;
  close(write_fd_);
  write_fd_ = -1;
}

ChildProcess::ChildProcess(const std::vector<std::string>& args, const StartBarrier* barrier) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error(ErrnoText("pipe", errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // dup2 onto another fd number clears close-on-exec on the copy only.
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  if (barrier != nullptr) {
    posix_spawn_file_actions_adddup2(&actions, barrier->read_fd(), StartBarrier::kStartFd);
  }
  std::vector<std::string> strings = {"/proc/self/exe"};
  strings.insert(strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  const int err = posix_spawn(&pid_, "/proc/self/exe", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (err != 0) {
    close(out[0]);
    pid_ = -1;
    throw std::runtime_error(ErrnoText("starting a child ember-lab", err));
  }
  stdout_fd_ = out[0];
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(other.pid_), stdout_fd_(other.stdout_fd_) {
  other.pid_ = -1;
  other.stdout_fd_ = -1;
}

ChildProcess::~ChildProcess() {
  if (stdout_fd_ >= 0) close(stdout_fd_);
  if (pid_ > 0) {  // never finished: do not leave it running
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

std::string ChildProcess::Finish(std::string* failure) {
  std::string output;
  char buffer[4096];
  while (true) {
    const ssize_t n = read(stdout_fd_, buffer, sizeof buffer);
    if (n > 0) {
      output.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(stdout_fd_);
  stdout_fd_ = -1;
  int status = 0;
  pid_t got;
  do {
    got = waitpid(pid_, &status, 0);
  } while (got < 0 && errno == EINTR);
  const pid_t pid = pid_;
  pid_ = -1;
  failure->clear();
  if (got != pid) {
    *failure = ErrnoText("waiting for the child", errno);
  } else if (WIFSIGNALED(status)) {
    *failure = "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
               strsignal(WTERMSIG(status)) + ")";
  } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    *failure = "exited with status " + std::to_string(WEXITSTATUS(status));
  }
  return output;
}

void WaitForStart(int fd) {
  char byte;
  while (true) {
    const ssize_t n = read(fd, &byte, 1);
    if (n == 0 || (n < 0 && errno != EINTR)) break;
  }
  close(fd);
}

}  // namespace ember::lab
