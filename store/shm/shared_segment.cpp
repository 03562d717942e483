#include "store/shm/shared_segment.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>
#include <system_error>
#include <thread>

#include <fmt/format.h>
#include <xxhash.h>
#include <boost/interprocess/exceptions.hpp>
#include <boost/interprocess/mapped_region.hpp>
#include <boost/interprocess/permissions.hpp>
#include <boost/interprocess/shared_memory_object.hpp>

#include "engine/core/clock.h"
#include "engine/core/config.h"
#include "engine/core/log.h"
#include "engine/core/plan_db_location.h"
#include "store/shm/shared_segment_trust.h"

namespace ember {

namespace bip = boost::interprocess;

static_assert(shm::kMinSegmentBytes == kMinShmBytes && shm::kMaxSegmentBytes == kMaxShmBytes,
              "[store] shm_bytes must accept exactly the sizes a segment may have");

struct SharedSegment::Mapping {
  bip::shared_memory_object object;
  bip::mapped_region region;
};

namespace {

// What names a database for its segments: a file by its canonical path, so that every spelling
// of it meets in one segment; a server by its URI with the password's value masked (not a path:
// resolving it against the working directory would give workers started in different
// directories different segments of one server).
std::string CanonicalPath(const std::string& path) {
  if (IsPostgresUri(path)) return RedactedUri(path);
  std::error_code ec;
  std::filesystem::path canonical = std::filesystem::weakly_canonical(path, ec);
  return ec ? std::filesystem::absolute(path, ec).lexically_normal().string() : canonical.string();
}

uint64_t PathHash(const std::string& database_path) {
  const std::string path = CanonicalPath(database_path);
  return XXH3_64bits(path.data(), path.size());
}

uint64_t IdentityOf(const std::string& database_path, std::string_view environment) {
  std::string text = CanonicalPath(database_path);
  text.push_back('\0');
  text.append(environment);
  return XXH3_64bits(text.data(), text.size());
}

std::string PathPrefix(const std::string& database_path) {
  return fmt::format("ember-plans-{:016x}-", PathHash(database_path));
}

// An object this process could not open: when stat of its name shows that it may not be
// trusted (another user's 0600 object cannot even be opened), that refusal, with its fix;
// `otherwise` when not.
Status Unopened(SegmentObject kind, const std::string& name, uid_t database_owner,
                bool allow_shared_writable, Status otherwise) {
  struct stat st {};
  if (::stat(("/dev/shm/" + name).c_str(), &st) != 0) return otherwise;
  Status refusal = CheckTrustedSegment(kind, name, st, database_owner, allow_shared_writable);
  return refusal.ok() ? otherwise : refusal;
}

// Holds the flock of the companion lock object while a segment is opened or created.
class OpenLock {
 public:
  OpenLock(const std::string& name, mode_t mode) : name_(name + ".lock") {
    try {
      bip::permissions permissions(static_cast<int>(mode));
      object_ = bip::shared_memory_object(bip::open_or_create, name_.c_str(), bip::read_write,
                                          permissions);
    } catch (const bip::interprocess_exception& e) {
      error_ = e.what();
    }
  }
  ~OpenLock() {
    if (locked_) ::flock(object_.get_mapping_handle().handle, LOCK_UN);
  }

  // Note [Shared segment trust]: the lock is checked like the segment before it is taken.
  Status Acquire(uint32_t wait_ms, uid_t database_owner, bool allow_shared_writable) {
    if (!error_.empty()) {
      return Unopened(SegmentObject::kLock, name_, database_owner, allow_shared_writable,
                      Status::Unavailable(fmt::format("cannot open {}: {}", name_, error_)));
    }
    const int fd = object_.get_mapping_handle().handle;
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      return Status::Unavailable(fmt::format("cannot stat {}: {}", name_, std::strerror(errno)));
    }
    if (Status s = CheckTrustedSegment(SegmentObject::kLock, name_, st, database_owner,
                                       allow_shared_writable);
        !s.ok()) {
      return s;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK && errno != EINTR) {
        return Status::Unavailable(fmt::format("cannot lock {}: {}", name_, std::strerror(errno)));
      }
      if (std::chrono::steady_clock::now() >= deadline) {
        return Status::Unavailable(
            fmt::format("{} stayed locked by another process for {} ms", name_, wait_ms));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    locked_ = true;
    return Status::Ok();
  }

