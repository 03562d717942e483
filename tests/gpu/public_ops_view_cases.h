// PublicOps cases (public_ops_test.cpp) for the ops that move or pick elements: views (reshape,
// swap_dims, permute, slice, expand, cat) and indexing (gather, select).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "tests/gpu/gpu_test_util.h"
#include "tests/gpu/public_ops_case.h"

namespace ember::gpu::public_ops {

inline void AddViews(std::vector<OpCase>& cases) {
  for (DType dtype : {DType::kF32, DType::kBF16, DType::kI64, DType::kBool}) {
    cases.push_back(
        {"Views_" + Name(dtype),
         [dtype](Device dev, HostData& data) {
           Tensor x = Input(data, dev, kShape, dtype, -100, 100);
           Tensor col = Input(data, dev, {66, 1}, dtype, -100, 100);
           Outputs out;
           out.push_back(Read(x.Reshape({-1, 257}), "reshape"));
           out.push_back(Read(x.Reshape({static_cast<int64_t>(kN)}), "flatten"));
           out.push_back(Read(x.SwapDims(0, 2), "swap_0_2"));
           out.push_back(Read(x.SwapDims(-1, -2), "swap_last"));
           for (std::vector<int64_t> axes : std::vector<std::vector<int64_t>>{
                    {0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}) {
             out.push_back(Read(x.Permute(axes), "permute_" + testing::ShapeText(axes)));
           }
           out.push_back(Read(x.Slice({Slice{1, 5, 2}, Slice{-10}, Slice{0, std::nullopt, -3}}),
                              "slice_mixed"));
           out.push_back(Read(x.Slice({Slice{2}}), "slice_first_dim"));
           out.push_back(Read(x.Slice({Slice{-100, 100}, Slice{3, 4}}), "slice_clamped"));
           out.push_back(
               Read(x.Slice({Slice{0, 3, -2}, Slice{0, std::nullopt, -1}}), "slice_backwards"));
           out.push_back(Read(col.Expand({7, 66, 257}), "expand_new_dims"));
           out.push_back(Read(col.Expand({-1, 9}), "expand_keep"));
           // Views of views, then a reshape that must copy.
           out.push_back(Read(x.SwapDims(0, 1).Slice({Slice{1, std::nullopt, 3}}).Reshape({-1}),
                              "view_chain"));
           return out;
         },
         0});
  }
  cases.push_back({"Cat",
                   [](Device dev, HostData& data) {
                     Outputs out;
                     for (DType dtype : {DType::kF32, DType::kF16, DType::kI32, DType::kBool}) {
                       Tensor a = Input(data, dev, {3, 5, 7}, dtype, -9, 9);
                       Tensor b = Input(data, dev, {2, 5, 7}, dtype, -9, 9);
                       Tensor c = Input(data, dev, {3, 4, 7}, dtype, -9, 9);
                       Tensor d = Input(data, dev, {3, 5, 1}, dtype, -9, 9);
                       out.push_back(Read(Cat({a, b, a}, 0), "cat0_" + Name(dtype)));
                       out.push_back(Read(Cat({c, a}, 1), "cat1_" + Name(dtype)));
                       out.push_back(Read(Cat({a, d, a.Slice({Slice{0, std::nullopt, -1}})}, -1),
                                          "cat_last_" + Name(dtype)));
                     }
                     return out;
                   },
                   0});
}

// Gather and Select along every dim; indices include repeats, negative ones and ones past the
// end, which give 0 (docs/API.md, "Indexing").
inline void AddIndexing(std::vector<OpCase>& cases) {
  for (DType dtype : {DType::kF32, DType::kF16, DType::kI64, DType::kBool}) {
    for (DType index_dtype : {DType::kI32, DType::kI64}) {
      cases.push_back(
          {"Indexing_" + Name(dtype) + "_" + Name(index_dtype),
           [dtype, index_dtype](Device dev, HostData& data) {
             Tensor x = Input(data, dev, kShape, dtype, -100, 100);
             Outputs out;
             for (int64_t dim = 0; dim < 3; ++dim) {
               const int64_t size = kShape[static_cast<size_t>(dim)];
               std::vector<int64_t> shape = kShape;
               shape[static_cast<size_t>(dim)] = 5;
               const std::vector<int64_t> idx =
                   data.Ints(static_cast<size_t>(Numel(shape)), -3, size + 2);
               Tensor indices = MakeInt(idx, shape, index_dtype, dev);
               out.push_back(Read(x.Gather(dim, indices), "gather_" + std::to_string(dim)));
               const std::vector<int64_t> sel = {size - 1, 0, -1, size, 1, 1, size + 5};
               Tensor list = MakeInt(sel, {7}, index_dtype, dev);
               out.push_back(Read(x.Select(dim, list), "select_" + std::to_string(dim)));
               out.push_back(Read(x.Select(dim - 3, list), "select_negative_dim"));
             }
             return out;
           },
           0});
    }
  }
}

}  // namespace ember::gpu::public_ops
