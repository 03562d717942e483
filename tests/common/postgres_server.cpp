#include "tests/common/postgres_server.h"

#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/common/temp_dir.h"

extern char** environ;

namespace ember::test {

namespace {

namespace fs = std::filesystem;

constexpr const char* kSystemUser = "ember-pg-test";

bool IsExecutable(const fs::path& path) { return access(path.c_str(), X_OK) == 0; }

bool HasServerBinaries(const fs::path& bin) {
  return IsExecutable(bin / "initdb") && IsExecutable(bin / "pg_ctl") &&
         IsExecutable(bin / "postgres");
}

// EMBER_TEST_PG_BIN, else the /usr/lib/postgresql/<version>/bin of the highest version that
// has the server binaries; "" when there is none.
std::string FindBinDir() {
  if (const char* bin = std::getenv("EMBER_TEST_PG_BIN"); bin != nullptr && *bin != '\0') {
    return bin;
  }
  std::string best;
  long best_version = -1;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    const long version = std::strtol(entry.path().filename().c_str(), nullptr, 10);
    if (version > best_version && HasServerBinaries(entry.path() / "bin")) {
      best_version = version;
      best = entry.path() / "bin";
    }
  }
  return best;
}

// The last `count` lines of the file `path`, for a why_not.
std::string Tail(const std::string& path, size_t count = 20) {
  std::ifstream in(path);
  std::deque<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
    if (lines.size() > count) lines.pop_front();
  }
  std::string text;
  for (const std::string& line : lines) text += "\n  " + line;
  return text.empty() ? " (empty)" : text;
}

// The pointers execve wants, into `strings`, ended by a null.
std::vector<char*> NullTerminated(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

int Wait(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Ensures the system user kSystemUser exists (useradd; another process may be creating it at
// the same time, hence the retries) and sets its ids. False when it cannot be made.
bool EnsureSystemUser(uid_t* uid, gid_t* gid) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (const passwd* pw = getpwnam(kSystemUser); pw != nullptr) {
      *uid = pw->pw_uid;
      *gid = pw->pw_gid;
      return true;
    }
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(200 * attempt));
    const pid_t pid = fork();
    if (pid == 0) {
      const int null_fd = open("/dev/null", O_RDWR);
      dup2(null_fd, STDIN_FILENO);
      dup2(null_fd, STDOUT_FILENO);
      dup2(null_fd, STDERR_FILENO);
      execl("/usr/sbin/useradd", "useradd", "--system", "--no-create-home", "--shell",
            "/usr/sbin/nologin", kSystemUser, static_cast<char*>(nullptr));
      _exit(127);
    }
    if (pid > 0) Wait(pid);  // Its code does not matter ("already exists" is fine).
  }
  return false;
}

// Binds 127.0.0.1:0 and returns the port the kernel chose (0 when it cannot): free now, and
// very likely still free when the server binds it a moment later (Start retries otherwise).
int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

// `text` percent-encoded for a URI's query value.
std::string UriEncode(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += {'%', kHex[c >> 4], kHex[c & 15]};
    }
  }
  return out;
}

}  // namespace