 private:
  std::string name_;
  bip::shared_memory_object object_;
  std::string error_;
  bool locked_ = false;
};

// Why an existing segment cannot be used as it is, or empty when it can.
// REQUIRES: UnusableSize(file_size) is empty.
std::string Unusable(const shm::SegmentHeader& h, uint64_t file_size, uint64_t identity) {
  if (h.magic != shm::kSegmentMagic) return "it is not an ember plan segment";
  if (h.layout_version != shm::kSegmentLayoutVersion) {
    return fmt::format("its layout is version {}, this engine's is {}", h.layout_version,
                       shm::kSegmentLayoutVersion);
  }
  if (h.identity != identity) return "it belongs to another database (name clash)";
  if (h.data_offset != shm::kDataOffset || h.total_bytes != file_size) {
    return "its header does not match its size";
  }
  const uint32_t state = h.state.load(std::memory_order_acquire);
  if (state == shm::kInitializing) return "its creator died before finishing it";
  if (state != shm::kReady) return "a process found it inconsistent";
  const uint64_t top = h.top.load(std::memory_order_acquire);
  if (top < shm::kDataOffset) return "its allocator is corrupt";
  return "";
}

}  // namespace

std::string SharedSegment::UnusableSize(uint64_t bytes) {
  if (bytes < shm::kDataOffset) return fmt::format("it is only {} bytes", bytes);
  if (bytes > shm::kMaxSegmentBytes) {
    return fmt::format("it is {} bytes, more than a segment may have ({})", bytes,
                       shm::kMaxSegmentBytes);
  }
  return "";
}

uint64_t SharedSegment::IdentityFor(const std::string& database_path,
                                    std::string_view environment) {
  return IdentityOf(database_path, environment);
}

std::string SharedSegment::NameFor(const std::string& database_path, std::string_view environment) {
  return fmt::format("{}{:08x}", PathPrefix(database_path),
                     XXH3_64bits(environment.data(), environment.size()) & 0xffffffffu);
}

Status SharedSegment::Remove(const std::string& database_path, std::string_view environment) {
  const std::string name = NameFor(database_path, environment);
  bip::shared_memory_object::remove(name.c_str());
  bip::shared_memory_object::remove((name + ".lock").c_str());
  return Status::Ok();
}

std::vector<std::string> SharedSegment::NamesFor(const std::string& database_path) {
  // glibc keeps POSIX shared-memory objects in /dev/shm; list them there.
  const std::string prefix = PathPrefix(database_path);
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm", ec)) {
    std::string name = entry.path().filename().string();
    if (name.starts_with(prefix) && !name.ends_with(".lock")) names.push_back(std::move(name));
  }
  return names;
}

Status SharedSegment::InvalidateAll(const std::string& database_path, size_t* marked) {
  if (marked != nullptr) *marked = 0;
  for (const std::string& name : NamesFor(database_path)) {
    try {
      bip::shared_memory_object object(bip::open_only, name.c_str(), bip::read_write);
      struct stat st {};
      uid_t owner = 0;
      SegmentModeFor(database_path, &owner);
      // Only segments this user or the database's owner made are written to, as in Open.
      if (::fstat(object.get_mapping_handle().handle, &st) != 0 ||
          static_cast<uint64_t>(st.st_size) < shm::kDataOffset ||
          (st.st_uid != ::geteuid() && st.st_uid != owner)) {
        continue;
      }
      bip::mapped_region region(object, bip::read_write, 0, sizeof(shm::SegmentHeader));
      auto* header = static_cast<shm::SegmentHeader*>(region.get_address());
      if (header->magic != shm::kSegmentMagic) continue;
      header->state.store(shm::kBroken, std::memory_order_release);
      if (marked != nullptr) ++*marked;
    } catch (const bip::interprocess_exception& e) {
      return Status::Unavailable(fmt::format("shared memory {}: {}", name, e.what()));
    }
  }
  return Status::Ok();
}

