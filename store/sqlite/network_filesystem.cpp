#include "store/sqlite/network_filesystem.h"

#include <sys/vfs.h>

namespace ember {

std::string_view NetworkFilesystemName(int64_t magic) {
  switch (static_cast<uint32_t>(magic)) {
    case 0x6969u: return "nfs";         // NFS_SUPER_MAGIC
    case 0xFF534D42u: return "cifs";    // CIFS_MAGIC_NUMBER
    case 0x517Bu: return "smb";         // SMB_SUPER_MAGIC
    case 0xFE534D42u: return "smb2";    // SMB2_MAGIC_NUMBER
    case 0x5346414Fu: return "afs";     // AFS_SUPER_MAGIC
    case 0x00C36400u: return "ceph";    // CEPH_SUPER_MAGIC
    case 0x0BD00BD0u: return "lustre";  // LUSTRE_SUPER_MAGIC
    case 0x01161970u: return "gfs2";    // GFS2_MAGIC
    case 0x01021997u: return "9p";      // V9FS_MAGIC
    default: return {};
  }
}

std::string NetworkFilesystemOf(const std::string& path) {
  struct statfs fs {};
  if (statfs(path.c_str(), &fs) != 0) return {};
  return std::string(NetworkFilesystemName(static_cast<int64_t>(fs.f_type)));
}

}  // namespace ember
