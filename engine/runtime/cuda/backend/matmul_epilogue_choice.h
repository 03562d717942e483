// The matmul epilogue choice's types (Note [Epilogue choice], matmul_epilogue.h): the shape
// class a choice is made for, the choice, and where choices are kept.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include <ember/dtype.h>
#include "codegen/blas_epilogue.h"

namespace ember::cuda {

// Stored numbers (the plan database keeps them): never renumber.
enum class EpilogueVariant : uint8_t { kCublasLt = 0, kKernel = 1 };
std::string_view EpilogueVariantName(EpilogueVariant variant);  // "cublaslt", "kernel"

struct EpilogueShapeClass {
  std::string device;  // "NVIDIA H200/sm_90/cublasLt-13.1.0"
  DType dtype = DType::kF32;
  codegen::BlasEpilogueKind kind = codegen::BlasEpilogueKind::kNone;
  bool alpha = false;
  int m_log2 = 0, n_log2 = 0, k_log2 = 0, batch_log2 = 0;  // ceil(log2(x))

  auto operator<=>(const EpilogueShapeClass&) const = default;
  // "NVIDIA H200/sm_90/cublasLt-13.1.0 f32 bias+relu m<=2^13 n<=2^12 k<=2^12 batch<=2^0".
  std::string ToString() const;
};

// ceil(log2(max(x, 1))).
int CeilLog2(int64_t x);

struct EpilogueChoice {
  EpilogueVariant variant = EpilogueVariant::kKernel;
  double cublaslt_ms = 0;  // the timed runs (0: not run, as after a cublaslt failure)
  double kernel_ms = 0;
};

// Where choices outlive the launch: in memory, or as device facts of the plan database
// (FactEpilogueChoiceStore, epilogue_choice_facts.h). Called under the backend's lock.
class EpilogueChoiceStore {
 public:
  virtual ~EpilogueChoiceStore() = default;
  virtual std::optional<EpilogueChoice> Find(const EpilogueShapeClass& shape_class) = 0;
  virtual void Remember(const EpilogueShapeClass& shape_class, const EpilogueChoice& choice) = 0;
};

class InMemoryEpilogueChoiceStore final : public EpilogueChoiceStore {
 public:
  std::optional<EpilogueChoice> Find(const EpilogueShapeClass& shape_class) override;
  void Remember(const EpilogueShapeClass& shape_class, const EpilogueChoice& choice) override;
  size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::map<EpilogueShapeClass, EpilogueChoice> choices_;  // Guarded by mutex_.
};

}  // namespace ember::cuda
