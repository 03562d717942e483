// SharedSegment: one named POSIX shared-memory segment per (plan database, environment),
// created, checked and mapped with Boost.Interprocess (shared_memory_object, mapped_region).
// It owns the fixed part of the layout (shared_segment_layout.h) and the bump allocator; what
// the entries mean is SharedPlanTier's business (Note [Shared plan segment]).
//
// Opening is serialized between processes by an flock on a companion object
// ("<name>.lock"), which the kernel releases when its holder dies, so a creator killed half-way
// never blocks anyone: the next opener finds the header not kReady and recreates the segment.
// A segment that is of another layout version, inconsistent, or marked kBroken is removed and
// created afresh under that lock; processes still mapping the old one see kBroken and reopen.
//
// Sizing: the object has `bytes` of address space, but pages are reserved (posix_fallocate)
// only when an entry is written, so an empty segment costs almost nothing, and a full /dev/shm
// surfaces as "no room" for that entry instead of SIGBUS on first touch. An existing segment of
// another size is used as it is (processes configured differently still share it), unless it
// is smaller than the fixed part or larger than kMaxSegmentBytes: then it is recreated.
//
// Permissions follow the database file: the segment and its lock get the database's mode
// (read/write bits). An existing segment or lock is checked on every open under Note [Shared
// segment trust] (shared_segment_trust.h): one that another user owns or could write is refused
// (InvalidArgument, with the fix), never used or removed, and the engine keeps SQLite alone.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/status.h"
#include "store/shm/mapping_guard.h"
#include "store/shm/shared_segment_layout.h"

namespace ember {

struct SharedSegmentOptions {
  std::string database_path;  // the plan database; its canonical path names the segment
  std::string environment;    // EnvironmentStableId of the plans kept there
  uint64_t bytes = uint64_t{64} << 20;
  // How long Open may wait for another process that is opening or creating the segment.
  uint32_t open_wait_ms = 2000;
  // False: only open an existing usable segment (NotFound otherwise); never create, recreate
  // or remove anything (tools that inspect a live segment).
  bool create = true;
  // Accept a segment and lock that the group or others can write ([store]
  // allow_shared_writable; Note [Shared segment trust]).
  bool allow_shared_writable = false;
};

class SharedSegment {
 public:
  // Opens the segment of `options`, creating or recreating it as needed. *recreated (optional)
  // says whether an unusable one was replaced. InvalidArgument when the segment or its lock may
  // not be trusted (Note [Shared segment trust]); Unavailable when shared memory cannot be used
  // (no /dev/shm, no room, lock held too long). The message is complete: it names the object,
  // says why and how to fix it.
  static Status Open(const SharedSegmentOptions& options, std::unique_ptr<SharedSegment>* out,
                     bool* recreated = nullptr);
  // The object name for a database (any spelling of its path) and environment:
  // "ember-plans-<16 hex digits of the path's hash>-<8 of the environment's>".
  static std::string NameFor(const std::string& database_path, std::string_view environment);
  // Removes the segment and its lock object (tests, tools). OK when there was none.
  static Status Remove(const std::string& database_path, std::string_view environment);
  // Marks the segments of every environment of a database broken, so that live workers drop
  // them and the next opener starts afresh (after plans were added to or removed from the
  // database behind the segment's back). *marked (optional) gets how many.
  static Status InvalidateAll(const std::string& database_path, size_t* marked = nullptr);
  // Why an object of `bytes` bytes cannot be a segment (smaller than the fixed part, larger
  // than kMaxSegmentBytes), or empty when its size is fine. Such an object is recreated.
  static std::string UnusableSize(uint64_t bytes);
  // What the header of the segment of (database, environment) says it belongs to (a hash of the
  // canonical path and the environment; a name clash shows as a mismatch).
  static uint64_t IdentityFor(const std::string& database_path, std::string_view environment);
  // The names of the segments of every environment of a database (found in /dev/shm).
  static std::vector<std::string> NamesFor(const std::string& database_path);
  // Removes the segments of every environment of a database (tests, tools); *removed
  // (optional) gets how many there were.
  static Status RemoveAll(const std::string& database_path, size_t* removed = nullptr);

  ~SharedSegment();
  SharedSegment(const SharedSegment&) = delete;
  SharedSegment& operator=(const SharedSegment&) = delete;

  const std::string& name() const { return name_; }
  uint64_t size() const { return size_; }
  shm::SegmentHeader& header() const { return *reinterpret_cast<shm::SegmentHeader*>(base_); }
  std::atomic<uint64_t>& bucket(uint64_t first_op_hash) const {
    return reinterpret_cast<std::atomic<uint64_t>*>(
        base_ + shm::kBucketsOffset)[first_op_hash & (shm::kBucketCount - 1)];
  }
  shm::ClaimSlot& claim(size_t slot) const {
    return reinterpret_cast<shm::ClaimSlot*>(base_ + shm::kClaimsOffset)[slot];
  }
  uint8_t* at(uint64_t offset) const { return base_ + offset; }

  // Takes `bytes` (rounded up to kEntryAlignment) for a new entry and makes sure its pages
  // exist. False when the segment or /dev/shm is full: counted in the header and never retried
  // for this entry.
  bool Reserve(uint64_t bytes, uint64_t* offset);

  bool broken() const { return header().state.load(std::memory_order_acquire) != shm::kReady; }
  // Whether another process shrank the object under this mapping, which now reads zeros (Note
  // [Truncated segment], mapping_guard.h); broken() is then true as well.
  bool lost() const { return guard_ != nullptr && guard_->lost(); }
  // Whether the object was removed from /dev/shm while this process maps it (rm, `ember-plans
  // shm rm`, a clean-up of /dev/shm): its plans are this process's alone from then on, and new
  // siblings make a new segment under the name. One fstat.
  bool removed() const;
  // Marks the segment unusable for every process (the next opener recreates it).
  void MarkBroken();

 private:
  struct Mapping;
  SharedSegment() = default;

  std::string name_;
  int fd_ = -1;  // the object's descriptor, for fallocate
  uint8_t* base_ = nullptr;
  uint64_t size_ = 0;
  std::unique_ptr<Mapping> mapping_;
  std::unique_ptr<shm::MappingGuard> guard_;  // after mapping_: unregistered before the unmap
};

}  // namespace ember
