"""Scripts written for a CUDA GPU under warpsim's Triton backend: tensors on "cuda" and torch.cuda
(warpsim/runtime/triton/cuda_tensors.py, torch_device.py).

The in-process tests enter the backend's activation (what `warpsim run` does around a script) and
check what torch answers inside and that everything is torch's own again after it; no kernel is
compiled there. The script test runs scripts/cuda_style.py, written as for a GPU, under
`warpsim run` and compares its kernel's output with NumPy.
"""

import math

import numpy as np
import pytest

pytest.importorskip("triton")
torch = pytest.importorskip("torch")

from warpsim.runtime.triton.activation import triton_on_warpsim  # noqa: E402
from warpsim.runtime.triton.cuda_tensors import TooManyGPUs  # noqa: E402
from warpsim.runtime.triton.torch_device import CudaNotSimulated  # noqa: E402

from test_triton_backend import run_script  # noqa: E402  (the test folder is on sys.path)

pytestmark = pytest.mark.triton

CUDA_FUNCTIONS = ("is_available", "device_count", "synchronize", "Event", "current_stream", "manual_seed",
                  "set_device", "empty_cache", "max_memory_allocated", "get_device_properties", "_lazy_init")
ACCELERATOR_FUNCTIONS = ("is_available", "current_accelerator", "synchronize", "memory_allocated")

needs_no_gpu = pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU machine's torch has CUDA itself (the CPU build, or the CUDA build with no GPU, is simulated)")


def torch_state():
    """What the backend changes while active, as torch has it."""
    from torch.overrides import _get_current_function_mode_stack
    return ({name: getattr(torch.cuda, name) for name in CUDA_FUNCTIONS},
            {name: getattr(torch.accelerator, name) for name in ACCELERATOR_FUNCTIONS},
            "is_cuda" in torch.Tensor.__dict__, len(_get_current_function_mode_stack()),
            "__getattr__" in vars(torch._C), torch.Tensor.data_ptr)


@needs_no_gpu
def test_cuda_devices_are_host_memory_while_active_and_torch_is_itself_after():
    before = torch_state()
    accelerator_before = torch.accelerator.current_accelerator()     # None, or 'cuda' on PyPI's CUDA build
    with triton_on_warpsim():
        source = np.random.default_rng(1).standard_normal(1000).astype(np.float32)
        host = torch.from_numpy(source)
        for made in (torch.zeros(4, device="cuda"), torch.ones(4, device="cuda:0"),
                     torch.empty(4, device=torch.device("cuda")), torch.empty(4, device=0),
                     torch.ones(2).new_zeros(3, device="cuda"), host.cuda(), host.to("cuda")):
            assert made.device.type == "cpu" and made.is_cuda
        moved = host.cuda()
        moved.mul_(2)                               # a move to "cuda" copies, as from a GPU's host memory
        np.testing.assert_array_equal(host.numpy(), source)
        back = moved.cpu()
        back.zero_()
        np.testing.assert_array_equal(moved.numpy(), 2 * source)
        assert host.to("cuda", torch.float16).dtype == torch.float16
        assert torch.cuda.is_available() and torch.cuda.device_count() == 1
        assert torch.cuda.get_device_capability() == (9, 0)
        assert torch.cuda.get_device_properties("cuda").multi_processor_count == 132
        accelerator = torch.accelerator.current_accelerator()
        assert accelerator == torch.device("cuda", 0) and torch.ones(2, device=accelerator).is_cuda
        assert not hasattr(moved, "__cuda_array_interface__"), "torch's own code reads the real is_cuda"
        assert torch._utils._get_available_device_type() != "cuda", "torch's own code gets the CPU build's answers"
        with pytest.raises(TooManyGPUs, match="warpsim simulates one GPU"):
            torch.empty(3, device="cuda:1")
        if hasattr(torch._C, "_cuda_getAllocatorBackend"):    # PyPI's CUDA build on a machine without a GPU:
            assert torch.cuda.get_allocator_backend() == "native"     # its binding answers as on a GPU
        else:
            with pytest.raises(CudaNotSimulated, match="warpsim"):
                torch.cuda.get_allocator_backend()      # reaches a CUDA binding the CPU build lacks
        with pytest.raises(CudaNotSimulated, match="CUDA graphs"):
            torch.cuda.CUDAGraph()
    assert torch_state() == before
    assert not torch.ones(2).is_cuda and not torch.cuda.is_available()
    assert torch.accelerator.current_accelerator() == accelerator_before
    with pytest.raises((RuntimeError, AssertionError), match="CUDA|accelerator|NVIDIA driver"):
        torch.ones(2, device="cuda")


