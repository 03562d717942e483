#include "store/persistent_facts.h"

#include <utility>

#include <fmt/format.h>

#include "engine/core/log.h"

namespace ember {

PersistentFacts::PersistentFacts(DatabaseReader& db, SharedTierClient& shm, PlanWriter& writer)
    : db_(db), shm_(shm), writer_(writer) {}

bool PersistentFacts::ReadAll() {
  PlanRepository* reader = db_.Current();
  if (reader == nullptr) return false;  // paused, stopped or closed: asked again later
  ++reads_;
  LoadedDeviceFacts loaded;
  if (Status s = reader->LoadDeviceFacts(db_.environment(), &loaded); !s.ok()) {
    if (!failure_said_) {
      failure_said_ = true;
      LogFusion(LogLevel::kBasic, [&] {
        return fmt::format("[store] reading device facts failed ({}); measuring instead",
                           s.ToString());
      });
    }
    return true;
  }
  damaged_ = loaded.damaged;
  if (damaged_ > 0 && !damaged_said_) {
    damaged_said_ = true;
    LogFusion(LogLevel::kBasic, [&] {
      return fmt::format(
          "[store] {} device fact row(s) of {} failed their checksum; ignored (measured again)",
          damaged_, db_.where());
    });
  }
  for (DeviceFact& fact : loaded.facts) {
    facts_.try_emplace(std::move(fact.name), std::move(fact.value));  // memory wins
  }
  return true;
}

std::optional<std::string> PersistentFacts::Find(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameBytes) return std::nullopt;  // never stored
  const bool read_now = !loaded_ && ReadAll();
  loaded_ = loaded_ || read_now;
  const std::string key(name);
  if (auto it = facts_.find(key); it != facts_.end()) return it->second;
  if (std::string value; shm_.LookupFact(name, &value)) {
    return facts_.emplace(key, std::move(value)).first->second;
  }
  // Once per name: what was stored since the first read (Note [Device facts]).
  if (read_now || !reread_.insert(key).second || !ReadAll()) return std::nullopt;
  if (auto it = facts_.find(key); it != facts_.end()) return it->second;
  return std::nullopt;
}

void PersistentFacts::Remember(std::string_view name, std::string_view value) {
  if (Status s = PlanRepository::CheckDeviceFact(name, value); !s.ok()) {
    if (!refusal_said_) {
      refusal_said_ = true;
      LogFusion(LogLevel::kBasic,
                [&] { return fmt::format("[store] not remembered: {}", s.message()); });
    }
    return;
  }
  auto [it, added] = facts_.try_emplace(std::string(name), value);
  if (!added && it->second == value) return;
  it->second = std::string(value);
  shm_.PublishFact(name, value);
  writer_.Fact({.name = it->first, .value = it->second});
}

}  // namespace ember
