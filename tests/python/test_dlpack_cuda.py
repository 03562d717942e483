"""ember.from_dlpack of CUDA memory (kDLCUDA): borrowed on its own device, with the calling
thread's stream handed to the producer's __dlpack__ so that its pending writes come first
(Note [Borrowed device memory], engine/runtime/cuda/borrowed_owners.h).

Without a GPU (CI) the producer is refused before it is asked for anything, with the reason;
with one and PyTorch built for CUDA, the memory is PyTorch's own and the results its values."""

import numpy as np
import pytest

import ember
from conftest import check

try:
    import torch
except ImportError:  # python3-torch is a test dependency only
    torch = None
try:
    import cupy
except ImportError:  # not a Debian package: present on the GPU machine only
    cupy = None


def _ember_gpu():
    try:
        ember._ember.check_device("cuda:0")
        return True
    except RuntimeError:
        return False


HAS_GPU = _ember_gpu()
needs_torch_cuda = pytest.mark.skipif(
    not HAS_GPU or torch is None or not torch.cuda.is_available(),
    reason="needs a GPU that both ember and PyTorch (built for CUDA) can use")


class FakeProducer:
    """Says its memory is on DLPack device `device` and records every __dlpack__ call: nothing
    may ask it for a capsule before ember knows it can take the memory."""

    def __init__(self, device):
        self._device = device
        self.asked = []

    def __dlpack_device__(self):
        return self._device

    def __dlpack__(self, stream=None):
        self.asked.append(stream)
        raise AssertionError("the producer was asked for its memory")


@pytest.mark.skipif(HAS_GPU, reason="checks the refusal on a machine without a usable GPU")
def test_cuda_memory_without_a_gpu_is_refused_before_the_producer_is_asked():
    producer = FakeProducer((2, 0))
    with pytest.raises(RuntimeError, match="CUDA is unavailable"):
        ember.from_dlpack(producer)
    with pytest.raises(RuntimeError, match="CUDA is unavailable"):
        ember.from_dlpack(producer, device="cpu", copy=True)
    assert producer.asked == []


@pytest.mark.parametrize("kind", [4, 7, 13, 14])  # OpenCL, Vulkan, CUDA managed, oneAPI
def test_other_device_memory_is_refused_before_the_producer_is_asked(kind):
    producer = FakeProducer((kind, 0))
    with pytest.raises(TypeError, match="not importable"):
        ember.from_dlpack(producer)
    assert producer.asked == []


@needs_torch_cuda
def test_torch_cuda_memory_is_borrowed_on_its_device():
    p = torch.arange(12, dtype=torch.float32, device="cuda").reshape(3, 4)
    for view in (p, p.t(), p[:, 1::2]):
        t = ember.from_dlpack(view, copy=False)
        assert t.device == "cuda:0"
        assert torch.from_dlpack(t).data_ptr() == view.data_ptr()
        check(t, view.cpu().numpy())
    y = ember.from_dlpack(p) + 1.0  # the import's last use: never written in place
    check(y, np.arange(12).reshape(3, 4) + 1.0)
    assert p.cpu().flatten().tolist() == list(range(12))


@needs_torch_cuda
def test_torch_writes_queued_on_its_stream_come_before_embers_reads():
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        x = torch.full((1 << 24,), 3.0, device="cuda")
        for _ in range(20):  # keep the side stream busy when the capsule is made
            x = x * 1.0 + 0.0
        t = ember.from_dlpack(x)
        total = float(ember.sum(t))
    assert total == 3.0 * (1 << 24)


@needs_torch_cuda
def test_torch_cuda_memory_is_copied_to_the_host_when_asked():
    p = torch.arange(6, dtype=torch.float32, device="cuda").reshape(2, 3)
    h = ember.from_dlpack(p.t(), device="cpu")
    assert h.device == "cpu"
    check(h, np.arange(6).reshape(2, 3).T)
    with pytest.raises(BufferError, match="goes to cpu"):
        ember.from_dlpack(p, device="cpu", copy=False)


@needs_torch_cuda
def test_torch_gets_its_cuda_memory_back_after_the_last_tensor():
    p = torch.ones(1 << 20, device="cuda")
    before = torch.cuda.memory_allocated()
    t = ember.from_dlpack(p)
    del p
    assert torch.cuda.memory_allocated() == before, "ember's borrow keeps the memory"
    float(ember.sum(t))
    del t
    ember.sync("cuda:0")
    assert torch.cuda.memory_allocated() < before


@pytest.mark.skipif(not HAS_GPU or cupy is None, reason="needs a GPU and CuPy")
def test_cupy_memory_is_borrowed_on_its_device():
    a = cupy.arange(12, dtype=cupy.float32).reshape(3, 4) * 2
    t = ember.from_dlpack(a, copy=False)
    assert t.device == "cuda:0"
    check(t + 1.0, np.arange(12).reshape(3, 4) * 2.0 + 1.0)
    check(ember.from_dlpack(a.T), np.arange(12).reshape(3, 4).T * 2.0)
    if torch is not None and torch.cuda.is_available():
        assert torch.from_dlpack(t).data_ptr() == a.data.ptr


@pytest.mark.skipif(torch is None, reason="PyTorch (python3-torch) is not installed")
def test_the_standards_dlpack_keywords_are_taken():
    t = ember.asarray([1.0, 2.0, 3.0])
    assert torch.from_dlpack(t.__dlpack__(stream=None, max_version=(1, 0), dl_device=(1, 0),
                                          copy=False)).tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(BufferError, match="not on DLPack device"):
        t.__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError, match="copy=True"):
        t.__dlpack__(copy=True)
