#include "store/sqlite/file_trust.h"

#include "engine/core/plan_db_location.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace ember {

namespace {

std::string Errno() { return std::strerror(errno); }

std::string Writers(mode_t mode) {
  const bool group = (mode & S_IWGRP) != 0;
  const bool other = (mode & S_IWOTH) != 0;
  if (group && other) return "its group and by other users";
  return group ? "its group" : "other users";
}

// Creates every missing directory of `dir` with mode 0700.
Status CreateDirectories(const std::string& dir) {
  std::filesystem::path partial;
  for (const std::filesystem::path& part : std::filesystem::path(dir)) {
    partial /= part;
    const std::string name = partial.string();
    if (mkdir(name.c_str(), 0700) == 0) {
      chmod(name.c_str(), 0700);  // The umask may have taken bits away; 0700 is what we mean.
    } else if (errno != EEXIST) {
      return Status::IoError(
          fmt::format("cannot create directory {} for the plan database: {}", name, Errno()));
    }
  }
  return Status::Ok();
}

Status CheckCompanions(const std::string& path, bool allow_shared_writable) {
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    const std::string companion = path + suffix;
    struct stat st {};
    if (stat(companion.c_str(), &st) != 0) continue;
    if (Status s = CheckTrustedPath(companion, allow_shared_writable); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace

std::string DatabaseDirectory(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

Status CheckTrustedPath(const std::string& path, bool allow_shared_writable) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    return Status::IoError(fmt::format("cannot inspect {}: {}", path, Errno()));
  }
  if (allow_shared_writable) return Status::Ok();
  const uid_t me = geteuid();
  if (st.st_uid != me && st.st_uid != 0) {
    return Status::InvalidArgument(fmt::format(
        "refusing plan database path {}: it is owned by uid {}, not by this user (uid {}) or "
        "root. A plan database can hold compiled kernels, which are code, so ember only uses "
        "one that no other user could have written. Use a path of your own, or allow shared "
        "writable databases ([store] allow_shared_writable = true)",
        path, st.st_uid, me));
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && S_ISDIR(st.st_mode) &&
      (st.st_mode & S_ISVTX) != 0) {
    // A shared scratch directory such as /tmp: its mode is right for what it is.
    return Status::InvalidArgument(fmt::format(
        "refusing plan database directory {}: it is a shared directory writable by {} (mode "
        "{:04o}), so another user could put files beside the database. A plan database can "
        "hold compiled kernels, which are code. Fix: keep the database in a directory of your "
        "own (mkdir -m 700 {}/mine), or allow shared writable databases ([store] "
        "allow_shared_writable = true)",
        path, Writers(st.st_mode), st.st_mode & 07777, path));
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return Status::InvalidArgument(fmt::format(
        "refusing plan database path {}: it is writable by {} (mode {:04o}). A plan database "
        "can hold compiled kernels, which are code, so ember only uses one that no other user "
        "could have written. Fix: chmod go-w {}, or allow shared writable databases ([store] "
        "allow_shared_writable = true)",
        path, Writers(st.st_mode), st.st_mode & 07777, path));
  }
  return Status::Ok();
}

bool KernelsTrustedAt(const std::string& location, std::string* why) {
  if (IsPostgresUri(location)) return true;
  for (const std::string& path : {location, DatabaseDirectory(location)}) {
    if (Status s = CheckTrustedPath(path, /*allow_shared_writable=*/false); !s.ok()) {
      *why = s.message();
      return false;
    }
  }
  return true;
}

Status PrepareDatabaseFile(const PlanDbOptions& options, bool* created, CheckedFile* checked) {
  *created = false;
  *checked = CheckedFile();
  const std::string& path = options.path;
  const std::string dir = DatabaseDirectory(path);
  struct stat st {};
  bool exists = stat(path.c_str(), &st) == 0;
  if (!exists && errno != ENOENT) {
    return Status::IoError(fmt::format("cannot inspect plan database {}: {}", path, Errno()));
  }
  if (!exists && (options.read_only || !options.create)) {
    return Status::NotFound(fmt::format("plan database {} does not exist{}", path,
                                        options.read_only ? " (read-only: not created)" : ""));
  }
  if (!exists) {
    if (Status s = CreateDirectories(dir); !s.ok()) return s;
  }
  if (Status s = CheckTrustedPath(dir, options.allow_shared_writable); !s.ok()) return s;
  if (!exists) {
    const int fd = open(path.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0) {
      fchmod(fd, 0600);  // Whatever the umask: owner read and write only.
      close(fd);
      *created = true;
    } else if (errno != EEXIST) {  // EEXIST: another process created it just now.
      return Status::IoError(fmt::format("cannot create plan database {}: {}", path, Errno()));
    }
    if (stat(path.c_str(), &st) != 0) {
      return Status::IoError(fmt::format("cannot inspect plan database {}: {}", path, Errno()));
    }
  }
  if (!S_ISREG(st.st_mode)) {
    return Status::InvalidArgument(
        fmt::format("plan database path {} is not a regular file", path));
  }
  if (Status s = CheckTrustedPath(path, options.allow_shared_writable); !s.ok()) return s;
  if (Status s = CheckCompanions(path, options.allow_shared_writable); !s.ok()) return s;
  *checked = {.device = static_cast<uint64_t>(st.st_dev),
              .inode = static_cast<uint64_t>(st.st_ino)};
  return Status::Ok();
}

}  // namespace ember
