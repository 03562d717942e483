#include "store/shm/shared_segment_trust.h"

#include <unistd.h>

#include <fmt/format.h>

namespace ember {
namespace {

bool ForeignOwner(const struct stat& st, uid_t database_owner) {
  return st.st_uid != ::geteuid() && st.st_uid != 0 && st.st_uid != database_owner;
}

}  // namespace

mode_t SegmentModeFor(const std::string& database_path, uid_t* database_owner) {
  struct stat st {};
  if (::stat(database_path.c_str(), &st) != 0) {
    *database_owner = ::geteuid();
    return 0600;
  }
  *database_owner = st.st_uid;
  return st.st_mode & 0666;
}

std::string SegmentDistrust(const struct stat& st, uid_t database_owner,
                            bool allow_shared_writable) {
  if (ForeignOwner(st, database_owner)) return fmt::format("it is owned by uid {}", st.st_uid);
  const bool group = (st.st_mode & S_IWGRP) != 0;
  const bool other = (st.st_mode & S_IWOTH) != 0;
  if (allow_shared_writable || (!group && !other)) return "";
  return fmt::format("it is writable by {} (mode {:04o})",
                     group && other ? "group and others"
                     : group        ? "group"
                                    : "others",
                     st.st_mode & 07777);
}

Status CheckTrustedSegment(SegmentObject kind, std::string_view name, const struct stat& st,
                           uid_t database_owner, bool allow_shared_writable) {
  std::string why = SegmentDistrust(st, database_owner, allow_shared_writable);
  if (why.empty()) return Status::Ok();
  const bool lock = kind == SegmentObject::kLock;
  const bool foreign = ForeignOwner(st, database_owner);
  if (foreign) {
    why += fmt::format(", not by this user (uid {}), root or the plan database's owner (uid {})",
                       ::geteuid(), database_owner);
  }
  // A chmod would not do: whoever opened it while it was writable can still write it.
  const std::string fix =
      foreign ? fmt::format("have uid {} or root remove it (rm /dev/shm/{})", st.st_uid, name)
              : fmt::format(
                    "remove it (rm /dev/shm/{}; a chmod would not undo what was written) and "
                    "the next run creates it with the database's mode, or allow shared "
                    "writable segments ([store] allow_shared_writable = true)",
                    name);
  return Status::InvalidArgument(fmt::format(
      "refusing {}: {}, so another user could {}. Ember does not use it: plans are read from "
      "and written to the plan database only. Fix: {}",
      lock ? fmt::format("/dev/shm/{}, the lock of a shared plan segment", name)
           : fmt::format("shared plan segment /dev/shm/{}", name),
      why,
      lock ? "remove or hold it while the segment is created"
           : "have changed the plans it serves, and a changed plan computes wrong results",
      fix));
}

}  // namespace ember
