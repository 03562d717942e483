// The shared-memory tier between real processes (Note [Shared plan segment],
// store/shm/shared_plan_tier.h): writers killed with SIGKILL at every step of a publication, eight
// concurrent publishers and readers, claims of dead processes.
#include <sys/wait.h>

#include <csignal>
#include <map>
#include <optional>
#include <set>

#include "store/shm/process_token.h"
#include "store/shm/shared_segment_layout.h"
#include "tests/store/shm_test_util.h"

namespace ember {
namespace {

using test::Key;
using test::Payload;
using Clock = std::chrono::steady_clock;

class ShmProcesses : public test::ShmFixture {};

uint64_t IdOf(const SharedPlanTier::Entry& e) {
  uint64_t n = 0;
  std::memcpy(&n, e.encoded_plan.data(), sizeof(n));
  return n;
}

TEST_F(ShmProcesses, AWriterKilledAtAnyStepOfAPublicationLeavesNothingPartialAndBlocksNobody) {
  auto tier = OpenTier();
  using Step = SharedPlanTier::PublishStep;
  const std::vector<Step> steps = {Step::kReserved, Step::kHalfWritten, Step::kWritten,
                                   Step::kLinked, Step::kDone};
  for (size_t i = 0; i < steps.size(); ++i) {
    const uint64_t hash = 100 + i;
    // The child also holds a claim on the hash when it dies.
    const pid_t child = test::ForkCheck([&] {
      std::unique_ptr<SharedPlanTier> t;
      if (!SharedPlanTier::Open(Options(), &t).ok()) return false;
      t->Claim(hash);
      t->SetPublishHookForTesting([&](Step step) {
        if (step == steps[i]) ::kill(::getpid(), SIGKILL);
      });
      t->Publish(hash, Key(hash), Payload(hash, 5000));
      return false;  // never reached
    });
    // Not reaped yet: the dead child is a zombie, which must count as dead too.
    while (true) {
      siginfo_t info{};
      if (::waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT) == 0) break;
    }
    const auto start = Clock::now();
    // Its claim is void at once: no waiting for the expiry.
    EXPECT_EQ(tier->Claim(hash), SharedPlanTier::ClaimOutcome::kMine) << "step " << i;
    EXPECT_FALSE(tier->WaitForSibling(hash + 1000, std::chrono::milliseconds(5000)));
    std::vector<SharedPlanTier::Entry> entries;
    ASSERT_TRUE(tier->Lookup(hash, &entries).ok()) << "step " << i;
    const bool linked = steps[i] == Step::kLinked || steps[i] == Step::kDone;
    ASSERT_EQ(entries.size(), linked ? 1u : 0u) << "step " << i;
    if (linked) {
      EXPECT_EQ(entries[0].encoded_plan, Payload(hash, 5000));
    }
    // Others keep publishing and reading.
    EXPECT_EQ(tier->Publish(hash, Key(hash + 1), Payload(hash + 1)),
              SharedPlanTier::PublishOutcome::kPublished);
    ASSERT_TRUE(tier->Lookup(hash, &entries).ok());
    EXPECT_EQ(entries.size(), linked ? 2u : 1u);
    EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(1000));
    EXPECT_EQ(tier->corrupt_entries(), 0u);
    EXPECT_EQ(test::WaitChild(child), test::kKilledBySignal + SIGKILL) << "step " << i;
    tier->Release(hash);
  }
  EXPECT_FALSE(tier->broken());
}

