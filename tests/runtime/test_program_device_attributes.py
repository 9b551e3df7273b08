"""Device attributes a program reads before its first launch, against the H200's own values (ncu's
device__attribute_* page, validation/programs_timing/h200/device_attributes.txt): the CUDA samples'
findCudaDevice asks for the compute mode first and exits on any error code
(tests/runtime/programs/device_attributes.cu)."""

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.programs

H200_ATTRIBUTES = Path(__file__).parents[2] / "validation" / "programs_timing" / "h200" / "device_attributes.txt"
# cudaDevAttr name -> ncu's device__attribute_ name
NCU_NAMES = {
    "ComputeMode": "compute_mode", "KernelExecTimeout": "kernel_exec_timeout",
    "ComputeCapabilityMajor": "compute_capability_major", "MultiProcessorCount": "multiprocessor_count",
    "ClockRate": "clock_rate", "TccDriver": "tcc_driver",
    "StreamPrioritiesSupported": "stream_priorities_supported",
    "GlobalL1CacheSupported": "global_l1_cache_supported", "LocalL1CacheSupported": "local_l1_cache_supported",
    "IsMultiGpuBoard": "multi_gpu_board", "HostNativeAtomicSupported": "host_native_atomic_supported",
    "PageableMemoryAccess": "pageable_memory_access",
    "ComputePreemptionSupported": "compute_preemption_supported",
    "CanUseHostPointerForRegisteredMem": "can_use_host_pointer_for_registered_mem",
    "HostRegisterSupported": "host_register_supported",
    "DirectManagedMemAccessFromHost": "direct_managed_mem_access_from_host",
}


def h200_values() -> dict:
    values = {}
    for line in H200_ATTRIBUTES.read_text().splitlines():
        if line.startswith("device__attribute_"):
            name, value = line.split(" ", 1)
            values[name[len("device__attribute_"):]] = value.replace(",", "")
    return values


def test_attributes_and_properties_are_the_h200s(built, run):
    result = run(built("device_attributes"))
    assert result.returncode == 0, result.stdout + result.stderr
    h200 = h200_values()
    got = {}
    for line in result.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] in NCU_NAMES:
            got[parts[0]] = (parts[1], parts[2])
    assert set(got) == set(NCU_NAMES)
    for name, ncu_name in NCU_NAMES.items():
        assert got[name] == ("cudaSuccess", h200[ncu_name]), name
    props = dict(re.findall(r"(\w+) (-?\d+)", result.stdout.split("prop ", 1)[1]))
    assert "props cudaSuccess" in result.stdout
    assert props["tccDriver"] == got["TccDriver"][1]
    assert props["computePreemptionSupported"] == got["ComputePreemptionSupported"][1] == "1"
    assert props["hostNativeAtomicSupported"] == got["HostNativeAtomicSupported"][1] == "0"
    assert props["hostRegisterSupported"] == got["HostRegisterSupported"][1] == "1"
    assert props["streamPrioritiesSupported"] == "1" and props["globalL1CacheSupported"] == "1"
