"""Symbol names as people read them."""

from __future__ import annotations


def demangle(name: str) -> str:
    """A readable kernel name: `ns::kernel` from an Itanium-mangled one (Numba's, templates),
    else the name itself."""
    if not name.startswith("_Z"):
        return name
    k = 3 if name.startswith("_ZN") else 2
    parts = []
    while k < len(name) and name[k] != "E":
        if name[k] == "B":                       # ABI tag: B <length> <tag>
            k += 1
        if not name[k].isdigit():
            break
        j = k
        while j < len(name) and name[j].isdigit():
            j += 1
        length = int(name[k:j])
        if name[k - 1] != "B" or k == 2:
            parts.append(name[j:j + length])
        k = j + length
        if not name.startswith("_ZN"):
            break
    return "::".join(parts) if parts else name
