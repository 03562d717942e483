// Matmul: [..., m, k] x [..., k, n] -> [..., m, n] with numpy batch broadcasting.
//
// Both operands are first brought to dense matrices of the compute domain (f32 or i64; a
// dense f32/i64 input is used in place). Float matrices are multiplied by OpenBLAS's sgemm
// (Debian's libopenblas, its kernels picked for the running CPU). OpenBLAS's own threading gives
// results that change with its thread count, so it runs single-threaded (ConfigureBlasThreads,
// kernels.h) and the pool runs one sgemm per band of output rows: the bands depend on the
// shape alone (BlasBand), so a result is the same with 1 or N threads. Integer matrices (no
// BLAS has them) are computed here, each
// block of up to kRowBlock output rows as rank-1 updates in i-k-j order: the innermost loop runs
// along a row of the rhs and of the output, which the compiler vectorizes. The unfused op and
// the fused Matmul trace (fused_bind.cpp) call the same function, so they agree bit for bit.
#include <algorithm>
#include <type_traits>
#include <utility>
#include <vector>

#include <cblas.h>

#include "engine/core/check.h"
#include "engine/runtime/cpu/convert.h"
#include "engine/runtime/cpu/cpu_buffer.h"
#include "engine/runtime/cpu/kernels.h"
#include "engine/runtime/cpu/strided.h"

namespace ember::cpu {
namespace {

constexpr int64_t kRowBlock = 4;

// The elements of `x` as a dense array of T (f32 or i64), and where they are.
template <typename T>
struct DenseOperand {
  std::vector<T> storage;  // empty when `data` points into the tensor
  const T* data = nullptr;
};

template <typename T>
DenseOperand<T> Densify(const TensorHandle& x, ThreadPool& pool) {
  constexpr DType kDense = std::is_same_v<T, float> ? DType::kF32 : DType::kI64;
  DenseOperand<T> dense;
  if (x.dtype == kDense && x.IsContiguous()) {
    dense.data = reinterpret_cast<const T*>(ElementData(x));
    return dense;
  }
  dense.storage.resize(x.NumElements());
  const StridedView view = BroadcastView(x, x.shape);
  T* dst = dense.storage.data();
  pool.ParallelFor(x.NumElements(), kParallelGrain, [&](int64_t begin, int64_t end) {
    const T* loaded;
    if constexpr (std::is_same_v<T, float>) {
      loaded = LoadF32(view, begin, end - begin, dst + begin);
    } else {
      loaded = LoadI64(view, begin, end - begin, dst + begin);
    }
    if (loaded != dst + begin) std::copy(loaded, loaded + (end - begin), dst + begin);
  });
  dense.data = dense.storage.data();
  return dense;
}

// Per output batch dim, the step (in matrices) of an operand whose batch dims are
// right-aligned to the output's; 0 where the operand broadcasts.
std::vector<int64_t> BatchSteps(const Shape& operand, const Shape& out_batch) {
  const size_t batch_rank = out_batch.size();
  const size_t own_rank = operand.size() - 2;
  std::vector<int64_t> steps(batch_rank, 0);
  int64_t step = 1;
  for (size_t d = own_rank; d-- > 0;) {
    const size_t od = batch_rank - own_rank + d;
    if (operand[d] != 1) steps[od] = step;
    step *= operand[d];
  }
  return steps;
}

// The shape of one product: [..., m, k] x [..., k, n] over the output's batch dims.
struct Product {
  Shape batch_shape;
  std::vector<int64_t> lhs_steps;  // BatchSteps of each operand
  std::vector<int64_t> rhs_steps;
  int64_t m = 0, n = 0, k = 0;

  int64_t batches() const { return NumElements(batch_shape); }
  // The matrix index of each operand for output matrix `batch` (broadcast dims repeat).
  std::pair<int64_t, int64_t> Operands(int64_t batch) const {
    int64_t a_matrix = 0, b_matrix = 0;
    int64_t rest = batch;
    for (size_t d = batch_shape.size(); d-- > 0;) {
      const int64_t i = rest % batch_shape[d];
      rest /= batch_shape[d];
      a_matrix += i * lhs_steps[d];
      b_matrix += i * rhs_steps[d];
    }
    return {a_matrix, b_matrix};
  }
};

// The row-major product c[m, n] = a[m, k] x b[k, n].
void Sgemm(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k) {
  if (k == 0) {
    std::fill_n(c, m * n, 0.0f);
    return;
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(m),
              static_cast<blasint>(n), static_cast<blasint>(k), 1.0f, a, static_cast<blasint>(k), b,
              static_cast<blasint>(n), 0.0f, c, static_cast<blasint>(n));
}

// Rows per band of one product: one band per 8M multiply-adds, at most eight, in multiples of
// 16 rows (OpenBLAS's row tiles). A small product is one call (no dispatch); a large one is
// shared by up to eight threads, and every band is large enough to amortize packing the rhs
// (bench/run_matmul.sh: 256^3 is two bands, 512^3 and up eight).
int64_t BlasBand(int64_t m, int64_t n, int64_t k) {
  constexpr int64_t kBandWork = int64_t{1} << 23;  // multiply-adds
  const int64_t bands = std::clamp<int64_t>((m * n * k + kBandWork - 1) / kBandWork, 1, 8);
  if (bands == 1) return m;
  const int64_t rows = (m + bands - 1) / bands;
  return std::min(m, std::max<int64_t>(16, (rows + 15) / 16 * 16));
}

// The f32 product: one single-threaded sgemm per band of rows of each output matrix, the
// bands spread over the pool.
void MatmulBlas(const DenseOperand<float>& a, const DenseOperand<float>& b, TensorHandle& out,
                const Product& product, ThreadPool& pool) {
  const int64_t m = product.m, n = product.n, k = product.k;
  const int64_t batches = product.batches();
  const bool direct = out.dtype == DType::kF32;
  std::byte* dst = ElementData(out);
  const int64_t band = BlasBand(m, n, k);
  const int64_t bands = (m + band - 1) / band;
  const int64_t work = std::max<int64_t>(1, band * n * std::max<int64_t>(k, 1));
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 20) / work);
  pool.ParallelFor(batches * bands, grain, [&](int64_t begin, int64_t end) {
    std::vector<float> scratch(direct ? 0 : band * n);
    for (int64_t task = begin; task < end; ++task) {
      const int64_t batch = task / bands;
      const int64_t row0 = (task % bands) * band;
      const int64_t rows = std::min(band, m - row0);
      const auto [a_matrix, b_matrix] = product.Operands(batch);
      const int64_t out_offset = (batch * m + row0) * n;
      float* c = direct ? reinterpret_cast<float*>(dst) + out_offset : scratch.data();
      Sgemm(a.data + a_matrix * m * k + row0 * k, b.data + b_matrix * k * n, c, rows, n, k);
      if (!direct) StoreRunF32(c, rows * n, out.dtype, dst + out_offset * DTypeSize(out.dtype));
    }
  });
}

