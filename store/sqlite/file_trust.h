// Checks and creation of plan-database files under Note [Plan database trust] (open_options.h).
// Plain POSIX; callable from any thread.
#pragma once

#include <cstdint>
#include <string>

#include "engine/core/status.h"
#include "store/repository/open_options.h"

namespace ember {

// The directory holding `path` ("." when it has none).
std::string DatabaseDirectory(const std::string& path);

// OK when the existing file or directory at `path` may be trusted: owned by this user or root,
// and not writable by group or others unless `allow_shared_writable`. Otherwise
// InvalidArgument with the reason and the fix. `path` must exist.
Status CheckTrustedPath(const std::string& path, bool allow_shared_writable);

// Whether the plan database at `location` may hold compiled kernels this user runs (Note
// [Stored kernels], store/persistent_kernels.h): a server always (who may write its tables is
// its roles' privileges), a file only when it and its directory pass the strict check, whatever
// allow_shared_writable let its plans be read under. *why gets the reason when not.
bool KernelsTrustedAt(const std::string& location, std::string* why);

// The file a check judged (stat's st_dev and st_ino).
struct CheckedFile {
  uint64_t device = 0;
  uint64_t inode = 0;
};

// Makes sure options.path exists and may be used: checks the directory (creating it, 0700, when
// missing and options.create is set), then either checks the existing file and its -wal, -shm
// and -journal companions, or creates the file empty with mode 0600 (whatever the umask). Sets
// *created when this call created the file. A missing file with options.read_only or without
// options.create is NotFound. *checked gets the file that was judged (symlinks followed).
Status PrepareDatabaseFile(const PlanDbOptions& options, bool* created, CheckedFile* checked);

}  // namespace ember
