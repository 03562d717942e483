#include "engine/runtime/cuda/backend/matmul_epilogue_choice.h"

#include <fmt/format.h>

namespace ember::cuda {

std::string_view EpilogueVariantName(EpilogueVariant variant) {
  return variant == EpilogueVariant::kCublasLt ? "cublaslt" : "kernel";
}

int CeilLog2(int64_t x) {
  int log = 0;
  while ((int64_t{1} << log) < x && log < 62) ++log;
  return log;
}

std::string EpilogueShapeClass::ToString() const {
  return fmt::format("{} {} {}{} m<=2^{} n<=2^{} k<=2^{} batch<=2^{}", device, DTypeName(dtype),
                     codegen::BlasEpilogueKindName(kind), alpha ? "+alpha" : "", m_log2, n_log2,
                     k_log2, batch_log2);
}

std::optional<EpilogueChoice> InMemoryEpilogueChoiceStore::Find(
    const EpilogueShapeClass& shape_class) {
  std::lock_guard lock(mutex_);
  auto it = choices_.find(shape_class);
  if (it == choices_.end()) return std::nullopt;
  return it->second;
}

void InMemoryEpilogueChoiceStore::Remember(const EpilogueShapeClass& shape_class,
                                           const EpilogueChoice& choice) {
  std::lock_guard lock(mutex_);
  choices_[shape_class] = choice;
}

size_t InMemoryEpilogueChoiceStore::size() const {
  std::lock_guard lock(mutex_);
  return choices_.size();
}

}  // namespace ember::cuda