std::unique_ptr<PostgresServer> PostgresServer::Start(std::string* why_not) {
  std::unique_ptr<PostgresServer> server(new PostgresServer());
  server->owner_pid_ = getpid();
  server->bin_dir_ = FindBinDir();
  if (server->bin_dir_.empty() || !HasServerBinaries(server->bin_dir_)) {
    *why_not = "no PostgreSQL server binaries (initdb, pg_ctl, postgres) in " +
               (server->bin_dir_.empty() ? std::string("/usr/lib/postgresql/*/bin")
                                         : server->bin_dir_ + " (EMBER_TEST_PG_BIN)");
    return nullptr;
  }
  const bool root = geteuid() == 0;
  if (root && !EnsureSystemUser(&server->uid_, &server->gid_)) {
    *why_not = std::string("running as root, and cannot create the system user ") + kSystemUser +
               " for the server (PostgreSQL refuses to run as root)";
    return nullptr;
  }
  // The unprivileged user must reach the directory, and the socket path must fit in 107 bytes:
  // the test temp dir unless that is long or we are root (it may be under an unreadable home).
  const std::string temp = testing::TempDir();
  const fs::path parent = (root || temp.size() > 60) ? fs::path("/tmp") : fs::path(temp);
  std::string pattern = (parent / "ember-pg-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    *why_not = "cannot create a temporary directory " + pattern + ": " + std::strerror(errno);
    return nullptr;
  }
  server->directory_ = pattern;
  if (root && chown(pattern.c_str(), server->uid_, server->gid_) != 0) {
    *why_not = "cannot give " + pattern + " to " + kSystemUser + ": " + std::strerror(errno);
    return nullptr;
  }
  const std::string& dir = server->directory_;
  const int initdb = server->Run("initdb",
                                 {"-D", dir + "/data", "-A", "trust", "-U", server->user_,
                                  "--no-sync", "-E", "UTF8", "--locale=C"},
                                 "", dir + "/initdb.log", dir + "/initdb.log");
  if (initdb != 0) {
    *why_not = "initdb failed (exit " + std::to_string(initdb) + "):" + Tail(dir + "/initdb.log");
    return nullptr;
  }
  std::string start_why;
  for (int attempt = 0; attempt < 3 && !server->running_; ++attempt) {
    server->port_ = FreePort();
    server->StartServer(&start_why);
  }
  if (!server->running_) {
    *why_not = start_why;
    return nullptr;
  }
  const int created = server->Run("psql",
                                  {"-X", "-q", "-h", dir, "-p", std::to_string(server->port_), "-U",
                                   server->user_, "-d", "postgres", "-c", "CREATE DATABASE ember"},
                                  "", dir + "/createdb.log", dir + "/createdb.log");
  if (created != 0) {
    *why_not = "CREATE DATABASE ember failed:" + Tail(dir + "/createdb.log") +
               "\nserver log:" + Tail(dir + "/server.log");
    return nullptr;
  }
  server->StartWatchdog();
  return server;
}

void PostgresServer::StartWatchdog() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return;  // no watchdog: the destructor still cleans up
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return;
  }
  if (pid == 0) {
    // Its own session, so that a kill of the test's process group leaves it to clean up.
    setsid();
    close(fds[1]);
    char byte = 0;
    for (;;) {
      const ssize_t n = read(fds[0], &byte, 1);
      if (n == 0 || (n < 0 && errno != EINTR)) break;  // end of file: the owner is gone
    }
    // The owner is gone. After its destructor the directory is already removed.
    running_ = fs::exists(directory_ + "/data/postmaster.pid");
    if (fs::exists(directory_)) CleanUp();
    _exit(0);
  }
  close(fds[0]);
  watchdog_fd_ = fds[1];
}

PostgresServer::~PostgresServer() {
  if (getpid() != owner_pid_ || directory_.empty()) return;
  CleanUp();
  if (watchdog_fd_ >= 0) close(watchdog_fd_);  // the watchdog then finds nothing to do
}

void PostgresServer::CleanUp() {
  if (running_) {
    const int stopped = Run("pg_ctl", {"-D", directory_ + "/data", "-m", "immediate", "stop"}, "",
                            directory_ + "/stop.log", directory_ + "/stop.log");
    if (stopped != 0) {
      // pg_ctl could not stop it: end the postmaster (the first line of postmaster.pid).
      std::ifstream pid_file(directory_ + "/data/postmaster.pid");
      if (long pid = 0; pid_file >> pid && pid > 0) kill(static_cast<pid_t>(pid), SIGQUIT);
    }
  }
  std::error_code ec;
  fs::remove_all(directory_, ec);
}

std::string PostgresServer::uri() const {
  return "postgresql://" + user_ + "@127.0.0.1:" + std::to_string(port_) + "/ember";
}

std::string PostgresServer::socket_uri() const {
  return "postgresql://" + user_ + "@/ember?host=" + UriEncode(directory_) +
         "&port=" + std::to_string(port_);
}

