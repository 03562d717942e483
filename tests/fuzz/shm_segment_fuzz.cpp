// A live shared segment (store/shm/shared_plan_tier.h, Note [Shared plan segment]) whose bytes a
// sibling process overwrote with anything — it can write the segment, so it can write garbage
// anywhere in it, the header included. This process keeps its mapping and looks plans up as
// the engine does: every Lookup returns or reports Corruption (marking the segment broken),
// never reads outside the mapping, and every entry it hands out decodes into a valid plan or is
// refused by DecodePlan. Between inputs the segment is put back as it was (a fresh copy of the
// bytes, header included). Input: a little-endian 32-bit offset into the segment, then the
// bytes written there (cut at the segment's end).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "engine/ir/relative.h"
#include "store/codec/plan_codec.h"
#include "store/repository/plan_row_check.h"
#include "store/shm/shared_plan_tier.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/store/real_plans.h"

namespace {

using namespace ember;

constexpr uint64_t kSegmentBytes = uint64_t{256} << 10;
constexpr uint64_t kFirstOps[] = {1, 2, 3, 0x9e3779b97f4a7c15ULL};

struct Live {
  std::string database;
  std::string file;  // /dev/shm/<segment>
  std::unique_ptr<SharedPlanTier> tier;
  std::vector<uint8_t> pristine;
};

void WriteAt(const std::string& file, uint64_t offset, std::span<const uint8_t> bytes) {
  const int fd = ::open(file.c_str(), O_WRONLY);
  if (fd < 0) std::abort();
  if (::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset)) < 0) std::abort();
  ::close(fd);
}

// The segment of a scratch database with a few real plans in it, and a copy of its bytes.
Live& TheSegment() {
  static Live* const live = [] {
    auto* made = new Live();
    made->database = fuzz::ScratchDir() + "/shm-plans.db";
    std::ofstream(made->database).flush();
    ::chmod(made->database.c_str(), 0600);
    if (!SharedPlanTier::Open(
             {.database_path = made->database, .environment = "env-fuzz", .bytes = kSegmentBytes},
             &made->tier)
             .ok()) {
      std::abort();
    }
    made->file = "/dev/shm/" + SharedSegment::NameFor(made->database, "env-fuzz");
    const OpKind kinds[] = {OpKind::kExp, OpKind::kLog, OpKind::kSqrt, OpKind::kTanh};
    for (size_t i = 0; i < std::size(kinds); ++i) {
      const NewPlan row = test::OneOpPlan(kinds[i]);
      ExecutionPlan plan;
      if (!DecodePlanParts(row.ops_blob, row.plan_blob, {}, &plan).ok()) std::abort();
      made->tier->Publish(kFirstOps[i], row.plan_key, EncodePlan(plan));
    }
    std::ifstream in(made->file, std::ios::binary);
    made->pristine.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    std::atexit([] { SharedSegment::RemoveAll(TheSegment().database); });
    return made;
  }();
  return *live;
}

}  // namespace

EMBER_FUZZ_TARGET(shm_segment) {
  Live& live = TheSegment();
  WriteAt(live.file, 0, live.pristine);
  if (data.size() >= 4) {
    const uint64_t offset = (uint64_t{data[0]} | uint64_t{data[1]} << 8 | uint64_t{data[2]} << 16 |
                             uint64_t{data[3]} << 24) %
                            live.pristine.size();
    std::span<const uint8_t> bytes = data.subspan(4);
    if (bytes.size() > live.pristine.size() - offset)
      bytes = bytes.first(live.pristine.size() - offset);
    WriteAt(live.file, offset, bytes);
  }
  for (const uint64_t first_op : kFirstOps) {
    std::vector<SharedPlanTier::Entry> entries;
    if (!live.tier->Lookup(first_op, &entries).ok()) continue;
    for (const SharedPlanTier::Entry& entry : entries) {
      ExecutionPlan plan;
      if (!DecodePlan(entry.encoded_plan, &plan).ok()) continue;
      if (Status s = ValidatePlan(plan); !s.ok()) {
        fuzz::Fail("shm_segment", "a decoded entry fails ValidatePlan: " + s.ToString());
      }
    }
  }
  std::vector<Hash128> keys;
  (void)SharedPlanTier::ListKeys(live.database, "env-fuzz", &keys);
}