// Eight siblings run through 40 first ops (claim, publish or wait, read), the last of them the
// victim's; the victim claims it at once and dies by SIGKILL at one point of its claim or its
// publication. Every sibling finishes in time with exactly the one plan per first op, never a
// partial one, and the segment stays usable. (The point list is every place Claim, Publish and
// Release write the segment: SharedPlanTier's test hooks.)
TEST_F(ShmProcesses, AWorkerKilledAtEveryClaimAndPublishPointWithEightSiblingsBlocksNoneOfThem) {
  constexpr int kSiblings = 8;
  constexpr uint64_t kHashes = 40;
  constexpr uint64_t kVictims = 1000;  // the victim's first op, last in the siblings' list
  using Claim = SharedPlanTier::ClaimStep;
  using Publish = SharedPlanTier::PublishStep;
  struct Point {
    std::optional<Claim> claim;
    std::optional<Publish> publish;
  };
  const std::vector<Point> points = {
      {Claim::kOwned, {}},      {Claim::kNamed, {}},         {Claim::kClaimed, {}},
      {{}, Publish::kReserved}, {{}, Publish::kHalfWritten}, {{}, Publish::kWritten},
      {{}, Publish::kLinked},   {{}, Publish::kDone},        {Claim::kReleasing, {}}};
  for (size_t p = 0; p < points.size(); ++p) {
    const uint64_t base = 10000 * (p + 1);
    const uint64_t victims = base + kVictims;
    { auto tier = OpenTier(uint64_t{16} << 20); }
    // The siblings come to the victim's first op only once it is dead (one byte each on this
    // pipe), so that the victim's claim is the one met; until then they run beside it.
    int dead[2];
    ASSERT_EQ(::pipe(dead), 0);
    const pid_t victim = test::ForkCheck([&] {
      std::unique_ptr<SharedPlanTier> t;
      if (!SharedPlanTier::Open(Options(uint64_t{16} << 20), &t).ok()) return false;
      const Point& point = points[p];
      t->SetClaimHookForTesting([&](Claim step) {
        if (point.claim == step) ::kill(::getpid(), SIGKILL);
      });
      t->SetPublishHookForTesting([&](Publish step) {
        if (point.publish == step) ::kill(::getpid(), SIGKILL);
      });
      if (t->Claim(victims) == SharedPlanTier::ClaimOutcome::kMine) {
        t->Publish(victims, Key(victims), Payload(victims, 3000));
        t->Release(victims);
      }
      return false;  // never reached
    });
    const auto start = Clock::now();
    std::vector<pid_t> siblings;
    for (int s = 0; s < kSiblings; ++s) {
      siblings.push_back(test::ForkCheck([&, s] {
        std::unique_ptr<SharedPlanTier> t;
        if (!SharedPlanTier::Open(Options(uint64_t{16} << 20), &t).ok()) return false;
        // The number of whole plans for `hash` (one per key), or -1 for a wrong one.
        const auto plans = [&](uint64_t hash) {
          std::vector<SharedPlanTier::Entry> entries;
          if (!t->Lookup(hash, &entries).ok()) return -1;
          for (const auto& e : entries) {
            if (e.key != Key(hash) || e.encoded_plan != Payload(hash, 3000)) return -1;
          }
          return static_cast<int>(entries.size());
        };
        for (uint64_t h = 0; h <= kHashes; ++h) {
          char byte = 0;
          if (h == kHashes && ::read(dead[0], &byte, 1) != 1) return false;
          const uint64_t hash = h == kHashes ? victims : base + (h * 7 + s) % kHashes;
          int found = plans(hash);
          for (int attempt = 0; found == 0 && attempt < 4; ++attempt) {
            if (t->Claim(hash) == SharedPlanTier::ClaimOutcome::kMine) {
              t->Publish(hash, Key(hash), Payload(hash, 3000));
              t->Release(hash);
            } else {
              t->WaitForSibling(hash, std::chrono::milliseconds(2000));
            }
            found = plans(hash);
          }
          if (found != 1) return false;
        }
        return t->corrupt_entries() == 0 && !t->broken();
      }));
    }
    siginfo_t info{};
    ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(victim), &info, WEXITED | WNOWAIT), 0);
    const std::string bytes(kSiblings, 'x');
    ASSERT_EQ(::write(dead[1], bytes.data(), bytes.size()), kSiblings);
    for (size_t s = 0; s < siblings.size(); ++s) {
      EXPECT_EQ(test::WaitChild(siblings[s]), 0) << "point " << p << ", sibling " << s;
    }
    ::close(dead[0]);
    ::close(dead[1]);
    // Well under the claim's expiry: a dead claimer is seen as dead, not waited out.
    EXPECT_LT(Clock::now() - start, SharedPlanTier::kClaimTtl) << "point " << p;
    const int victim_end = test::WaitChild(victim);
    EXPECT_EQ(victim_end, test::kKilledBySignal + SIGKILL) << "point " << p;
    auto tier = OpenTier(uint64_t{16} << 20);
    EXPECT_FALSE(tier->broken());
    std::vector<SharedPlanTier::Entry> entries;
    ASSERT_TRUE(tier->Lookup(victims, &entries).ok());
    ASSERT_EQ(entries.size(), 1u) << "point " << p;
    EXPECT_EQ(entries[0].encoded_plan, Payload(victims, 3000));
  }
}

