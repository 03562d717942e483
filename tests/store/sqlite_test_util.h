// Helpers for the SQLite plan-store tests (their repositories: tests/common/repository_fixture.h,
// included here): scratch directories (mkdtemp), a raw SQLite handle for poking at files the way
// another program or a bit flip would, file snapshots, sample rows, and what makes a database
// unwritable (an immutable file, a read-only or full filesystem in a forked child's own mount
// namespace, tests/common/process.h). Everything works on real files.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/fs.h>
#include <sched.h>
#include <sqlite3.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "store/codec/environment_fingerprint.h"
#include "store/repository/plan_repository.h"
#include "store/repository/plan_rows.h"
#include "tests/common/process.h"
#include "tests/common/repository_fixture.h"
#include "tests/common/temp_dir.h"

namespace ember::sqlite_test {

using TempDir = ::ember::test::TempDir;

// A plain SQLite connection, without any of the store's checks: the "other program".
class RawDb {
 public:
  explicit RawDb(const std::string& path) {
    EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK) << path;
    sqlite3_busy_timeout(db_, 5000);
  }
  ~RawDb() { sqlite3_close(db_); }
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;

  void Exec(const std::string& sql) {
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
        << sql << ": " << (error ? error : "");
    sqlite3_free(error);
  }
  // The first column of every row, as text ("" for NULL).
  std::vector<std::string> Column(const std::string& sql) {
    std::vector<std::string> out;
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK)
        << sql << ": " << sqlite3_errmsg(db_);
    while (stmt != nullptr && sqlite3_step(stmt) == SQLITE_ROW) {
      const unsigned char* text = sqlite3_column_text(stmt, 0);
      out.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
    }
    sqlite3_finalize(stmt);
    return out;
  }
  std::string Text(const std::string& sql) {
    std::vector<std::string> rows = Column(sql);
    EXPECT_EQ(rows.size(), 1u) << sql;
    return rows.empty() ? "" : rows[0];
  }
  int64_t Int(const std::string& sql) { return std::stoll(Text(sql)); }
  // The first column of the first row as bytes (empty when there is none).
  std::vector<uint8_t> Blob(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
    std::vector<uint8_t> out;
    if (stmt != nullptr && sqlite3_step(stmt) == SQLITE_ROW) {
      const auto* bytes = static_cast<const uint8_t*>(sqlite3_column_blob(stmt, 0));
      out.assign(bytes, bytes + sqlite3_column_bytes(stmt, 0));
    }
    sqlite3_finalize(stmt);
    return out;
  }
  // Runs `sql` (an UPDATE or INSERT) with `blob` bound to ?1.
  void SetBlob(const std::string& sql, const std::vector<uint8_t>& blob) {
    sqlite3_stmt* stmt = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
    sqlite3_bind_blob(stmt, 1, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
    EXPECT_EQ(sqlite3_step(stmt), SQLITE_DONE) << sqlite3_errmsg(db_);
    sqlite3_finalize(stmt);
  }
  sqlite3* handle() { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

inline void WriteBytes(const std::string& path, std::string_view bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  chmod(path.c_str(), 0600);
}

// The bytes and modification time of a file, to prove that nothing touched it.
struct FileSnapshot {
  std::string bytes;
  int64_t mtime_ns = 0;

  static FileSnapshot Of(const std::string& path) {
    struct stat st {};
    EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
    return {test::ReadFile(path),
            static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
  }
  bool operator==(const FileSnapshot&) const = default;
};

// Whether SQLite's -wal or -shm of the database `path` exists.
inline bool HasCompanions(const std::string& path) {
  return std::filesystem::exists(path + "-wal") || std::filesystem::exists(path + "-shm");
}

inline mode_t ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// While alive, the file `path` is marked immutable (chattr +i): nobody, root included, may
// write, rename or remove it. why_not() says why it could not be marked (no
// CAP_LINUX_IMMUTABLE, a filesystem without the flag); then nothing was changed.
// REQUIRES at construction and destruction: no SQLite connection of this process has `path`
// open (closing the descriptor used here would drop its locks).
class ImmutableFile {
 public:
  explicit ImmutableFile(std::string path) : path_(std::move(path)) {
    if (!SetFlag(true)) why_not_ = "cannot chattr +i " + path_ + ": " + std::strerror(errno);
  }
  ~ImmutableFile() {
    if (why_not_.empty()) {
      EXPECT_TRUE(SetFlag(false)) << "chattr -i " << path_;
    }
  }
  ImmutableFile(const ImmutableFile&) = delete;
  ImmutableFile& operator=(const ImmutableFile&) = delete;

  const std::string& why_not() const { return why_not_; }

 private:
  bool SetFlag(bool on) const {
    const int fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return false;
    int flags = 0;
    bool ok = ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
    if (ok) {
      flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
      ok = ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
    }
    const int error = errno;
    close(fd);
    errno = error;
    return ok;
  }

  std::string path_;
  std::string why_not_;
};

// In a forked child only (test::RunInForkedChild): gives it a mount namespace of its own, whose
// mounts no other process sees and which vanish with it. Empty, or why not (no CAP_SYS_ADMIN).
inline std::string EnterPrivateMountNamespace() {
  if (unshare(CLONE_NEWNS) != 0) {
    return std::string("unshare(CLONE_NEWNS): ") + std::strerror(errno);
  }
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return std::string("making / private: ") + std::strerror(errno);
  }
  return "";
}

// RunInForkedChild, the child in a mount namespace of its own (EnterPrivateMountNamespace) before
// `body` runs; skipped when it cannot have one.
inline std::string RunInMountNamespace(const std::function<void()>& body) {
  return test::RunInForkedChild([&] {
    if (const std::string why = EnterPrivateMountNamespace(); !why.empty()) GTEST_SKIP() << why;
    body();
  });
}

// In RunInMountNamespace: the directory `dir` mounted read-only over itself. Empty, or why not.
inline std::string BindReadOnly(const std::string& dir) {
  if (mount(dir.c_str(), dir.c_str(), nullptr, MS_BIND, nullptr) != 0 ||
      mount(nullptr, dir.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) != 0) {
    return "read-only bind mount of " + dir + ": " + std::strerror(errno);
  }
  return "";
}

// In RunInMountNamespace: a new tmpfs of `bytes` at the existing directory `dir`, its
// root 0700 (a plan database's directory must not be writable by others). Empty, or why not.
inline std::string MountTmpfs(const std::string& dir, size_t bytes) {
  const std::string data = "size=" + std::to_string(bytes) + ",mode=0700";
  if (mount("tmpfs", dir.c_str(), "tmpfs", 0, data.c_str()) != 0) {
    return "tmpfs at " + dir + ": " + std::strerror(errno);
  }
  return "";
}

// Fills the filesystem of the directory `dir` with the file `dir`/filler, until a write fails
// for want of space.
inline void FillFilesystem(const std::string& dir) {
  const std::string filler = dir + "/filler";
  const int fd = open(filler.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0) << filler << ": " << std::strerror(errno);
  const std::string block(4096, 'f');
  for (size_t size = block.size(); size > 0; size /= 2) {
    while (write(fd, block.data(), size) == static_cast<ssize_t>(size)) {
    }
  }
  const int error = errno;
  close(fd);
  EXPECT_EQ(error, ENOSPC) << filler;
}

inline Blob BytesOf(std::string_view text) { return Blob(text.begin(), text.end()); }

// A plan whose keys and blobs derive from `n`; plans with the same `n` are the same plan.
// `first_op` groups plans under one first-op hash.
inline NewPlan SamplePlan(uint64_t n, uint64_t first_op = 7, std::string origin = "local") {
  NewPlan plan;
  plan.first_op_hash = first_op;
  plan.plan_key = {.low = n * 0x9E3779B97F4A7C15ull + 1, .high = n};
  plan.ops_blob = BytesOf("ops-" + std::to_string(n));
  plan.plan_blob = BytesOf("plan-" + std::to_string(n));
  plan.num_ops = static_cast<uint32_t>(n % 7 + 1);
  plan.explore_ms = 1.5;
  plan.origin = std::move(origin);
  return plan;
}

inline TriggerRow OnOps(std::string_view ops) { return {0, BytesOf(ops)}; }
inline TriggerRow OnSync() { return {1, {}}; }
inline TriggerRow Always() { return {2, {}}; }

inline NewKernel SampleKernel(std::string_view source, std::string arch = "sm_90",
                              std::string binary =
                                  "\x7f"
                                  "ELF kernel") {
  return {.key = {.source_hash = BytesOf(source),
                  .arch = std::move(arch),
                  .compiler_version = "nvrtc 12.4"},
          .binary = BytesOf(binary)};
}

}  // namespace ember::sqlite_test
