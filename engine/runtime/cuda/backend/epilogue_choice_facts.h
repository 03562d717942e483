// FactEpilogueChoiceStore: matmul epilogue choices (Note [Epilogue choice], matmul_epilogue.h)
// kept as device facts (engine/runtime/device_facts.h), so that a warm process runs the variant
// an earlier one measured instead of measuring each shape class again (two extra products and
// a host sync per class: issue 43). Memory answers first; a class memory lacks is asked of the
// fact store once, and what it says is kept in memory.
//
// A fact is "matmul-epilogue <the class's ToString()>" = "<variant> <cublaslt ms> <kernel ms>".
// Its value is data: one that does not parse (an unknown variant, a timing that is not a finite
// number >= 0, anything after the three fields) is nothing, and the class is measured again and
// the fact replaced. A choice is only asked for once cuBLASLt's epilogue has matched the trace,
// so it picks between two variants that both compute the trace (a refused epilogue stays
// refused whatever a fact says); a cublaslt choice that cuBLASLt then refuses runs the kernel
// variant and is replaced (MatmulEpilogues::Run).
//
// Threading: called under the backend's lock, like MatmulEpilogues.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/runtime/cuda/backend/matmul_epilogue_choice.h"
#include "engine/runtime/device_facts.h"

namespace ember::cuda {

class FactEpilogueChoiceStore final : public EpilogueChoiceStore {
 public:
  // Where choices are also kept from now on (null: memory only).
  void UseFacts(DeviceFactStore* facts) { facts_ = facts; }

  std::optional<EpilogueChoice> Find(const EpilogueShapeClass& shape_class) override;
  void Remember(const EpilogueShapeClass& shape_class, const EpilogueChoice& choice) override;
  size_t size() const { return memory_.size(); }

  static std::string FactName(const EpilogueShapeClass& shape_class);
  static std::string Encode(const EpilogueChoice& choice);
  static std::optional<EpilogueChoice> Decode(std::string_view value);

 private:
  InMemoryEpilogueChoiceStore memory_;
  DeviceFactStore* facts_ = nullptr;
};

}  // namespace ember::cuda
