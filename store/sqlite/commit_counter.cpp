#include "store/sqlite/commit_counter.h"

#include <fmt/format.h>

#include <cstdlib>
#include <string>

namespace ember {

Status BumpCommitCounter(SqliteDatabase& db) {
  std::string value;
  if (Status s = db.QueryText("PRAGMA user_version", "reading the commit counter", &value);
      !s.ok()) {
    return s;
  }
  const uint32_t next =
      (static_cast<uint32_t>(std::strtoll(value.c_str(), nullptr, 10)) + 1) & kCommitCounterMask;
  return db.Exec(fmt::format("PRAGMA user_version = {}", next), "bumping the commit counter");
}

}  // namespace ember
