// The plan database files this process has open through SQLite, by device and inode.
//
// Note [One descriptor per database file]
// POSIX advisory locks belong to a process and a file, not to a descriptor: closing *any*
// descriptor of a file drops every lock the process holds on it, including the ones SQLite's
// connections hold (sqlite.org "How To Corrupt An SQLite Database File", §2.2). In WAL mode a
// connection keeps a shared lock on the main file for its whole life; once that lock is gone,
// another process that closes its last connection believes it is the last user, checkpoints and
// resets the WAL under this process's connections, and the database is corrupt. So ember reads
// a plan database file directly (the header check, database_header.h) only while no
// connection of this process has it open; a file already open here was checked when it was
// first opened. PlanDatabase registers its file for as long as its connection lives.
//
// Threading: thread-safe.
#pragma once

#include <cstdint>
#include <string>

namespace ember {

class OpenDatabaseFile {
 public:
  // Registers `path` (which must exist) as open by this process.
  explicit OpenDatabaseFile(const std::string& path);
  ~OpenDatabaseFile();
  OpenDatabaseFile(const OpenDatabaseFile&) = delete;
  OpenDatabaseFile& operator=(const OpenDatabaseFile&) = delete;

  // Whether a connection of this process has the file at `path` open.
  static bool InUse(const std::string& path);

  // The file registered (device and inode; both 0 when `path` could not be stat'ed).
  uint64_t device() const { return device_; }
  uint64_t inode() const { return inode_; }

 private:
  uint64_t device_ = 0;
  uint64_t inode_ = 0;
  bool registered_ = false;
};

}  // namespace ember