TEST_F(ShmProcesses, EightProcessesPublishingAndReadingLoseNothingAndSeeOnePlanPerKey) {
  constexpr int kProcesses = 8;
  constexpr uint64_t kHashes = 40;
  constexpr uint64_t kPerProcess = 120;
  { auto tier = OpenTier(uint64_t{16} << 20); }  // created once, so all children share it
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    children.push_back(test::ForkCheck([&, p] {
      std::unique_ptr<SharedPlanTier> t;
      if (!SharedPlanTier::Open(Options(uint64_t{16} << 20), &t).ok()) return false;
      for (uint64_t j = 0; j < kPerProcess; ++j) {
        // Own keys, plus keys every process publishes (the same plan found by all).
        const uint64_t own = 1000000 + p * 10000 + j;
        const uint64_t shared = j % 10;
        if (t->Publish(own % kHashes, Key(own), Payload(own)) !=
            SharedPlanTier::PublishOutcome::kPublished) {
          return false;
        }
        if (t->Publish(shared % kHashes, Key(shared), Payload(shared)) !=
            SharedPlanTier::PublishOutcome::kPublished) {
          return false;
        }
        // Read while others write: every entry read must be whole.
        std::vector<SharedPlanTier::Entry> entries;
        if (!t->Lookup(j % kHashes, &entries).ok()) return false;
        for (const auto& e : entries) {
          if (e.encoded_plan != Payload(IdOf(e))) return false;
        }
      }
      return t->corrupt_entries() == 0;
    }));
  }
  for (pid_t child : children) EXPECT_EQ(test::WaitChild(child), 0);

  auto tier = OpenTier(uint64_t{16} << 20);
  std::set<uint64_t> seen;
  for (uint64_t h = 0; h < kHashes; ++h) {
    std::vector<SharedPlanTier::Entry> entries;
    ASSERT_TRUE(tier->Lookup(h, &entries).ok());
    for (const auto& e : entries) {
      EXPECT_TRUE(seen.insert(IdOf(e)).second) << "key " << IdOf(e) << " twice";
      EXPECT_EQ(e.key, Key(IdOf(e)));
      EXPECT_EQ(IdOf(e) % kHashes, h);
    }
  }
  EXPECT_EQ(seen.size(), kProcesses * kPerProcess + 10);
  EXPECT_EQ(tier->segment().header().entries.load(), 2 * kProcesses * kPerProcess);
  EXPECT_EQ(tier->generation(), 2 * kProcesses * kPerProcess);
}

TEST_F(ShmProcesses, ASiblingWaitsForTheClaimersPlanInsteadOfExploring) {
  auto tier = OpenTier();
  ASSERT_EQ(tier->Claim(77), SharedPlanTier::ClaimOutcome::kMine);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = test::ForkCheck([&] {
    std::unique_ptr<SharedPlanTier> t;
    if (!SharedPlanTier::Open(Options(), &t).ok()) return false;
    if (t->Claim(77) != SharedPlanTier::ClaimOutcome::kOther) return false;
    const char ready = 'r';
    if (::write(pipe_fds[1], &ready, 1) != 1) return false;
    const auto start = Clock::now();
    if (!t->WaitForSibling(77, std::chrono::milliseconds(10000))) return false;
    std::vector<SharedPlanTier::Entry> entries;
    return t->Lookup(77, &entries).ok() && entries.size() == 1 &&
           Clock::now() - start < std::chrono::milliseconds(5000);
  });
  char ready = 0;
  ASSERT_EQ(::read(pipe_fds[0], &ready, 1), 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  ASSERT_EQ(tier->Publish(77, Key(77), Payload(77)), SharedPlanTier::PublishOutcome::kPublished);
  tier->Release(77);
  EXPECT_EQ(test::WaitChild(child), 0);
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
}

TEST_F(ShmProcesses, AWaiterStopsWaitingWhenTheClaimIsReleasedWithoutAPlan) {
  auto tier = OpenTier();
  const pid_t child = test::ForkCheck([&] {
    std::unique_ptr<SharedPlanTier> t;
    if (!SharedPlanTier::Open(Options(), &t).ok()) return false;
    t->Claim(88);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    t->Release(88);  // e.g. its segment ran unfused: no plan is coming
    std::this_thread::sleep_for(std::chrono::milliseconds(2000));
    return true;
  });
  // Wait until the child's claim is visible.
  const auto seen_by = Clock::now() + std::chrono::seconds(5);
  while (tier->Claim(88) == SharedPlanTier::ClaimOutcome::kMine && Clock::now() < seen_by) {
    tier->Release(88);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const auto start = Clock::now();
  EXPECT_FALSE(tier->WaitForSibling(88, std::chrono::milliseconds(10000)));
  EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(1500));
  EXPECT_EQ(test::WaitChild(child), 0);
}

TEST(ProcessToken, NamesThisProcessAndTellsDeadFromAlive) {
  const uint64_t me = SelfProcessToken();
  EXPECT_EQ(ProcessTokenPid(me), ::getpid());
  EXPECT_TRUE(ProcessTokenAlive(me));
  // The same pid with another start time is a recycled pid: not the claimer.
  EXPECT_FALSE(ProcessTokenAlive(me ^ 1));
  const pid_t child = test::ForkCheck([] { return true; });
  siginfo_t info{};
  ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT), 0);
  const uint64_t zombie = static_cast<uint64_t>(child) << 32;
  EXPECT_FALSE(ProcessTokenAlive(zombie));
  test::WaitChild(child);
  EXPECT_FALSE(ProcessTokenAlive(zombie));
}

}  // namespace
}  // namespace ember