bool PostgresServer::StartServer(std::string* why_not) {
  const std::string options = "-c listen_addresses=127.0.0.1 -p " + std::to_string(port_) + " -k " +
                              directory_ +
                              " -c fsync=off -c full_page_writes=off -c synchronous_commit=off"
                              " -c max_connections=100";
  const std::string log = directory_ + "/server.log";
  const int code = Run(
      "pg_ctl", {"-D", directory_ + "/data", "-l", log, "-w", "-t", "30", "-o", options, "start"},
      "", directory_ + "/pg_ctl.log", directory_ + "/pg_ctl.log");
  running_ = code == 0;
  if (!running_) {
    *why_not = "pg_ctl start on port " + std::to_string(port_) + " failed (exit " +
               std::to_string(code) + "):" + Tail(directory_ + "/pg_ctl.log", 5) +
               "\nserver log:" + Tail(log);
  }
  return running_;
}

bool PostgresServer::Stop() {
  const int code = Run("pg_ctl", {"-D", directory_ + "/data", "-m", "fast", "-w", "stop"}, "",
                       directory_ + "/stop.log", directory_ + "/stop.log");
  if (code == 0) running_ = false;
  return code == 0;
}

bool PostgresServer::Restart() {
  if (running_ && !Stop()) return false;
  std::string why_not;
  return StartServer(&why_not);
}

std::string PostgresServer::Psql(const std::string& sql, bool* ok) const {
  const std::string base = directory_ + "/psql-" + std::to_string(files_made_++);
  std::ofstream(base + ".sql", std::ios::binary) << sql;
  const int code = Run("psql",
                       {"-X", "-q", "-v", "ON_ERROR_STOP=1", "-At", "-h", directory_, "-p",
                        std::to_string(port_), "-U", user_, "-d", "ember"},
                       base + ".sql", base + ".out", base + ".err");
  *ok = code == 0;
  const std::string out = ReadFile(base + (code == 0 ? ".out" : ".err"));
  for (const char* ext : {".sql", ".out", ".err"}) unlink((base + ext).c_str());
  return out;
}

int PostgresServer::Run(const std::string& program, const std::vector<std::string>& args,
                        const std::string& in_file, const std::string& out_file,
                        const std::string& err_file) const {
  // Everything the child needs is made before fork: after it, only async-signal-safe calls.
  std::string path = bin_dir_ + "/" + program;
  if (!IsExecutable(path) && program == "psql") path = "/usr/bin/psql";
  std::vector<std::string> argv_strings = {path};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  // A small, fixed environment: no PG* settings of the caller's, no locale surprises.
  const char* caller_path = std::getenv("PATH");
  std::vector<std::string> env_strings = {
      "PATH=" + std::string(caller_path != nullptr ? caller_path : "/usr/bin:/bin"),
      "HOME=" + directory_,
      "LC_ALL=C",
      "LANG=C",
      "PGTZ=UTC",
      "TZ=UTC"};
  const std::vector<char*> argv = NullTerminated(argv_strings);
  const std::vector<char*> envp = NullTerminated(env_strings);
  const char* in_path = in_file.empty() ? "/dev/null" : in_file.c_str();
  const bool switch_user = uid_ != static_cast<uid_t>(-1);
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    // Files are opened before the switch (as the caller); the server's own (its log, its
    // directory) are the unprivileged user's.
    const int in_fd = open(in_path, O_RDONLY);
    const int out_fd = open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err_fd =
        err_file == out_file ? out_fd : open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in_fd < 0 || out_fd < 0 || err_fd < 0) _exit(126);
    dup2(in_fd, STDIN_FILENO);
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    // The server outlives this call: it must not hold the test's descriptors (a pipe ctest
    // reads to its end, a database file).
    close_range(3, ~0U, 0);
    if (chdir(directory_.c_str()) != 0) _exit(126);
    if (switch_user && (setgroups(0, nullptr) != 0 || setgid(gid_) != 0 || setuid(uid_) != 0)) {
      _exit(126);
    }
    execve(path.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  return Wait(pid);
}

}  // namespace ember::test