@needs_no_gpu
def test_new_tensors_start_on_the_caching_allocators_512_byte_blocks_as_on_a_gpu():
    rng = np.random.default_rng(3)
    host = rng.random(1000).astype(np.float32)
    with triton_on_warpsim():
        made = [torch.randn(4096, 33, device="cuda"), torch.empty(7, device="cuda", dtype=torch.float16),
                torch.zeros(3, 5, device="cuda", dtype=torch.int64)]
        x = made[0]
        made += [torch.empty_like(x), x + 1, x.cuda(), x.exp(), torch.from_numpy(host).to("cuda")]
        assert [t.data_ptr() % 512 for t in made] == [0] * len(made)
        np.testing.assert_array_equal(made[4].numpy(), x.numpy() + 1)
        np.testing.assert_array_equal(made[-1].numpy(), host)
        view = x[1:]                               # a view keeps its storage, as on a GPU
        assert view.data_ptr() == x.data_ptr() + 33 * 4
        view[0, 0] = 5.0
        assert x[1, 0].item() == 5.0
        shared = torch.from_numpy(host)            # NumPy's memory stays NumPy's: writes reach the array
        shared.view(-1)[0] = -2.0
        assert host[0] == -2.0
        w = torch.randn(31, 3, device="cuda", requires_grad=True)
        w.tanh().sum().backward()                  # tanh keeps its moved output for the backward pass
        np.testing.assert_allclose(w.grad.numpy(), 1 - np.tanh(w.detach().numpy()) ** 2, atol=1e-6)


@needs_no_gpu
def test_seeds_events_and_memory_statistics_answer_for_the_simulated_gpu(capsys):
    with triton_on_warpsim():
        torch.cuda.manual_seed(7)
        first = torch.rand(5, device="cuda")
        torch.cuda.manual_seed_all(7)
        np.testing.assert_array_equal(first.numpy(), torch.rand(5, device="cuda").numpy())
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        block = torch.empty(1000, device="cuda")    # 4000 bytes: one 4096-byte block of 512-byte granules
        assert torch.cuda.memory_allocated() - base == 4096
        del block
        assert torch.cuda.memory_allocated() == base and torch.cuda.max_memory_allocated() == base + 4096
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        first.add_(1)                               # a torch operator: it runs on the CPU here
        end.record()
        end.synchronize()
        assert math.isnan(start.elapsed_time(end))
        assert "no Triton kernel ran between the events" in capsys.readouterr().err
        untimed = torch.cuda.Event()
        untimed.record()
        with pytest.raises(RuntimeError, match="enable_timing"):
            untimed.elapsed_time(end)


@pytest.mark.slow
def test_a_script_written_for_a_cuda_gpu_runs_unchanged(tmp_path):
    result, saved = run_script("cuda_style.py", 5000, tmp_path=tmp_path)
    expected = np.float32(2.5) * saved["x"] + saved["y"]
    np.testing.assert_allclose(saved["out"], expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(saved["moved"], saved["y"] - saved["x"], rtol=1e-6, atol=1e-6)
    assert not np.array_equal(saved["host"], saved["moved"]), "the kernel wrote the copy .to('cuda') made"
    assert "running on NVIDIA H200" in result.stdout
    # both read the predicted clock; the launches between the events find their data in L2, do_bench
    # flushes it before its run, as on a GPU
    assert 0 < float(saved["event_ms"]) < float(saved["bench_ms"]) < 1.25 * float(saved["event_ms"])
    before, peak, after = saved["memory"]
    assert peak - before == 4 << 20 and after == before
