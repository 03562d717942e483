#include "store/sqlite/open_database_files.h"

#include <sys/stat.h>

#include <map>
#include <mutex>
#include <utility>

namespace ember {
namespace {

using FileKey = std::pair<uint64_t, uint64_t>;

struct OpenFiles {
  std::mutex mu;
  std::map<FileKey, int> count;  // guarded by mu
};

OpenFiles& Files() {
  static OpenFiles* files = new OpenFiles();  // connections may outlive static destruction
  return *files;
}

bool KeyOf(const std::string& path, FileKey* key) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return false;
  *key = {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
  return true;
}

}  // namespace

OpenDatabaseFile::OpenDatabaseFile(const std::string& path) {
  FileKey key;
  if (!KeyOf(path, &key)) return;
  device_ = key.first;
  inode_ = key.second;
  registered_ = true;
  std::lock_guard lock(Files().mu);
  ++Files().count[key];
}

OpenDatabaseFile::~OpenDatabaseFile() {
  if (!registered_) return;
  std::lock_guard lock(Files().mu);
  auto it = Files().count.find({device_, inode_});
  if (it != Files().count.end() && --it->second == 0) Files().count.erase(it);
}

bool OpenDatabaseFile::InUse(const std::string& path) {
  FileKey key;
  if (!KeyOf(path, &key)) return false;
  std::lock_guard lock(Files().mu);
  return Files().count.count(key) != 0;
}

}  // namespace ember
