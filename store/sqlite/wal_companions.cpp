#include "store/sqlite/wal_companions.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "store/sqlite/commit_counter.h"
#include "store/sqlite/sqlite_database.h"

namespace ember {
namespace {

// SQLite's file format (https://sqlite.org/fileformat.html): §1.3 the database header, §4.1 the
// WAL header and frames, §4.2 their checksums.
constexpr size_t kDbHeaderSize = 100;
constexpr size_t kWalHeaderSize = 32;
constexpr size_t kFrameHeaderSize = 24;
constexpr uint32_t kWalMagic = 0x377f0682;  // | 1: checksums over big-endian words
constexpr size_t kUserVersionAt = 60;
constexpr size_t kApplicationIdAt = 68;
constexpr size_t kSchemaCookieAt = 40;  // bumped by every schema change: 0 = never a table
// The unix VFS's "dead man switch" byte in the -shm file: every connection holds a read lock on
// it while the database is open, and the first one to open takes it for writing (sqlite's
// src/os_unix.c, UNIX_SHM_DMS = 120 + 8).
constexpr off_t kShmDmsByte = 128;
// user_version is a signed 32-bit number; the counter stays non-negative and wraps.

using DbHeader = std::array<uint8_t, kDbHeaderSize>;

uint32_t Be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

uint32_t Le32(const uint8_t* p) {
  return (uint32_t{p[3]} << 24) | (uint32_t{p[2]} << 16) | (uint32_t{p[1]} << 8) | p[0];
}

// The WAL checksum (fileformat.html §4.2), continuing from (s0, s1) over `n` bytes (n % 8 == 0).
void Checksum(bool big_endian, const uint8_t* data, size_t n, uint32_t& s0, uint32_t& s1) {
  for (size_t i = 0; i + 8 <= n; i += 8) {
    const uint32_t x0 = big_endian ? Be32(data + i) : Le32(data + i);
    const uint32_t x1 = big_endian ? Be32(data + i + 4) : Le32(data + i + 4);
    s0 += x0 + s1;
    s1 += x1 + s0;
  }
}

std::string Errno() { return std::strerror(errno); }

// Reads exactly `n` bytes at `offset`; false at end of file or on a short read.
bool ReadAt(int fd, off_t offset, uint8_t* out, size_t n) {
  size_t done = 0;
  while (done < n) {
    const ssize_t got = pread(fd, out + done, n - done, offset + static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    done += static_cast<size_t>(got);
  }
  return true;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// What a log would replay: its page size and the page-1 headers of its committed frames, in
// log order. SQLite replays frames up to the last commit frame whose checksums all hold.
struct WalContent {
  uint32_t page_size = 0;
  size_t committed_frames = 0;
  std::vector<DbHeader> headers;
};

WalContent ReadWal(int fd) {
  WalContent out;
  uint8_t header[kWalHeaderSize];
  if (!ReadAt(fd, 0, header, sizeof header)) return out;  // shorter than a header
  const uint32_t magic = Be32(header);
  if ((magic & ~1u) != kWalMagic) return out;  // SQLite ignores such a log
  const bool big_endian = (magic & 1u) != 0;
  const uint32_t page_size = Be32(header + 8);
  if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)) != 0) {
    return out;
  }
  uint32_t s0 = 0, s1 = 0;
  Checksum(big_endian, header, 24, s0, s1);
  if (s0 != Be32(header + 24) || s1 != Be32(header + 28)) return out;
  out.page_size = page_size;
  std::vector<uint8_t> frame(kFrameHeaderSize + page_size);
  std::vector<DbHeader> pending;  // page-1 headers since the last commit frame
  size_t frames = 0;
  for (off_t at = kWalHeaderSize;; at += static_cast<off_t>(frame.size())) {
    if (!ReadAt(fd, at, frame.data(), frame.size())) break;
    const uint8_t* f = frame.data();
    if (std::memcmp(f + 8, header + 16, 8) != 0) break;  // salts of an older log generation
    uint32_t t0 = s0, t1 = s1;
    Checksum(big_endian, f, 8, t0, t1);
    Checksum(big_endian, f + kFrameHeaderSize, page_size, t0, t1);
    if (t0 != Be32(f + 16) || t1 != Be32(f + 20) || Be32(f) == 0) break;
    s0 = t0;
    s1 = t1;
    ++frames;
    if (Be32(f) == 1) {
      DbHeader h;
      std::copy_n(f + kFrameHeaderSize, kDbHeaderSize, h.begin());
      pending.push_back(h);
    }
    if (Be32(f + 4) != 0) {  // a commit frame
      out.committed_frames = frames;
      out.headers.insert(out.headers.end(), pending.begin(), pending.end());
      pending.clear();
    }
  }
  return out;
}

// Whether a connection of another process has the database open: it holds a lock on the
// index's dead-man-switch byte for as long as it does.
bool IndexInUse(const std::string& shm_path) {
  const int raw = open(shm_path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (raw < 0) return false;  // no index: no connection in WAL mode
  Fd fd(raw);
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  lock.l_start = kShmDmsByte;
  lock.l_len = 1;
  if (fcntl(fd.get(), F_GETLK, &lock) != 0) return true;  // cannot tell: assume live
  return lock.l_type != F_UNLCK;
}

// The write lock on the index's dead-man-switch byte — the lock SQLite's first connection takes
// to rebuild the index. While this process holds it no connection of any process can start
// using the database (SQLite answers SQLITE_BUSY, which it retries: its os_unix.c and wal.c
// treat it as a passing race), so the log can be judged, and moved, without a writer changing
// it meanwhile. With `create`, a missing index is created (with the database file's mode, as
// SQLite does) and removed again when the lock is dropped.
class IndexLock {
 public:
  IndexLock(const std::string& path, bool create) : shm_path_(path + "-shm") {
    int raw = open(shm_path_.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (raw < 0 && errno == ENOENT && create) {
      struct stat db {};
      if (stat(path.c_str(), &db) != 0) return;
      raw = open(shm_path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                 db.st_mode & 0666);
      created_ = raw >= 0;
    }
    struct flock lock {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = kShmDmsByte;
    lock.l_len = 1;
    if (raw < 0 && (errno == EACCES || errno == EROFS) && !create) {
      // An index this process may not write (made read-only, with its database's mode, by a
      // read-only open): a write lock cannot be taken, so ask whether anyone holds one. Nobody
      // who could use it can be starting now either: opening it needs write permission too,
      // or finds it unusable, as this process did.
      raw = open(shm_path_.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
      if (raw < 0) return;
      fd_.emplace(raw);
      held_ = fcntl(fd_->get(), F_GETLK, &lock) == 0 && lock.l_type == F_UNLCK;
      return;
    }
    if (raw < 0) return;
    fd_.emplace(raw);
    held_ = fcntl(fd_->get(), F_SETLK, &lock) == 0;
  }
  ~IndexLock() {
    if (created_ && held_ && !removed_) unlink(shm_path_.c_str());
  }
  IndexLock(const IndexLock&) = delete;
  IndexLock& operator=(const IndexLock&) = delete;

  // Whether the lock is held (false: a connection uses the database, or there is no index and
  // none could be created).
  bool held() const { return held_; }
  // Removes the index while the lock is held.
  void Remove() {
    if (held_ && unlink(shm_path_.c_str()) == 0) removed_ = true;
  }

 private:
  std::string shm_path_;
  std::optional<Fd> fd_;
  bool created_ = false;
  bool held_ = false;
  bool removed_ = false;
};

std::string Describe(const DbHeader& h) {
  return fmt::format("application_id 0x{:08x}, commit counter {}",
                     Be32(h.data() + kApplicationIdAt), Be32(h.data() + kUserVersionAt));
}

}  // namespace

// Corruption describing the difference when the log behind `wal` would replay another
// database's pages onto `path`; OK otherwise. REQUIRES: the IndexLock is held.
Status JudgeWal(const std::string& path, int wal) {
  const WalContent content = ReadWal(wal);
  if (content.committed_frames == 0 || content.headers.empty()) return Status::Ok();

  const int db_raw = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (db_raw < 0) {
    return Status::IoError(fmt::format("cannot read plan database {}: {}", path, Errno()));
  }
  Fd db(db_raw);
  DbHeader file{};
  if (!ReadAt(db.get(), 0, file.data(), file.size())) {
    return Status::Ok();  // an empty file: the log recreates it, nothing is overwritten
  }
  uint32_t file_page_size = (uint32_t{file[16]} << 8) | file[17];
  if (file_page_size == 1) file_page_size = 65536;
  if (file_page_size != content.page_size) {
    return Status::Corruption(fmt::format(
        "{}-wal does not belong to plan database {}: its pages are {} bytes, the file's {}", path,
        path, content.page_size, file_page_size));
  }
  for (const DbHeader& h : content.headers) {
    if (h == file) return Status::Ok();  // a checkpoint copied this log's header into the file
  }
  const DbHeader& first = content.headers.front();
  const uint32_t first_counter = Be32(first.data() + kUserVersionAt);
  const uint32_t file_counter = Be32(file.data() + kUserVersionAt);
  const bool same_application =
      Be32(first.data() + kApplicationIdAt) == Be32(file.data() + kApplicationIdAt);
  if (same_application && (file_counter == first_counter ||
                           ((file_counter + 1) & kCommitCounterMask) == first_counter)) {
    return Status::Ok();  // the file is the state the log started from
  }
  if (Be32(file.data() + kSchemaCookieAt) == 0) {
    // The file never held a table (a database created just before its first commit, which
    // the log holds): replaying the log destroys nothing.
    return Status::Ok();
  }
  return Status::Corruption(fmt::format(
      "{}-wal does not belong to plan database {}: the log continues a database with {} "
      "(its last: {}), the file has {}",
      path, path, Describe(first), Describe(content.headers.back()), Describe(file)));
}

Status CheckWalBelongs(const std::string& path, bool set_aside, WalSetAside* out) {
  *out = WalSetAside();
  const std::string wal_path = path + "-wal";
  const int raw = open(wal_path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (raw < 0) {
    if (errno == ENOENT) return Status::Ok();
    return Status::IoError(fmt::format("cannot read write-ahead log {}: {}", wal_path, Errno()));
  }
  Fd wal(raw);
  struct stat st {};
  if (fstat(wal.get(), &st) != 0 || st.st_size == 0) return Status::Ok();
  IndexLock lock(path, /*create=*/true);
  if (!lock.held()) return Status::Ok();  // a live connection's log, not a stale one
  const Status foreign = JudgeWal(path, wal.get());
  if (foreign.ok() || foreign.code() != Status::Code::kCorruption || !set_aside) return foreign;
  const std::string aside =
      fmt::format("{}.stale-{}", wal_path, static_cast<long long>(time(nullptr)));
  if (rename(wal_path.c_str(), aside.c_str()) != 0) {
    return Status::Corruption(
        fmt::format("{}; it could not be moved to {}: {}", foreign.message(), aside, Errno()));
  }
  lock.Remove();  // the index of the log that left
  out->why = foreign.message();
  out->moved_to = aside;
  return Status::Ok();
}

bool CompanionsInUse(const std::string& path) { return IndexInUse(path + "-shm"); }

CompanionFiles ExistingCompanions(const std::string& path) {
  struct stat st {};
  return {.wal = lstat((path + "-wal").c_str(), &st) == 0,
          .shm = lstat((path + "-shm").c_str(), &st) == 0};
}

void RemoveCompanionsCreatedHere(const std::string& path, const CompanionFiles& before) {
  const CompanionFiles now = ExistingCompanions(path);
  const bool wal_created = now.wal && !before.wal;
  const bool shm_created = now.shm && !before.shm;
  if (!wal_created && !shm_created) return;
  IndexLock lock(path, /*create=*/false);
  if (now.shm && !lock.held()) return;  // in use
  if (wal_created) {
    const std::string wal_path = path + "-wal";
    struct stat st {};
    if (lstat(wal_path.c_str(), &st) != 0 || st.st_size != 0) return;
    unlink(wal_path.c_str());
  }
  // An index nobody holds is only a cache of the log: the next connection rebuilds it.
  if (shm_created) lock.Remove();
}

void RemoveDatabaseFiles(const std::string& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::filesystem::remove(path + suffix, ec);
  }
}

}  // namespace ember
