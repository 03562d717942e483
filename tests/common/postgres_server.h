// PostgresServer: a real, throwaway PostgreSQL server for the tests of the PostgreSQL plan
// database. Mocks of libpq would test what we believe PostgreSQL does; this tests what it does
// (its locking, its errors, its restarts). Each server is its own cluster (initdb into a fresh
// temporary directory), listening on its Unix socket in that directory and on 127.0.0.1 on a
// free port, so parallel test processes never share one. Tuned for speed, not durability
// (fsync off): a test's data only has to survive a clean restart.
//
// PostgreSQL refuses to run as root, and test machines often are root: there the server and
// every client program run as the dedicated unprivileged user ember-pg-test (created once with
// useradd), switched to in the forked child. Tests skip, saying why, where no server can be
// started (no server binaries installed): EMBER_REQUIRE_POSTGRES.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace ember::test {

class PostgresServer {
 public:
  // Starts a fresh server: initdb into a new temporary directory, pg_ctl start with its Unix
  // socket in that directory and TCP on 127.0.0.1 on a free port; creates database "ember".
  // The binaries are those of the newest /usr/lib/postgresql/<version>/bin, or of the bin
  // directory EMBER_TEST_PG_BIN names. Returns null and sets *why_not (a sentence) when the
  // server binaries are missing or anything fails (with the tail of the server's log).
  static std::unique_ptr<PostgresServer> Start(std::string* why_not);
  // Stops the server (pg_ctl stop -m immediate) and removes the directory; does nothing in a
  // forked child of the process that started it (the server is the parent's).
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // libpq connection URI over TCP: postgresql://<user>@127.0.0.1:<port>/ember
  std::string uri() const;
  // Same but over the Unix socket: postgresql://<user>@/ember?host=<socketdir>&port=<port>
  std::string socket_uri() const;
  int port() const { return port_; }
  // The database role: the superuser initdb created ("ember"); no password (trust).
  const std::string& user() const { return user_; }
  // The temporary directory: data/ (the cluster), server.log, the socket.
  const std::string& directory() const { return directory_; }

  // pg_ctl stop -m fast; true when it stopped.
  bool Stop();
  // Starts again on the same port and data directory (stopping first if running); waits until
  // it accepts connections. True when it does.
  bool Restart();
  // Runs `sql` through psql (-X -q -v ON_ERROR_STOP=1 -At) on database "ember" as the
  // superuser; returns its stdout, or on failure its stderr; *ok says whether it succeeded.
  std::string Psql(const std::string& sql, bool* ok) const;

 private:
  PostgresServer() = default;
  // pg_ctl start on `port_`; on failure, *why_not says why (with the log's tail).
  bool StartServer(std::string* why_not);
  // Forks the watchdog that stops the server and removes its directory when this process ends
  // without running the destructor (a crash, SIGKILL, a test timeout, a SIGPIPE): it waits on
  // a pipe only this process writes to, and the pipe ends with the process, however it ends.
  void StartWatchdog();
  // What the destructor does: stop the server, remove the directory.
  void CleanUp();
  // Runs bin_dir_/`program` with `args` as the server's user, stdin from `in_file` (empty:
  // /dev/null), stdout and stderr into `out_file`/`err_file`; returns its exit code.
  int Run(const std::string& program, const std::vector<std::string>& args,
          const std::string& in_file, const std::string& out_file,
          const std::string& err_file) const;

  std::string bin_dir_;
  std::string directory_;
  std::string user_ = "ember";
  int port_ = 0;
  bool running_ = false;
  // The system user the programs run as: -1 when not switching (not root).
  uid_t uid_ = static_cast<uid_t>(-1);
  gid_t gid_ = static_cast<gid_t>(-1);
  pid_t owner_pid_ = 0;
  int watchdog_fd_ = -1;  // the pipe's write end (close-on-exec); -1 when no watchdog
  mutable std::atomic<int> files_made_{0};
};

}  // namespace ember::test

// For tests: declares `std::unique_ptr<PostgresServer> var` in scope holding a started server,
// or GTEST_SKIP()s with the reason when none can be started. Only in a void function (a TEST
// body, SetUp).
#define EMBER_REQUIRE_POSTGRES(var)                         \
  std::string var##_why_not;                                \
  std::unique_ptr<::ember::test::PostgresServer> var =      \
      ::ember::test::PostgresServer::Start(&var##_why_not); \
  if (var == nullptr) GTEST_SKIP() << "no PostgreSQL server: " << var##_why_not
