// ReconnectingPlans: the plan backing of a process that started while its PostgreSQL server was
// out of reach (issue 19, "the server unreachable at start"). It runs from memory, as a process
// without a plan database does, while a thread of its own opens PersistentPlans again with a
// backoff that doubles from 0.1 s to 30 s; once the server answers, the opened backing takes
// over at the next call from the engine and is told, in order, what happened meanwhile: the
// plans the search found (so they are published), the triggers they gained and the
// explorations (so the fleet's budget counts them). The first ops met meanwhile are read from
// the server at their next segment (Generation moves, and Refresh loads them), so the plans
// other hosts found for them join the store.
//
// While the server is out of reach: no plan is read; the workload's budget is the configured
// cap counted in this process; up to kMaxHeld events are kept for the server (beyond that they
// are dropped and counted, and said once). A process that exits before the server is back
// stores nothing, and says how much. Kernels are not kept: a backend asks for the kernel store
// when the device starts, before the server was there, so such a process's compiled kernels
// stay in memory (the next process compiles them again and stores them). Device facts are kept:
// remembered in memory meanwhile, then handed to the opened backing's store; so are graph
// recipes.
//
// Threading: the PlanBacking methods run under the device server's lock, like every backing
// (Flush and FlushForSync may run without it, as for PersistentPlans); the connecting thread
// only opens the backing and hands it over under mu_: it never calls into it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

#include "engine/core/status.h"
#include "store/persistent_plans.h"

namespace ember {

class ReconnectingPlans final : public PlanBacking {
 public:
  static constexpr size_t kMaxHeld = 4096;

  // `failure`: why PersistentPlans::Open failed just now (said once, with what happens next).
  ReconnectingPlans(PersistentPlansOptions options, const Status& failure);
  ~ReconnectingPlans() override;

  void Load(const OperationIr& first, const AddPlan& add) override;
  uint64_t Generation() override;
  void Refresh(const OperationIr& first, const AddPlan& add,
               const AddTrigger& add_trigger) override;
  void OnPlanAdded(PlanId id, const ExecutionPlan& plan, double explore_ms) override;
  void OnTriggerAdded(PlanId id, const ExecutionPlan& plan,
                      const ExecutionTrigger& trigger) override;
  void OnHit(PlanId id) override;
  DeviceFactStore* AttachFacts() override { return &facts_; }
  GraphRecipeStore* AttachRecipes() override { return &recipes_; }
  void OnPlanRunning(PlanId id) override;
  void OnPlanRan(PlanId id) override;
  bool ExplorationAllowed() override;
  void OnExploration() override;
  void OnUnfusedRun() override;
  void Flush() override;
  void FlushForSync() override;
  void Close() override;
  BackingCounters counters() const override;

  // Whether the server answered and its backing took over (tests).
  bool connected() const { return connected_.load(); }

 private:
  struct PlanFound {
    PlanId id;
    ExecutionPlan plan;
    double explore_ms;
  };
  struct TriggerFound {
    PlanId id;
    ExecutionPlan plan;
    ExecutionTrigger trigger;
  };
  struct Explored {};
  using Event = std::variant<PlanFound, TriggerFound, Explored>;

  // The fact store the backend gets: memory while the server is out of reach, the opened
  // backing's (PersistentFacts) once it took over, which is then given what was remembered
  // meanwhile. Unlike kernels, facts need nothing at the device's start.
  class Facts final : public DeviceFactStore {
   public:
    explicit Facts(ReconnectingPlans& owner) : owner_(owner) {}
    std::optional<std::string> Find(std::string_view name) override;
    void Remember(std::string_view name, std::string_view value) override;
    // Hands what was remembered meanwhile to `inner`'s store.
    void HandOver(PersistentPlans& inner);

   private:
    ReconnectingPlans& owner_;
    std::map<std::string, std::string, std::less<>> meanwhile_;
  };

  // The recipe store the backend gets, like Facts: memory while the server is out of reach
  // (LoadAll then has only what this process remembered), the opened backing's
  // (PersistentRecipes) once it took over, which is then given what was remembered meanwhile.
  class Recipes final : public GraphRecipeStore {
   public:
    explicit Recipes(ReconnectingPlans& owner) : owner_(owner) {}
    std::vector<GraphRecipe> LoadAll() override;
    void Remember(const GraphRecipe& recipe) override;
    // Hands what was remembered meanwhile to `inner`'s store.
    void HandOver(PersistentPlans& inner);

   private:
    ReconnectingPlans& owner_;
    std::map<uint64_t, GraphRecipe> meanwhile_;
  };

  // The connecting thread's state, shared with it: at exit the thread may still be inside a
  // connection attempt, and is then left to finish on its own.
  struct Connector {
    std::mutex mu;
    std::condition_variable cv;
    bool stop = false;
    bool done = false;
    std::unique_ptr<PersistentPlans> opened;  // handed over once open
    std::atomic<bool> ready{false};           // opened is set
  };
  static void Connect(std::shared_ptr<Connector> connector, PersistentPlansOptions options);

  // Takes over the opened backing when there is one: replays the events into it. Returns the
  // backing in charge, or null while the server is out of reach. Under the device server's lock.
  PersistentPlans* Inner();
  size_t HeldPlans() const;  // the PlanFound events among held_
  void Hold(Event event);
  void StopConnecting();

  const PersistentPlansOptions options_;
  std::shared_ptr<Connector> connector_ = std::make_shared<Connector>();
  std::thread thread_;
  std::atomic<bool> connected_{false};
  std::unique_ptr<PersistentPlans> inner_;
  std::mutex inner_mu_;  // guards inner_'s pointer for Flush, which runs without the lock
  std::deque<Event> held_;
  size_t dropped_ = 0;
  bool drop_said_ = false;
  // The first ops met before the server answered: Load-ed from it at their next Refresh.
  std::vector<OperationIr> not_loaded_;
  int64_t explored_meanwhile_ = 0;
  bool closed_ = false;
  Facts facts_{*this};
  Recipes recipes_{*this};
};

}  // namespace ember
