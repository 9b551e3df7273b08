"""Where the sanitizer tests' kernels are, and their source lines."""

import os

HERE = os.path.dirname(os.path.abspath(__file__))
HAZARDS = os.path.join(HERE, "hazards.cu")


def line_of(needle: str, path: str = HAZARDS) -> str:
    """'hazards.cu:N' of the first line of path containing needle."""
    with open(path, encoding="utf-8") as f:
        for number, text in enumerate(f, 1):
            if needle in text:
                return f"{os.path.basename(path)}:{number}"
    raise AssertionError(f"{needle!r} not in {path}")
