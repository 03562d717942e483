// Child processes for the tests, the one copy every suite uses: a program started with an
// environment of the test's choosing (the real ember-plans and ember-lab, this test binary
// re-executed as an engine child), a function of this process run in a forked copy of it, and
// how each ended.
//
// A forked child runs only what the test gives it and leaves with _exit: no gtest output of
// its own, no destructors of the parent's objects. RunInForkedChild is the exception, for a body
// written with gtest assertions.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace ember::test {

// WaitChild's result for a child that a signal ended: kKilledBySignal + the signal's number.
inline constexpr int kKilledBySignal = 1000;

// This process's environment without its EMBER_ settings (EMBER_TEST_DATA is kept) and without
// NO_COLOR, then `extra`: what a child is configured with is what the test says.
std::vector<std::string> ChildEnvironment(const std::vector<std::string>& extra = {});

struct SpawnOptions {
  // The child's whole environment (ChildEnvironment makes one).
  std::vector<std::string> env;
  // Files that replace the child's stdout and stderr (created or emptied, mode 0600); empty:
  // this process's own.
  std::string out_file;
  std::string err_file;
  // The child's working directory; empty: this process's.
  std::string working_dir;
};

// Starts `program` with `args`. Returns its pid (a test failure, and 0, when it cannot start).
pid_t Spawn(const std::string& program, const std::vector<std::string>& args,
            const SpawnOptions& options);

// Starts this test binary again to run only `test`, a DISABLED_ test (gtest runs those only
// when asked) that plays the engine side of a multi-process test and reads its orders from the
// environment: ChildEnvironment(`env`), where the shared-memory tier is off unless `env` sets
// EMBER_SHM (its segments outlive the process; a test that turns it on removes them).
// `options.env` is ignored.
pid_t SpawnTestChild(const std::string& test, const std::vector<std::string>& env,
                     SpawnOptions options = {});

// Runs `body` in a forked child, which exits with what it returns (255 when it throws).
// REQUIRES: `body` takes no lock that another thread of this process may hold.
pid_t ForkChild(const std::function<int()>& body);

// ForkChild for a check: the child exits 0 when `check` returns true, 1 when false.
pid_t ForkCheck(const std::function<bool()>& check);

// Waits for the child `pid` and returns its exit code, or kKilledBySignal + the signal that
// ended it.
int WaitChild(pid_t pid);

// Ends the child `pid` with SIGKILL and waits for it; returns WaitChild's result (its exit code
// when it had exited already).
int KillChild(pid_t pid);

// Runs `body` in a forked child in which gtest assertions work as in the calling test: a
// failure prints there and fails the calling test (through the child's exit code), and a
// GTEST_SKIP() there comes back as its message (empty when nothing was skipped). For what the
// test process itself must not do: switch users, mount.
// REQUIRES: as ForkChild.
std::string RunInForkedChild(const std::function<void()>& body);

}  // namespace ember::test
