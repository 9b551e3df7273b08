"""Device attributes a program reads before its first launch, against the H200's own values (ncu's
device__attribute_* page, validation/programs_timing/h200/device_attributes.txt): the CUDA samples'
findCudaDevice asks for the compute mode first and exits on any error code
(tests/runtime/programs/device_attributes.cu)."""

import re
from pathlib import Path

import pytest

from warpsim.runtime.properties import LAST_ATTRIBUTE, NUMBERED_ATTRIBUTES, attribute_codes

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


def normalized(name: str) -> str:
    """A cudaDevAttr name and an ncu device__attribute_ name alike: lower case, no underscores, 'max'."""
    name = name.lower().replace("_", "").replace("maximum", "max")
    return {"ismultigpuboard": "multigpuboard", "gpuoverlap": "gpuoverlap", "ipceventsupport": "ipceventsupported",
            "maxtexture3dwidthalt": "maxtexture3dwidthalternate", "maxtexture3dheightalt": "maxtexture3dheightalternate",
            "maxtexture3ddepthalt": "maxtexture3ddepthalternate", "maxsharedmemoryperblockoptin":
            "maxsharedmemoryperblockoptin", "maxaccesspolicywindowsize": "maxaccesspolicywindowsize",
            "memorypoolsupportedhandletypes": "mempoolsupportedhandletypes", "numaconfig": "numaconfig",
            "multigpuboardgroupid": "multigpuboardgroupid", "eccenabled": "eccenabled",
            "maxpersistingl2cachesize": "maxpersistingl2cachesize", "kernelexectimeout": "kernelexectimeout",
            "globalmemorybuswidth": "globalmemorybuswidth"}.get(name, name)


# what differs on purpose: the simulated device's memory, its PCI identity, and the H200's NUMA
# and PCI ids of the machine it was measured on
NOT_THE_H200S = {"PciBusId", "PciDeviceId", "PciDomainId", "GpuPciDeviceId", "GpuPciSubsystemId", "NumaId", "HostNumaId",
                 "MemoryPoolSupportedHandleTypes", "IpcEventSupport"}     # (the last two: no CUDA IPC here)


def test_every_attribute_an_h200_reports_has_its_value(built, run):
    result = run(built("device_attributes"))
    assert result.returncode == 0, result.stdout + result.stderr
    h200 = {normalized(name): value for name, value in h200_values().items()}
    names = attribute_codes()
    compared = 0
    for code, error, value in re.findall(r"^attr (\d+) (\w+) (-?\d+)$", result.stdout, re.M):
        name = names.get(int(code))
        if int(code) in NUMBERED_ATTRIBUTES:            # numbers the runtime's enum does not name
            assert (error, int(value)) == ("cudaSuccess", NUMBERED_ATTRIBUTES[int(code)]), (code, name)
            continue
        if name is None or re.fullmatch(r"Reserved\d+", name) or int(code) > LAST_ATTRIBUTE:
            assert error == "cudaErrorInvalidValue", (code, name)      # codes CUDA 13.0 does not define
            continue
        assert error == "cudaSuccess", (code, name)
        if name in NOT_THE_H200S or normalized(name) not in h200:
            continue
        assert value == h200[normalized(name)], (code, name, value, h200[normalized(name)])
        compared += 1
    assert compared >= 100           # 109 of the H200 list's names match a code
    props = dict(re.findall(r"(\w+) (-?\d+)", result.stdout.split("prop maxTexture1D", 1)[1]))
    assert result.stdout.split("prop maxTexture1D ", 1)[1].split()[0] == h200["maxtexture1dwidth"]
    assert props["maxTexture2D1"] == h200["maxtexture2dheight"] and props["maxTexture3D2"] == h200["maxtexture3ddepth"]
    assert props["surfaceAlignment"] == h200["surfacealignment"] and props["memoryBusWidth"] == h200["globalmemorybuswidth"]
    assert props["asyncEngineCount"] == h200["asyncenginecount"]


H100_BOTH_APIS = Path(__file__).parents[2] / "validation" / "runtime" / "driver_attributes_native.txt"


def test_every_number_cuda_13_0_defines_answers_as_on_an_h100(built, run):
    """An H100 (driver 13.0) answers every attribute number from 1 to 147 in both APIs alike, and
    with success (validation/runtime/driver_attributes.cu); warpsim the same, with the H100's values
    where warpsim has the feature (those it lacks say 0: NUMBERED_ATTRIBUTES)."""
    result = run(built("device_attributes"))
    assert result.returncode == 0, result.stdout + result.stderr
    got = {int(code): (error, int(value))
           for code, error, value in re.findall(r"^attr (\d+) (\w+) (-?\d+)$", result.stdout, re.M)}
    h100 = {int(row[0]): (int(row[1]), int(row[2]), int(row[3]), int(row[4]))
            for row in (line.split() for line in H100_BOTH_APIS.read_text().splitlines()) if row[0].isdigit()}
    assert len(h100) == LAST_ATTRIBUTE
    for code, (driver_code, driver_value, runtime_code, runtime_value) in h100.items():
        assert (driver_code, driver_value) == (runtime_code, runtime_value)
        assert got[code][0] == ("cudaSuccess" if runtime_code == 0 else "cudaErrorInvalidValue"), code
        if code in NUMBERED_ATTRIBUTES and NUMBERED_ATTRIBUTES[code]:
            assert got[code][1] == runtime_value, code
