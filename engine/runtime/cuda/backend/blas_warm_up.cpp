#include "engine/runtime/cuda/backend/blas_warm_up.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <set>

#include "ember/error.h"
#include "engine/core/elapsed.h"
#include "engine/runtime/cuda/driver_api.h"

namespace ember::cuda {
namespace {

// The warm-ups whose thread may still run, for the exit hook.
struct LiveWarmUps {
  std::mutex mutex;
  std::set<BlasWarmUp*> live;
};

LiveWarmUps& Live() {
  static LiveWarmUps* live = new LiveWarmUps();  // never destroyed: read by the exit hook
  return *live;
}

}  // namespace

ReluProbeReadings ProbeBlasRelu(BlasLt& blas, DeviceAllocator& allocator, CUstream stream) {
  // relu(alpha * (a x b)) for a = [1] (1x1), b = [NaN, 2, -3, 0] (1x4): alpha 1 gives relu(NaN),
  // relu(2), relu(-3); alpha -1 over b = 0 gives alpha * (+0) = -0, so relu(-0).
  constexpr size_t kFloats = 1 + 4 + 4 + 4 + 4;  // a, b, zeros, c, d
  const DeviceBlock block = allocator.Allocate(kFloats * sizeof(float), stream);
  struct FreeAfter {
    DeviceAllocator& allocator;
    const DeviceBlock& block;
    ~FreeAfter() { allocator.Free(block); }
  } free_after{allocator, block};
  const CUdeviceptr a = block.ptr;
  const CUdeviceptr b = a + 1 * sizeof(float);
  const CUdeviceptr zeros = a + 5 * sizeof(float);
  const CUdeviceptr c = a + 9 * sizeof(float);
  const CUdeviceptr d = a + 13 * sizeof(float);
  const float inputs[9] = {1.0f, std::nanf(""), 2.0f, -3.0f, 0.0f, 0, 0, 0, 0};
  EMBER_CU(cuMemcpyHtoDAsync, a, inputs, sizeof(inputs), stream);
  MatmulArgs args{.m = 1, .n = 4, .k = 1, .a = a, .lda = 1, .ldb = 4, .ldc = 4};
  args.epilogue = MatmulEpilogue::kRelu;
  args.b = b;
  args.c = c;
  blas.Matmul(args, stream);
  args.b = zeros;
  args.c = d;
  args.alpha = -1.0f;
  blas.Matmul(args, stream);
  float got[4] = {}, got_zero[4] = {};
  EMBER_CU(cuMemcpyDtoHAsync, got, c, sizeof(got), stream);
  EMBER_CU(cuMemcpyDtoHAsync, got_zero, d, sizeof(got_zero), stream);
  EMBER_CU(cuStreamSynchronize, stream);
  return {.nan_in = got[0], .two = got[1], .minus_three = got[2], .minus_zero = got_zero[0]};
}

BlasWarmUp::BlasWarmUp() {
  static const bool hooked = [] {
    std::atexit([] {
      LiveWarmUps& l = Live();
      std::lock_guard lock(l.mutex);
      for (BlasWarmUp* w : l.live) w->Stop();
    });
    return true;
  }();
  (void)hooked;
  {
    LiveWarmUps& l = Live();
    std::lock_guard lock(l.mutex);
    l.live.insert(this);
  }
  thread_ = std::thread([this] { Run(); });
}

BlasWarmUp::~BlasWarmUp() {
  LiveWarmUps& l = Live();
  std::lock_guard lock(l.mutex);
  l.live.erase(this);
  Stop();
}

void BlasWarmUp::Stop() {
  {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void BlasWarmUp::Begin(std::shared_ptr<DeviceAllocator> allocator, CUstream stream) {
  {
    std::lock_guard lock(mutex_);
    allocator_ = std::move(allocator);
    stream_ = stream;
    begun_ = true;
  }
  changed_.notify_all();
}

void BlasWarmUp::Run() {
  const auto start = std::chrono::steady_clock::now();
  auto cancelled = [&] {
    std::lock_guard lock(mutex_);
    return cancelled_;
  };
  auto hand_over = [&](std::unique_ptr<BlasLt> blas) {
    std::lock_guard lock(mutex_);
    blas_ = std::move(blas);
    blas_made_ = true;
    changed_.notify_all();
  };
  auto finish = [&](std::optional<ReluProbeReadings> relu) {
    std::lock_guard lock(mutex_);
    blas_made_ = true;
    relu_ = relu;
    work_ms_ = MsSince(start);
    done_ = true;
    changed_.notify_all();
  };
  try {
    CublasLt();  // the library, its symbols and their check
  } catch (const Error&) {
    return finish(std::nullopt);  // the first matmul says why
  }
  std::shared_ptr<DeviceAllocator> allocator;
  CUstream stream = nullptr;
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return begun_ || cancelled_; });
    if (cancelled_) {
      lock.unlock();
      return finish(std::nullopt);
    }
    allocator = allocator_;
    stream = stream_;
  }
  try {
    hand_over(std::make_unique<BlasLt>(allocator));  // makes the context current here
  } catch (const std::exception&) {
    return finish(std::nullopt);  // the first matmul makes one and says why it cannot
  }
  // The probe has a handle of its own: the first one may already be in the op thread's hands.
  std::optional<ReluProbeReadings> relu;
  try {
    if (!cancelled()) {
      BlasLt probe(allocator);
      ScopedContext scope(*allocator->device());
      relu = ProbeBlasRelu(probe, *allocator, stream);
    }
  } catch (const std::exception&) {
    // The backend probes at its first relu epilogue instead.
  }
  finish(relu);
}

void BlasWarmUp::Wait() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return done_; });
}

std::unique_ptr<BlasLt> BlasWarmUp::TakeBlas() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return blas_made_ || done_; });
  return std::move(blas_);
}

bool BlasWarmUp::done() {
  std::lock_guard lock(mutex_);
  return done_;
}

std::optional<ReluProbeReadings> BlasWarmUp::Relu() {
  std::lock_guard lock(mutex_);
  return done_ ? relu_ : std::nullopt;
}

double BlasWarmUp::work_ms() {
  std::lock_guard lock(mutex_);
  return work_ms_;
}

}  // namespace ember::cuda