Status SharedSegment::RemoveAll(const std::string& database_path, size_t* removed) {
  size_t count = 0;
  for (const std::string& name : NamesFor(database_path)) {
    if (bip::shared_memory_object::remove(name.c_str())) ++count;
    bip::shared_memory_object::remove((name + ".lock").c_str());
  }
  if (removed != nullptr) *removed = count;
  return Status::Ok();
}

Status SharedSegment::Open(const SharedSegmentOptions& options, std::unique_ptr<SharedSegment>* out,
                           bool* recreated) {
  if (recreated != nullptr) *recreated = false;
  if (options.bytes < shm::kMinSegmentBytes || options.bytes > shm::kMaxSegmentBytes) {
    return Status::InvalidArgument(fmt::format("a shared plan segment has {} to {} bytes, not {}",
                                               shm::kMinSegmentBytes, shm::kMaxSegmentBytes,
                                               options.bytes));
  }
  const uint64_t identity = IdentityOf(options.database_path, options.environment);
  const std::string name = NameFor(options.database_path, options.environment);
  uid_t owner = 0;
  const mode_t mode = SegmentModeFor(options.database_path, &owner);

  // Inspection takes no lock: it changes nothing, and a segment being recreated under it is
  // simply not there yet or not usable yet.
  std::optional<OpenLock> lock;
  if (options.create) {
    lock.emplace(name, mode);
    if (Status s = lock->Acquire(options.open_wait_ms, owner, options.allow_shared_writable);
        !s.ok()) {
      return s;
    }
  }

  std::unique_ptr<SharedSegment> segment(new SharedSegment());
  segment->name_ = name;
  auto mapping = std::make_unique<Mapping>();
  try {
    bool exists = true;
    try {
      mapping->object = bip::shared_memory_object(bip::open_only, name.c_str(), bip::read_write);
    } catch (const bip::interprocess_exception& e) {
      if (e.get_error_code() != bip::not_found_error) {
        return Unopened(SegmentObject::kSegment, name, owner, options.allow_shared_writable,
                        Status::Unavailable(fmt::format("shared memory {}: {}", name, e.what())));
      }
      exists = false;
    }
    if (exists) {
      struct stat st {};
      const int fd = mapping->object.get_mapping_handle().handle;
      if (::fstat(fd, &st) != 0) {
        return Status::Unavailable(fmt::format("cannot stat {}: {}", name, std::strerror(errno)));
      }
      // Checked on the descriptor that is mapped below, on every open (Note [Shared segment
      // trust]): a refused segment is neither used nor removed.
      if (Status s = CheckTrustedSegment(SegmentObject::kSegment, name, st, owner,
                                         options.allow_shared_writable);
          !s.ok()) {
        return s;
      }
      // An object too big to be a segment is not mapped: mapping it may fail (ENOMEM) for good.
      std::string why = UnusableSize(static_cast<uint64_t>(st.st_size));
      if (why.empty()) {
        mapping->region = bip::mapped_region(mapping->object, bip::read_write);
        why = Unusable(*static_cast<const shm::SegmentHeader*>(mapping->region.get_address()),
                       static_cast<uint64_t>(st.st_size), identity);
      }
      if (why.empty() || !options.create) {
        if (!why.empty()) {
          return Status::NotFound(fmt::format("shared plan segment {}: {}", name, why));
        }
        segment->fd_ = fd;
        segment->base_ = static_cast<uint8_t*>(mapping->region.get_address());
        segment->size_ = static_cast<uint64_t>(st.st_size);
        segment->mapping_ = std::move(mapping);
        segment->guard_ = std::make_unique<shm::MappingGuard>(segment->base_, segment->size_);
        *out = std::move(segment);
        return Status::Ok();
      }
      mapping = std::make_unique<Mapping>();
      if (!bip::shared_memory_object::remove(name.c_str())) {
        // /dev/shm is sticky: only the object's owner or root may remove it.
        return Status::Unavailable(fmt::format(
            "shared plan segment {} is unusable ({}) and cannot be removed ({}); its owner (uid "
            "{}) or root can remove it: rm /dev/shm/{}",
            name, why, std::strerror(errno), st.st_uid, name));
      }
      LogFusion(LogLevel::kBasic, [&] {
        return fmt::format("[store] shared plan segment {} is unusable ({}); recreating it", name,
                           why);
      });
      if (recreated != nullptr) *recreated = true;
    }

    if (!options.create) {
      return Status::NotFound(fmt::format("no shared plan segment {}", name));
    }
    bip::permissions permissions(static_cast<int>(mode));
    mapping->object =
        bip::shared_memory_object(bip::create_only, name.c_str(), bip::read_write, permissions);
    mapping->object.truncate(static_cast<bip::offset_t>(options.bytes));
    const int fd = mapping->object.get_mapping_handle().handle;
    // The fixed part is touched at once; reserve it so that a full /dev/shm fails here.
    if (int err = ::posix_fallocate(fd, 0, static_cast<off_t>(shm::kDataOffset)); err != 0) {
      bip::shared_memory_object::remove(name.c_str());
      return Status::Unavailable(
          fmt::format("no room for {} in /dev/shm: {}", name, std::strerror(err)));
    }
    mapping->region = bip::mapped_region(mapping->object, bip::read_write);
    auto* header = static_cast<shm::SegmentHeader*>(mapping->region.get_address());
    // ftruncate gave zeros: buckets empty, claims free, state kInitializing.
    header->magic = shm::kSegmentMagic;
    header->layout_version = shm::kSegmentLayoutVersion;
    header->data_offset = static_cast<uint32_t>(shm::kDataOffset);
    header->total_bytes = options.bytes;
    header->identity = identity;
    header->created_ms = static_cast<uint64_t>(NowUnixMillis());
    header->creator_pid = static_cast<uint32_t>(::getpid());
    header->top.store(shm::kDataOffset, std::memory_order_relaxed);
    header->state.store(shm::kReady, std::memory_order_release);
    segment->fd_ = fd;
    segment->base_ = static_cast<uint8_t*>(mapping->region.get_address());
    segment->size_ = options.bytes;
    segment->mapping_ = std::move(mapping);
    segment->guard_ = std::make_unique<shm::MappingGuard>(segment->base_, segment->size_);
    *out = std::move(segment);
    return Status::Ok();
  } catch (const bip::interprocess_exception& e) {
    return Status::Unavailable(fmt::format("shared memory {}: {}", name, e.what()));
  }
}

SharedSegment::~SharedSegment() = default;

bool SharedSegment::Reserve(uint64_t bytes, uint64_t* offset) {
  shm::SegmentHeader& h = header();
  const uint64_t size =
      (bytes + shm::kEntryAlignment - 1) / shm::kEntryAlignment * shm::kEntryAlignment;
  const uint64_t at = h.top.fetch_add(size, std::memory_order_relaxed);
  if (at > size_ || size > size_ - at) {
    h.publish_skipped.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  // Reserving the pages now turns a full /dev/shm into a refusal here rather than SIGBUS when
  // the entry is written. The bytes at [at, at + size) are then lost, as on any failure after
  // the fetch_add: nothing points to them.
  if (::posix_fallocate(fd_, static_cast<off_t>(at), static_cast<off_t>(size)) != 0) {
    h.publish_skipped.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  *offset = at;
  return true;
}

bool SharedSegment::removed() const {
  struct stat st {};
  return ::fstat(fd_, &st) == 0 && st.st_nlink == 0;
}

void SharedSegment::MarkBroken() { header().state.store(shm::kBroken, std::memory_order_release); }

}  // namespace ember
