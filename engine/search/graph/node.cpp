#include "engine/search/graph/node.h"

#include <algorithm>
#include <utility>

namespace ember {
namespace {

void SortUnique(std::vector<TensorId>& ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
}

bool IsSortedUnique(const std::vector<TensorId>& ids) {
  return std::adjacent_find(ids.begin(), ids.end(),
                            [](TensorId a, TensorId b) { return a >= b; }) == ids.end();
}

}  // namespace

bool DataFlow::Produces(TensorId id) const {
  return std::binary_search(produced.begin(), produced.end(), id);
}

bool DataFlow::Reads(TensorId id) const { return std::binary_search(read.begin(), read.end(), id); }

bool DataFlow::Frees(TensorId id) const {
  return std::binary_search(freed.begin(), freed.end(), id);
}

bool IsCanonical(const DataFlow& flow) {
  return IsSortedUnique(flow.produced) && IsSortedUnique(flow.read) && IsSortedUnique(flow.freed);
}

DataFlow MakeDataFlow(std::vector<TensorId> produced, std::vector<TensorId> read,
                      std::vector<TensorId> freed, size_t position) {
  SortUnique(produced);
  SortUnique(read);
  SortUnique(freed);
  return DataFlow{.produced = std::move(produced),
                  .read = std::move(read),
                  .freed = std::move(freed),
                  .position = position};
}

DataFlow ForOperation(const OperationIr& op, size_t position) {
  std::vector<TensorId> produced;
  std::vector<TensorId> read;
  std::vector<TensorId> freed;
  produced.reserve(op.outputs.size());
  read.reserve(op.inputs.size());
  for (const TensorIr& out : op.outputs) produced.push_back(out.id);
  for (const TensorIr& in : op.inputs) {
    read.push_back(in.id);
    if (in.status == TensorStatus::kReadWrite) freed.push_back(in.id);
  }
  return MakeDataFlow(std::move(produced), std::move(read), std::move(freed), position);
}

bool SortedOverlap(const std::vector<TensorId>& a, const std::vector<TensorId>& b) {
  auto i = a.begin();
  auto j = b.begin();
  while (i != a.end() && j != b.end()) {
    if (*i < *j) {
      ++i;
    } else if (*j < *i) {
      ++j;
    } else {
      return true;
    }
  }
  return false;
}

}  // namespace ember