// The i64 product (wrapping arithmetic), row blocks over the pool.
void MatmulInt64(const DenseOperand<int64_t>& a, const DenseOperand<int64_t>& b, TensorHandle& out,
                 const Product& product, ThreadPool& pool) {
  using T = int64_t;
  const int64_t m = product.m, n = product.n, k = product.k;
  const int64_t batches = product.batches();
  const bool direct = out.dtype == DType::kI64;
  std::byte* dst = ElementData(out);
  const int out_size = DTypeSize(out.dtype);
  const int64_t blocks_per_batch = (m + kRowBlock - 1) / kRowBlock;
  const int64_t work_per_block = std::max<int64_t>(1, kRowBlock * k * n);
  const int64_t grain = std::max<int64_t>(1, kParallelGrain * 8 / work_per_block);
  pool.ParallelFor(batches * blocks_per_batch, grain, [&](int64_t begin, int64_t end) {
    std::vector<T> scratch(direct ? 0 : kRowBlock * n);
    for (int64_t block = begin; block < end; ++block) {
      const int64_t batch = block / blocks_per_batch;
      const int64_t row0 = (block % blocks_per_batch) * kRowBlock;
      const int64_t rows = std::min(kRowBlock, m - row0);
      const auto [a_matrix, b_matrix] = product.Operands(batch);
      const T* a_rows = a.data + a_matrix * m * k + row0 * k;
      const T* b_mat = b.data + b_matrix * k * n;
      const int64_t out_offset = (batch * m + row0) * n;
      T* c = direct ? reinterpret_cast<T*>(dst) + out_offset : scratch.data();
      std::fill_n(c, rows * n, T{0});
      for (int64_t p = 0; p < k; ++p) {
        const T* b_row = b_mat + p * n;
        for (int64_t r = 0; r < rows; ++r) {
          const T scale = a_rows[r * k + p];
          T* c_row = c + r * n;
          const uint64_t s = static_cast<uint64_t>(scale);
          for (int64_t j = 0; j < n; ++j) {
            c_row[j] = static_cast<int64_t>(static_cast<uint64_t>(c_row[j]) +
                                            s * static_cast<uint64_t>(b_row[j]));
          }
        }
      }
      if (!direct) StoreRunI64(c, rows * n, out.dtype, dst + out_offset * out_size);
    }
  });
}

template <typename T>
void MatmulTyped(const TensorHandle& lhs, const TensorHandle& rhs, TensorHandle& out,
                 ThreadPool& pool) {
  const size_t rank = out.shape.size();
  const int64_t m = out.shape[rank - 2];
  const int64_t n = out.shape[rank - 1];
  const int64_t k = lhs.shape.back();
  EMBER_CHECK(rhs.shape[rhs.shape.size() - 2] == k, "matmul: inner dims {} and {}", k,
              rhs.shape[rhs.shape.size() - 2]);
  Product p{.batch_shape = Shape(out.shape.begin(), out.shape.end() - 2), .m = m, .n = n, .k = k};
  p.lhs_steps = BatchSteps(lhs.shape, p.batch_shape);
  p.rhs_steps = BatchSteps(rhs.shape, p.batch_shape);
  const DenseOperand<T> a = Densify<T>(lhs, pool);
  const DenseOperand<T> b = Densify<T>(rhs, pool);
  if (m == 0 || n == 0 || p.batches() == 0) return;
  if constexpr (std::is_same_v<T, float>) {
    MatmulBlas(a, b, out, p, pool);
  } else {
    MatmulInt64(a, b, out, p, pool);
  }
}

}  // namespace

void ConfigureBlasThreads() { openblas_set_num_threads(1); }

TensorHandle Matmul(const TensorHandle& lhs, const TensorHandle& rhs, const TensorIr& out,
                    ThreadPool& pool) {
  EMBER_CHECK(lhs.shape.size() >= 2 && rhs.shape.size() >= 2 && out.shape.size() >= 2,
              "matmul needs rank >= 2");
  TensorHandle result = NewHandle(out.shape, out.dtype);
  if (IsFloat(lhs.dtype)) {
    MatmulTyped<float>(lhs, rhs, result, pool);
  } else {
    MatmulTyped<int64_t>(lhs, rhs, result, pool);
  }
  return result;
}

}  // namespace ember::cpu
