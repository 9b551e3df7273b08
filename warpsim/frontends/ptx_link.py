"""Link the PTX of separately compiled translation units (nvcc -rdc=true) into one module.

A program built with `-rdc=true` registers the fatbinary nvlink made, which holds
only linked SASS; the PTX of each translation unit is in the prelinked fatbinaries
it names. warpsim runs PTX, so it links those as nvlink links their cubins, at the
level of the module's top-level statements:

  * a definition with external linkage (`.visible`, `.weak`, `.common`) serves
    every unit; its first `.extern` declaration becomes a prototype (a
    function) or the definition itself (a variable), later ones are dropped, so
    every symbol is declared before its first use as ptxas wants; a `.weak`
    (or `.common`) symbol that several units define (an inline function, a
    template instance) keeps its first definition;
  * a symbol without linkage is the unit's own (`static` functions and
    variables, printf's `$str` strings, the labels of its debug sections):
    where another unit has the same name, the later unit's is renamed, so each
    unit keeps its own;
  * the units lose all but the first .version/.target/.address_size header,
    and each unit's `.file` numbers continue from the previous units' (line info
    keeps naming the right file).

The CUDA device runtime's own unit (cudadevrt, linked for device-side launches)
is left out: warpsim does not simulate it, so its functions stay `.extern`
declarations and the machine refuses a kernel that calls one, by name. So does
any symbol no unit defines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import CompileError

__all__ = ["link_ptx"]

EXTERNAL = ("visible", "weak", "common")
_NAME_AFTER_PARAMS = re.compile(r"^\s*(?:\([^)]*\)\s*)?([A-Za-z_$%][\w$]*)")
_VARIABLE_NAME = re.compile(r"([A-Za-z_$%][\w$]*)\s*(?:\[[^\]]*\]\s*)*(?:<\s*\d+\s*>\s*)?$")
_IDENTIFIER_CHARS = r"[\w$%]"
_SECTION_LABEL = re.compile(r"(\$L__\w+)\s*:")       # a label a top-level section (debug info) defines
_SCAN = re.compile(r'//|/\*|"|[{};\n]')
# cudadevrt's unit defines the device-side launch every `<<<>>>` in a kernel calls
_DEVICE_RUNTIME_UNIT = re.compile(r"\.visible\s+\.func\s+(?:\([^)]*\)\s*)?__cudaCDP2LaunchDeviceV2\b")


@dataclass
class Statement:
    """One top-level statement of a PTX module: a directive, a variable or a function."""
    text: str
    kind: str = "other"        # 'header', 'function', 'variable' or 'other'
    name: str = ""
    linkage: str = ""          # 'extern', 'visible', 'weak', 'common' or '' (the unit's own)
    defines: bool = False      # a function body or a variable (not an .extern declaration)


def statements(ptx: str) -> list[Statement]:
    """The module's top-level statements, in order (comments kept with the statement after them)."""
    out, start, depth, i, n = [], 0, 0, 0, len(ptx)
    while i < n:
        found = _SCAN.search(ptx, i)
        if found is None:
            break
        i = found.start()
        c = ptx[i]
        if ptx.startswith("//", i):
            i = ptx.find("\n", i)
            i = n if i < 0 else i
            continue
        if ptx.startswith("/*", i):
            end = ptx.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        if c == '"':
            end = ptx.find('"', i + 1)
            i = n if end < 0 else end + 1
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and "=" not in _code(ptx[start:i]).split("{", 1)[0]:   # not an initializer
                out.append(_classify(ptx[start:i + 1]))
                start = i + 1
        elif c == ";" and depth == 0:
            out.append(_classify(ptx[start:i + 1]))
            start = i + 1
        elif c == "\n" and depth == 0 and re.match(r"\s*\.(?:version|target|address_size|file)\b",
                                                   _code(ptx[start:i])):
            out.append(_classify(ptx[start:i + 1]))      # directives without a semicolon
            start = i + 1
        i += 1
    if ptx[start:].strip():
        out.append(Statement(ptx[start:]))
    return out


def _code(text: str) -> str:
    """The text without its comments."""
    return re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.DOTALL)


def _classify(text: str) -> Statement:
    code = _code(text).strip()
    if re.match(r"\.(?:version|target|address_size)\b", code):
        return Statement(text, "header")
    words = code.split()
    linkage = next((w[1:] for w in words[:3] if w[1:] in ("extern",) + EXTERNAL), "")
    function = re.search(r"(?<![\w.])\.(?:func|entry)\b", code.split("{", 1)[0])
    if function:
        found = _NAME_AFTER_PARAMS.match(code[function.end():])
        return Statement(text, "function", found.group(1) if found else "", linkage, code.endswith("}"))
    if re.search(r"(?<![\w.])\.(?:global|const|shared)\b", code) and code.endswith(";"):
        found = _VARIABLE_NAME.search(code[:-1].split("=", 1)[0].strip())
        return Statement(text, "variable", found.group(1) if found else "", linkage, linkage != "extern")
    return Statement(text)


