#include "tests/common/process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include <gtest/gtest.h>

extern char** environ;

namespace ember::test {

namespace {

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// The pointers execve wants, into `strings`, ended by a null.
std::vector<char*> NullTerminated(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace

std::vector<std::string> ChildEnvironment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (StartsWith(entry, "EMBER_") && !StartsWith(entry, "EMBER_TEST_DATA=")) continue;
    if (StartsWith(entry, "NO_COLOR=")) continue;
    env.push_back(entry);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

pid_t Spawn(const std::string& program, const std::vector<std::string>& args,
            const SpawnOptions& options) {
  std::vector<std::string> argv_strings = {program};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<std::string> env_strings = options.env;
  const std::vector<char*> argv = NullTerminated(argv_strings);
  const std::vector<char*> envp = NullTerminated(env_strings);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!options.out_file.empty()) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, options.out_file.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
  }
  if (!options.err_file.empty()) {
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, options.err_file.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
  }
  if (!options.working_dir.empty()) {
    posix_spawn_file_actions_addchdir_np(&actions, options.working_dir.c_str());
  }
  pid_t pid = 0;
  const int error = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(error, 0) << "cannot start " << program << ": " << std::strerror(error);
  return error == 0 ? pid : 0;
}

pid_t SpawnTestChild(const std::string& test, const std::vector<std::string>& env,
                     SpawnOptions options) {
  std::vector<std::string> extra;
  bool shm_set = false;
  for (const std::string& e : env) shm_set = shm_set || StartsWith(e, "EMBER_SHM=");
  if (!shm_set) extra.push_back("EMBER_SHM=off");
  extra.insert(extra.end(), env.begin(), env.end());
  options.env = ChildEnvironment(extra);
  return Spawn("/proc/self/exe", {"--gtest_filter=" + test, "--gtest_also_run_disabled_tests"},
               options);
}

pid_t ForkChild(const std::function<int()>& body) {
  std::fflush(nullptr);  // what is buffered now would be written twice
  const pid_t pid = fork();
  if (pid == 0) {
    int code = 255;
    try {
      code = body();
    } catch (...) {
    }
    _exit(code);
  }
  EXPECT_GT(pid, 0) << "fork: " << std::strerror(errno);
  return pid;
}

pid_t ForkCheck(const std::function<bool()>& check) {
  return ForkChild([&] { return check() ? 0 : 1; });
}

int WaitChild(pid_t pid) {
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return kKilledBySignal + WTERMSIG(status);
  return -1;
}

int KillChild(pid_t pid) {
  kill(pid, SIGKILL);
  return WaitChild(pid);
}

std::string RunInForkedChild(const std::function<void()>& body) {
  constexpr int kSkipped = 77;
  int pipe_fds[2] = {-1, -1};
  EXPECT_EQ(pipe(pipe_fds), 0);
  const testing::TestResult& result =
      *testing::UnitTest::GetInstance()->current_test_info()->result();
  const pid_t pid = ForkChild([&] {
    close(pipe_fds[0]);
    const int before = result.total_part_count();
    body();
    int code = 0;
    std::string skipped;
    for (int i = before; i < result.total_part_count(); ++i) {
      const testing::TestPartResult& part = result.GetTestPartResult(i);
      if (part.failed()) code = 1;
      if (part.skipped()) skipped = part.message();
    }
    if (code == 0 && !skipped.empty()) {
      code = kSkipped;
      (void)!write(pipe_fds[1], skipped.data(), skipped.size());
    }
    std::fflush(nullptr);
    return code;
  });
  close(pipe_fds[1]);
  std::string skipped;
  char buffer[512];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) skipped.append(buffer, n);
  close(pipe_fds[0]);
  const int code = WaitChild(pid);
  EXPECT_TRUE(code == 0 || code == kSkipped)
      << "the forked child failed (exit " << code << "); its failures are printed above";
  return code == kSkipped ? skipped : "";
}

}  // namespace ember::test
