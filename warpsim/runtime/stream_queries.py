"""What a program asks of its streams, events and device beyond creating and using them.

Stream flags and priorities are those the stream was created with (calls._create_stream: the
priority clamped to the device's range, as CUDA clamps it); the legacy, per-thread and default
streams read flags 0 and priority 0. Stream attributes (cudaStreamSet/GetAttribute: the L2 access
policy window, the synchronization policy, the priority, the memory synchronization domain and its
map) are kept as set and read back (a stream's priority attribute, until set, is its priority);
they change no result, and the timing model does not model L2 persistence. Other attribute ids are
cudaErrorInvalidValue. Every stream is on device 0, and a stream's id is its
handle. An event recorded with cudaEventRecordExternal is an event record node inside a capture;
outside one CUDA refuses it with cudaErrorIllegalState. Device selection and PCI identity answer
for the one simulated device, at PCI address 0000:00:00.0 (cudaDeviceProp's pciBusID and
pciDeviceID are 0).

The functions register themselves in calls.IMPLEMENTED (warpsim.runtime.handlers imports this module).
"""

from __future__ import annotations

import ctypes

from . import graphs
from .calls import (CODES, INVALID_HANDLE, INVALID_VALUE, NODE_EVENT_RECORD, SUCCESS, _captured, _known_stream, _write,
                    call, cudaEventRecord)

INVALID_DEVICE = CODES["cudaErrorInvalidDevice"]
ILLEGAL_STATE = CODES["cudaErrorIllegalState"]
EVENT_RECORD_EXTERNAL = 0x01
CAPTURE_MODES = range(3)                   # cudaStreamCaptureModeGlobal, ThreadLocal, Relaxed
PCI_BUS_ID = "0000:00:00.0"


def _settings(context, stream):
    """(flags, priority) of a known stream, or None."""
    if not _known_stream(context, stream):
        return None
    return context.stream_settings.get(stream, (0, 0))


@call()
def cudaStreamGetFlags(context, stream, out):
    return _write_setting(context, stream, out, "I", 0)


@call()
def cudaStreamGetPriority(context, stream, out):
    return _write_setting(context, stream, out, "i", 1)


def _write_setting(context, stream, out, fmt: str, which: int):
    """Write a stream's flags (which 0) or priority (1) to `out` in `fmt`."""
    found = _settings(context, stream)
    if found is None:
        return context.fail(INVALID_HANDLE)
    if not out:
        return context.fail(INVALID_VALUE)
    _write(out, fmt, found[which])
    return SUCCESS


STREAM_ATTRIBUTES = {1, 3, 8, 9, 10}       # cudaStreamAttributeAccessPolicyWindow ... MemSyncDomain
PRIORITY_ATTRIBUTE = 8


def _attribute_bytes() -> int:
    from .hoststructs import layout
    return int(layout("ws_launch_attribute_value_layout", 0)[0])


@call()
def cudaStreamSetAttribute(context, stream, attribute, value):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    if attribute not in STREAM_ATTRIBUTES or not value:
        return context.fail(INVALID_VALUE)
    context.__dict__.setdefault("stream_attributes", {})[(stream, attribute)] = \
        ctypes.string_at(value, _attribute_bytes())
    return SUCCESS


@call()
def cudaStreamGetAttribute(context, stream, attribute, out):
    found = _settings(context, stream)
    if found is None:
        return context.fail(INVALID_HANDLE)
    if attribute not in STREAM_ATTRIBUTES or not out:
        return context.fail(INVALID_VALUE)
    size = _attribute_bytes()
    kept = context.__dict__.get("stream_attributes", {}).get((stream, attribute))
    if kept is None:
        kept = found[1].to_bytes(4, "little", signed=True) if attribute == PRIORITY_ATTRIBUTE else b""
        kept = kept.ljust(size, b"\0")
    ctypes.memmove(out, kept, size)
    return SUCCESS


@call()
def cudaStreamCopyAttributes(context, destination, source):
    if not _known_stream(context, destination) or not _known_stream(context, source):
        return context.fail(INVALID_HANDLE)
    kept = context.__dict__.setdefault("stream_attributes", {})
    for (stream, attribute), value in list(kept.items()):
        if stream == source:
            kept[(destination, attribute)] = value
    return SUCCESS


@call()
def cudaStreamGetDevice(context, stream, out):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    if not out:
        return context.fail(INVALID_VALUE)
    _write(out, "i", 0)
    return SUCCESS


@call()
def cudaStreamGetId(context, stream, out):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    if not out:
        return context.fail(INVALID_VALUE)
    _write(out, "Q", stream)
    return SUCCESS


@call()
def cudaEventRecordWithFlags(context, event, stream, flags):
    if flags & ~EVENT_RECORD_EXTERNAL:
        return context.fail(INVALID_VALUE)
    if flags & EVENT_RECORD_EXTERNAL and event in context.events:
        if _captured(context, stream, graphs.event_record(context, event), NODE_EVENT_RECORD,
                     lambda: ((event,), None)):
            return SUCCESS              # an external record in a capture: an event record node
        return context.fail(ILLEGAL_STATE)   # outside a capture CUDA refuses it (an H100, CUDA 13.0)
    return cudaEventRecord.__wrapped__(context, event, stream)


@call()
def cudaThreadExchangeStreamCaptureMode(context, mode):
    """Swap the thread's capture mode with *mode; warpsim's captures do not depend on it."""
    if not mode:
        return context.fail(INVALID_VALUE)
    new = ctypes.c_int.from_address(mode).value
    if new not in CAPTURE_MODES:
        return context.fail(INVALID_VALUE)
    _write(mode, "i", context.capture_mode)
    context.capture_mode = new
    return SUCCESS


@call()
def cudaChooseDevice(context, out, properties):
    if not out or not properties:
        return context.fail(INVALID_VALUE)
    _write(out, "i", 0)            # the only device is the closest match to any properties
    return SUCCESS


@call()
def cudaInitDevice(context, device, device_flags, flags):
    return SUCCESS if device == 0 else context.fail(INVALID_DEVICE)


@call()
def cudaDeviceGetPCIBusId(context, out, length, device):
    if device != 0:
        return context.fail(INVALID_DEVICE)
    if not out or length <= 0:
        return context.fail(INVALID_VALUE)
    text = PCI_BUS_ID.encode()[:length - 1] + b"\0"
    ctypes.memmove(out, text, len(text))
    return SUCCESS


@call()
def cudaDeviceGetByPCIBusId(context, out, bus_id):
    if not out or not bus_id:
        return context.fail(INVALID_VALUE)
    text = ctypes.string_at(bus_id).decode(errors="replace").lower()
    if text not in (PCI_BUS_ID, PCI_BUS_ID[5:], PCI_BUS_ID[:-2]):     # domain and function may be left out
        return context.fail(INVALID_DEVICE)
    _write(out, "i", 0)
    return SUCCESS
