"""What the fuzz tests run on each mutant: parse, verify, load and launch it.

Any exception that is not a WarpsimError escapes to the caller: that is a bug.
"""

from __future__ import annotations

import warnings

import warpsim
from warpsim.machine.device import Device

BUFFER_BYTES = 1 << 16


def exercise(text: str, launch: bool = True) -> None:
    """Load the module on a fresh small device and launch each kernel once (2 x 64 threads)."""
    device = Device(memory_size=64 << 20)
    with warpsim.settings(max_rounds=2000, watchdog_seconds=2.0, progress=False), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = device.load_module(text, "fuzz.ptx")
        if not launch:
            return
        for name in loaded.kernel_names:
            try:
                params = loaded.params(name)
            except warpsim.WarpsimError:
                continue
            size = max((off + size for _, off, size, _, _ in params), default=0)
            buffer = bytearray(size)
            for _, off, psize, _, _ in params:
                value = device.memory.allocate(BUFFER_BYTES, initialized=True) if psize == 8 else 16
                buffer[off:off + min(psize, 8)] = int(value).to_bytes(8, "little")[:psize]
            try:
                loaded.launch(name, (2,), (64,), bytes(buffer))
            except warpsim.WarpsimError:
                pass


def run_one(text: str):
    """None if the mutant ended well or with a WarpsimError, else the escaping exception."""
    try:
        exercise(text)
    except warpsim.WarpsimError:
        return None
    except Exception as exc:          # noqa: BLE001 (the point: anything else is a finding)
        return exc
    return None


if __name__ == "__main__":          # python tests/ptx/fuzz_target.py N: a longer campaign
    import collections
    import random
    import sys
    import traceback

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    from ptx_mutations import mutate, seeds

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    texts = list(seeds().values())
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 0)
    classes, internals = collections.Counter(), collections.Counter()
    examples = {}
    internal = 0
    for k in range(count):
        choices = [rng.randrange(1 << 16) for _ in range(2 * rng.randint(1, 3))]
        text = mutate(texts[k % len(texts)], choices)
        try:
            exercise(text)
        except warpsim.errors.InternalError as exc:
            internal += 1
            cause = exc.__cause__ or exc
            frame = traceback.extract_tb(cause.__traceback__)[-1] if cause.__traceback__ else None
            key = ("InternalError from " + type(cause).__name__,
                   f"{frame.filename.split('warpsim/')[-1]}:{frame.lineno}" if frame else "?")
            examples.setdefault(key, (k % len(texts), choices))
            internals[key] += 1
        except warpsim.WarpsimError:
            pass
        except Exception as exc:     # noqa: BLE001
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            key = (type(exc).__name__, f"{frame.filename.split('warpsim/')[-1]}:{frame.lineno}")
            classes[key] += 1
            examples.setdefault(key, (k % len(texts), choices))
    print(f"{count} mutants, {sum(classes.values())} escapes in {len(classes)} classes, "
          f"{internal} internal errors")
    for key, n in (classes + internals).most_common():
        print(n, key, examples[key])
