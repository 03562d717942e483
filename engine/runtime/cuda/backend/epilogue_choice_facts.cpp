#include "engine/runtime/cuda/backend/epilogue_choice_facts.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace ember::cuda {
namespace {

// The next space-separated field of `text`, consumed; "" at the end.
std::string_view NextField(std::string_view& text) {
  const size_t end = std::min(text.find(' '), text.size());
  const std::string_view field = text.substr(0, end);
  text.remove_prefix(std::min(end + 1, text.size()));
  return field;
}

std::optional<double> Milliseconds(std::string_view field) {
  double value = 0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (error != std::errc() || end != field.data() + field.size()) return std::nullopt;
  if (!std::isfinite(value) || value < 0) return std::nullopt;
  return value;
}

}  // namespace

std::string FactEpilogueChoiceStore::FactName(const EpilogueShapeClass& shape_class) {
  return "matmul-epilogue " + shape_class.ToString();
}

std::string FactEpilogueChoiceStore::Encode(const EpilogueChoice& choice) {
  return fmt::format("{} {} {}", EpilogueVariantName(choice.variant), choice.cublaslt_ms,
                     choice.kernel_ms);
}

std::optional<EpilogueChoice> FactEpilogueChoiceStore::Decode(std::string_view value) {
  if (value.empty() || value.back() == ' ') return std::nullopt;  // exactly three fields
  const std::string_view variant = NextField(value);
  const std::optional<double> cublaslt_ms = Milliseconds(NextField(value));
  const std::optional<double> kernel_ms = Milliseconds(NextField(value));
  if (!cublaslt_ms || !kernel_ms || !value.empty()) return std::nullopt;
  EpilogueChoice choice{.cublaslt_ms = *cublaslt_ms, .kernel_ms = *kernel_ms};
  if (variant == EpilogueVariantName(EpilogueVariant::kCublasLt)) {
    choice.variant = EpilogueVariant::kCublasLt;
  } else if (variant == EpilogueVariantName(EpilogueVariant::kKernel)) {
    choice.variant = EpilogueVariant::kKernel;
  } else {
    return std::nullopt;
  }
  return choice;
}

std::optional<EpilogueChoice> FactEpilogueChoiceStore::Find(const EpilogueShapeClass& shape_class) {
  if (std::optional<EpilogueChoice> known = memory_.Find(shape_class)) return known;
  if (facts_ == nullptr) return std::nullopt;
  const std::optional<std::string> value = facts_->Find(FactName(shape_class));
  if (!value) return std::nullopt;
  std::optional<EpilogueChoice> stored = Decode(*value);
  if (stored) memory_.Remember(shape_class, *stored);
  return stored;
}

void FactEpilogueChoiceStore::Remember(const EpilogueShapeClass& shape_class,
                                       const EpilogueChoice& choice) {
  memory_.Remember(shape_class, choice);
  if (facts_ != nullptr) facts_->Remember(FactName(shape_class), Encode(choice));
}

}  // namespace ember::cuda
