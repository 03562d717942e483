// Network-filesystem detection for Note [Journal mode] (plan_database.h): SQLite's WAL needs
// shared memory between every process that opens the file, which a network filesystem cannot
// give across hosts, and its byte-range locks are unreliable there.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ember {

// "nfs", "cifs", "smb", "smb2", "afs", "ceph", "lustre", "gfs2" or "9p" for the filesystem
// magic numbers (statfs f_type) of network and cluster filesystems; empty for anything else.
// FUSE is not counted: local FUSE mounts (fuse-overlayfs in rootless containers) handle WAL;
// a FUSE network mount such as sshfs needs PlanDbOptions::network_filesystem = true.
std::string_view NetworkFilesystemName(int64_t magic);

// NetworkFilesystemName of the filesystem holding the existing path `path`; empty when it is
// local or statfs fails.
std::string NetworkFilesystemOf(const std::string& path);

}  // namespace ember