def _shift_files(ptx: str, offset: int) -> str:
    """Renumber `.file N` and `.loc N ...` by `offset`."""
    ptx = re.sub(r"(^[ \t]*\.file[ \t]+)(\d+)", lambda m: f"{m.group(1)}{int(m.group(2)) + offset}",
                 ptx, flags=re.MULTILINE)
    return re.sub(r"(^[ \t]*\.loc[ \t]+)(\d+)", lambda m: f"{m.group(1)}{int(m.group(2)) + offset}",
                  ptx, flags=re.MULTILINE)


def _file_numbers(ptx: str) -> list[int]:
    return [int(n) for n in re.findall(r"^[ \t]*\.file[ \t]+(\d+)", ptx, flags=re.MULTILINE)]


def _shift_unit_files(text: str, offset: int) -> str:
    """`.file` and `.loc` numbers moved by offset, those of `.loc ... inlined_at N` too."""
    text = _shift_files(text, offset)
    return re.sub(r"(\binlined_at[ \t]+)(\d+)", lambda m: f"{m.group(1)}{int(m.group(2)) + offset}", text)


def _rename(text: str, old: str, new: str) -> str:
    return re.sub(rf"(?<!{_IDENTIFIER_CHARS}){re.escape(old)}(?!{_IDENTIFIER_CHARS})", new, text)


def link_ptx(units: list[str], names: list[str] | None = None) -> str:
    """One PTX module from the PTX of each translation unit (see the module doc)."""
    names = names or [f"unit {k}" for k in range(len(units))]
    kept_units = [k for k, ptx in enumerate(units) if not _DEVICE_RUNTIME_UNIT.search(ptx)]
    units, names = [units[k] for k in kept_units], [names[k] for k in kept_units]
    parsed = [statements(ptx) for ptx in units]
    # 1. who defines each external symbol: the first unit (weak and common: later ones are dropped)
    owner: dict[str, int] = {}
    for unit, stmts in enumerate(parsed):
        for s in stmts:
            if s.defines and s.linkage in EXTERNAL:
                if s.name in owner and s.linkage == "visible" and owner[s.name] != unit:
                    raise CompileError(f"-rdc=true: '{s.name}' is defined in {names[owner[s.name]]} and "
                                       f"in {names[unit]} (a multiple definition nvlink refuses too)")
                owner.setdefault(s.name, unit)
    # 2. a unit's own symbols that another unit also names are renamed in the later unit, the labels
    # of its sections too (-lineinfo's .debug_str labels $L__info_stringN: ptxas refuses two of a name)
    taken = set(owner)
    for unit, stmts in enumerate(parsed):
        own = {s.name for s in stmts if s.name and s.linkage == "" and s.kind in ("function", "variable")}
        own |= {label for s in stmts if s.kind == "other" for label in _SECTION_LABEL.findall(_code(s.text))}
        clashes = sorted(own & taken)
        taken |= own
        if clashes:
            text = "".join(s.text for s in stmts)
            for name in clashes:
                text = _rename(text, name, f"{name}__rdc{unit}")
            parsed[unit] = statements(text)
    # 3. the module: one header, every unit's statements but resolved declarations and duplicates.
    # ptxas (SASS for the timing model) wants a symbol declared before its first use: an extern
    # variable becomes its definition where first declared, an extern function a prototype.
    definitions = {s.name: s for unit, stmts in enumerate(parsed) for s in stmts
                   if s.defines and s.kind in ("function", "variable") and owner.get(s.name) == unit}
    kept, header_done, placed, declared = [], False, set(), set()
    file_offset = 0
    for unit, stmts in enumerate(parsed):
        if unit:                          # files numbered on from the previous units' (nvdisasm -g
            file_offset += max(_file_numbers(units[unit - 1]), default=0)   # fails on sparse numbers)
        for s in stmts:
            text = s.text
            if s.kind == "header":
                if header_done:
                    continue
            elif s.kind in ("function", "variable") and s.name in owner:
                if s.defines:
                    if owner[s.name] != unit or s.name in placed:    # a weak copy, or placed early
                        continue
                    placed.add(s.name)
                elif s.name in placed or s.name in declared:
                    continue
                elif s.kind == "variable":
                    text = definitions[s.name].text
                    placed.add(s.name)
                else:
                    text = re.sub(r"\.extern\b", "." + definitions[s.name].linkage, text, count=1)
                    declared.add(s.name)
            elif s.linkage == "extern":                   # defined nowhere: declared once
                if s.name in declared:
                    continue
                declared.add(s.name)
            kept.append(text if unit == 0 else _shift_unit_files(text, file_offset))
        header_done = True
    return "".join(kept)
