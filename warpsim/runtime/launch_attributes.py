"""What cudaLaunchKernelEx's launch attributes ask of a launch (cudaLaunchAttribute, CUDA 13).

- cudaLaunchAttributeClusterDimension: the launch runs as thread-block clusters of that
  shape (machine.cluster), for a kernel that declares none;
- cudaLaunchAttributeCooperative (nonzero): a cooperative launch, as
  cudaLaunchCooperativeKernel;
- cudaLaunchAttributeProgrammaticEvent and cudaLaunchAttributeLaunchCompletionEvent:
  the event is recorded when the launch is done (every launch completes before the
  call returns, so its blocks have all triggered by then). The event must have been
  created with cudaEventDisableTiming (driver_types.h); one that times is
  cudaErrorNotSupported and the kernel does not run, as on an H200
  (validation/programs/h200/native.json, launch_ex.cu);
- cudaLaunchAttributePortableClusterSizeMode: whether a cluster may have more than the
  portable 8 CTAs (otherwise the kernel's cudaFuncAttributeNonPortableClusterSizeAllowed says);
- hints that change no result here (access policy window, cluster scheduling policy,
  programmatic stream serialization, priority, memory synchronization domains, the
  preferred cluster shape and shared-memory carveout, NVLink scheduling, shared
  memory mode): accepted;
- cudaLaunchAttributeSynchronizationPolicy (valid for streams only),
  cudaLaunchAttributeDeviceUpdatableKernelNode (graphs only) and unknown ids:
  cudaErrorInvalidValue.

The struct is read at the offsets the library was compiled with (native.LAYOUTS).

A graph kernel node keeps attributes too (cudaGraphKernelNode{Get,Set,Copy}Attributes): those
valid for graph nodes, each its cudaLaunchAttributeValue's bytes; `node_options` reads them with
the same rules, so a cluster shape or a cooperative launch takes effect at the node's launches.
Attributes valid only for launches or streams (synchronization policy, programmatic stream
serialization and events, launch completion events) are cudaErrorInvalidValue there.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field

from .hoststructs import layout, read

IGNORE, COOPERATIVE, CLUSTER_DIMENSION = 0, 2, 4
PROGRAMMATIC_EVENT, LAUNCH_COMPLETION_EVENT, PORTABLE_CLUSTER_SIZE_MODE = 7, 12, 17
PORTABLE_DEFAULT, REQUIRE_PORTABLE, ALLOW_NON_PORTABLE = 0, 1, 2     # cudaLaunchAttributePortableClusterMode
HINTS = {1, 5, 6, 8, 9, 10, 11, 14, 16, 18}
REFUSED = {3: "cudaLaunchAttributeSynchronizationPolicy is an attribute of streams, not of launches",
           13: "cudaLaunchAttributeDeviceUpdatableKernelNode is for graph kernel nodes only"}


class Refusal(ValueError):
    """An attribute CUDA refuses for a launch (cudaErrorInvalidValue)."""


class Unsupported(Refusal):
    """An attribute CUDA refuses with cudaErrorNotSupported."""


@dataclass
class LaunchOptions:
    cluster: tuple | None = None                  # (x, y, z) CTAs a cluster
    cooperative: bool = False
    events: list = field(default_factory=list)    # event handles recorded when the launch is done
    portable_mode: int = PORTABLE_DEFAULT


def read_attributes(address: int, count: int, events) -> LaunchOptions:
    """The options of `count` cudaLaunchAttribute structs at a host address; Refusal if refused."""
    from .native import LAUNCH_ATTRIBUTE_FIELDS
    sizes = layout("ws_launch_attribute_layout", len(LAUNCH_ATTRIBUTE_FIELDS))
    at = dict(zip(LAUNCH_ATTRIBUTE_FIELDS, sizes[1:]))
    options = LaunchOptions()
    if count and not address:
        raise Refusal(f"numAttrs is {count} and attrs is NULL")
    for k in range(count):
        attribute = address + k * sizes[0]
        identifier = read(attribute + at["id"], "i")[0]
        if identifier == CLUSTER_DIMENSION:
            options.cluster = tuple(read(attribute + at[f"val.clusterDim.{axis}"], "I")[0] for axis in "xyz")
        elif identifier == COOPERATIVE:
            options.cooperative = bool(read(attribute + at["val.cooperative"], "i")[0])
        elif identifier in (PROGRAMMATIC_EVENT, LAUNCH_COMPLETION_EVENT):
            name = "programmaticEvent" if identifier == PROGRAMMATIC_EVENT else "launchCompletionEvent"
            event = read(attribute + at[f"val.{name}.event"], "Q")[0]
            if event not in events:
                raise Refusal(f"the {name} attribute's event 0x{event:x} is not an event of cudaEventCreate")
            if events[event].timing:
                raise Unsupported(f"the {name} attribute's event 0x{event:x} records timing; it must be created "
                                  "with cudaEventDisableTiming")
            options.events.append(event)
        elif identifier == PORTABLE_CLUSTER_SIZE_MODE:
            options.portable_mode = read(attribute + at["val.portableClusterSizeMode"], "i")[0]
            if options.portable_mode not in (PORTABLE_DEFAULT, REQUIRE_PORTABLE, ALLOW_NON_PORTABLE):
                raise Refusal(f"portableClusterSizeMode {options.portable_mode} is not a "
                              "cudaLaunchAttributePortableClusterMode")
        elif identifier in REFUSED:
            raise Refusal(REFUSED[identifier])
        elif identifier != IGNORE and identifier not in HINTS:
            raise Refusal(f"launch attribute id {identifier} is not a cudaLaunchAttributeID")
    return options


NODE_REFUSED = {3: "cudaLaunchAttributeSynchronizationPolicy is an attribute of streams",
                6: "cudaLaunchAttributeProgrammaticStreamSerialization is an attribute of launches",
                7: "cudaLaunchAttributeProgrammaticEvent is an attribute of launches",
                12: "cudaLaunchAttributeLaunchCompletionEvent is an attribute of launches"}
DEVICE_UPDATABLE = 13              # cudaLaunchAttributeDeviceUpdatableKernelNode: graph nodes only


def value_bytes() -> int:
    """sizeof(cudaLaunchAttributeValue)."""
    return layout("ws_launch_attribute_value_layout", 0)[0]


def node_options(attributes: dict, events) -> LaunchOptions:
    """The options a graph kernel node's attributes (id -> cudaLaunchAttributeValue bytes) ask for, read
    by read_attributes from cudaLaunchAttribute structs made of them; Refusal if refused."""
    from .native import LAUNCH_ATTRIBUTE_FIELDS
    sizes = layout("ws_launch_attribute_layout", len(LAUNCH_ATTRIBUTE_FIELDS))
    value_at = dict(zip(LAUNCH_ATTRIBUTE_FIELDS, sizes[1:]))["val.clusterDim.x"]    # the union's first byte
    for identifier in attributes:
        if identifier in NODE_REFUSED:
            raise Refusal(NODE_REFUSED[identifier] + ", not of graph kernel nodes")
    launch = {k: v for k, v in attributes.items() if k != DEVICE_UPDATABLE}
    structs = ctypes.create_string_buffer(max(1, sizes[0] * len(launch)))
    for k, (identifier, value) in enumerate(launch.items()):
        ctypes.memmove(ctypes.addressof(structs) + k * sizes[0], identifier.to_bytes(4, "little", signed=True), 4)
        ctypes.memmove(ctypes.addressof(structs) + k * sizes[0] + value_at, value, len(value))
    return read_attributes(ctypes.addressof(structs), len(launch), events)


def shapes_launch(attributes: dict) -> bool:
    """Whether a kernel node's attributes may change how it launches (a cluster shape, cooperative)."""
    return CLUSTER_DIMENSION in attributes or COOPERATIVE in attributes
