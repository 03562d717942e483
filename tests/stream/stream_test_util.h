// Helpers for the stream suites: the suites' one tensor shape (tensors themselves come from
// tests/common/ir_builders.h), uploads through the CPU backend and reads back, so that queues
// and streams run real ops without the public Tensor API.
#pragma once

#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "engine/fuse/fuser.h"
#include "engine/ir/builders.h"
#include "engine/runtime/backend.h"
#include "engine/runtime/cpu/cpu_backend.h"
#include "engine/runtime/handle_container.h"
#include "engine/stream/multi_stream.h"
#include "tests/common/ir_builders.h"
#include "tests/search/test_fusers.h"

namespace ember::stream_test {

// Every tensor of these suites has this shape unless a test says otherwise (burn's multi.rs
// tests use one shape for all tensors too).
inline const Shape kShape = {2, 3};

inline std::vector<float> Iota(const Shape& shape, float start = 0.0f) {
  std::vector<float> values(static_cast<size_t>(NumElements(shape)));
  for (size_t i = 0; i < values.size(); ++i) values[i] = start + static_cast<float>(i);
  return values;
}

// A handle holding `values`, made by the backend (as the API's FromVector does).
inline TensorHandle MakeHandle(Backend& backend, const std::vector<float>& values,
                               const Shape& shape = kShape) {
  std::vector<std::byte> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return backend.FromHost(bytes, shape, DType::kF32);
}

inline std::vector<float> ReadValues(Backend& backend, const TensorHandle& handle) {
  std::vector<std::byte> bytes(static_cast<size_t>(handle.NumElements()) * sizeof(float));
  backend.ToHost(handle, bytes);
  std::vector<float> values(static_cast<size_t>(handle.NumElements()));
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

// One NeverReadyFuser (tests/search/test_fusers.h): a stream keeps every op queued until it
// drains (and then runs them unfused), which lets tests look at the composition.
inline std::vector<std::unique_ptr<OperationFuser>> NeverReadyFusers() {
  std::vector<std::unique_ptr<OperationFuser>> fusers;
  fusers.push_back(std::make_unique<search_test::NeverReadyFuser>());
  return fusers;
}

// One device for MultiStream tests (burn's TestSetup without its streams): a one-thread CPU
// backend, its handles, and the streams with the given fusers (by default one NeverReadyFuser).
struct StreamDevice {
  explicit StreamDevice(FuserFactory fusers = NeverReadyFusers)
      : streams(*backend, std::move(fusers), SearchSettings{}) {}

  std::unique_ptr<Backend> backend = cpu::MakeCpuBackend(1);
  HandleContainer handles;
  MultiStream streams;

  // As the API's FromVector: registers the handle, then queues Init on `stream`.
  void Upload(StreamId stream, TensorId id) {
    handles.Register(id, MakeHandle(*backend, Iota(kShape)));
    streams.Register(stream, ir::Init(test::Out(id, kShape)), handles);
  }

  // burn's register_exp; the input's status is the caller's (burn always reads ReadOnly).
  void Exp(StreamId stream, TensorIr input, TensorId out) {
    streams.Register(stream, ir::Unary(OpKind::kExp, std::move(input), test::Out(out, kShape)),
                     handles);
  }

  void Drain(StreamId stream) { streams.Drain(stream, handles); }
};

}  // namespace ember::stream_test
