"""`nvdisasm -c -g -gp -hex` text -> the SASS IR.

One nvdisasm run prints every instruction with its offset, its two encoding
words (-hex), and, whenever they change, its source line (-g) and PTX line
(-gp, `.nv_debug_ptx_txt`, numbered as the PTX text ptxas read). Line info is
printed only on change, so it is carried forward instruction by instruction.
The operand syntax is a table of (kind, pattern) tried in order, one line per
kind; prefixes (-, |..|, !, ~) and suffixes (.reuse, .64, .H1) are peeled off
first, so each pattern is the bare form.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import tempfile
from pathlib import Path

from ..errors import CompileError
from .blocks import split_blocks
from .ir import ControlCodes, Operand, SassFunction, SassInstruction, SassModule
from ..cache import write_atomically
from .toolchain import nvdisasm_path, sass_cache_dir, tool_version

__all__ = ["disassemble", "parse_listing", "parse_operand", "parse_instruction", "decode_control", "run_nvdisasm"]

NVDISASM_OPTIONS = ("-c", "-g", "-gp", "-hex")

# --- listing lines ------------------------------------------------------------

_SECTION = re.compile(r"^\s*\.section\s+\.text\.([^,\s]+)")
_ENTRY_MARK = re.compile(r'^\s*\.other\s+([^,\s]+),\s*@"[^"]*STO_CUDA_ENTRY')
_LABEL = re.compile(r"^\s*([.$\w]+):\s*$")
_LINE_INFO = re.compile(r'^\s*//## File "([^"]*)", line (\d+)')
_INSTRUCTION = re.compile(r"^\s*/\*([0-9a-fA-F]+)\*/\s*(.*?)\s*;?\s*(?:/\*\s*0x([0-9a-fA-F]{16})\s*\*/)?\s*$")
_HIGH_WORD = re.compile(r"^\s*/\*\s*0x([0-9a-fA-F]{16})\s*\*/\s*$")
PTX_FILE = ".nv_debug_ptx_txt"

# --- operands: kind -> bare pattern, tried in order ---------------------------

OPERAND_KINDS = [
    ("label", re.compile(r"`\(([^)]*)\)")),
    ("const", re.compile(r"c\[(0x[0-9a-fA-F]+|\d+)\]\[([^\]]+)\]")),
    ("mem", re.compile(r"(?:desc\[(\w+)\])?\[([^\]]*)\]")),
    ("reg", re.compile(r"R(\d+|Z)")),
    ("ureg", re.compile(r"UR(\d+|Z)")),
    ("pred", re.compile(r"P(\d+|T)")),
    ("upred", re.compile(r"UP(\d+|T)")),
    ("barrier", re.compile(r"B(\d+)")),
    ("scoreboard", re.compile(r"SB(\d+)")),
    ("special", re.compile(r"(SRZ|SR_[\w.]+)")),
    ("imm", re.compile(r"([+-]?0x[0-9a-fA-F]+|[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|INF|QNAN|NAN))")),
]
_SUFFIX = re.compile(r"\.(\w+)$")
_REGISTER_KINDS = {"reg", "ureg", "pred", "upred", "barrier", "scoreboard"}

def _number(text: str) -> int | float:
    text = text.strip()
    if re.fullmatch(r"[+-]?0x[0-9a-fA-F]+", text):
        return int(text, 16)
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    upper = text.upper().lstrip("+")
    if upper in ("INF", "-INF"):
        return float(upper)
    if upper.lstrip("-") in ("QNAN", "NAN"):
        return float("nan")
    return float(text)

def _address_parts(inside: str) -> tuple:
    """'R2.64+UR4+-0x10' -> (register operands, immediate displacement)."""
    parts, displacement = [], 0
    for term in filter(None, (t.strip() for t in inside.replace("-0x", "+-0x").split("+"))):
        try:
            displacement += _number(term)
        except ValueError:
            parts.append(parse_operand(term))
    return tuple(parts), int(displacement)

def parse_operand(text: str) -> Operand:
    """One operand's text -> Operand (kind 'other' when no pattern fits: kept, never dropped)."""
    bare, flags = text.strip(), {"negate": False, "absolute": False, "invert": False}
    if bare[:1] == "-" and not re.match(r"-(0x|\d|INF|QNAN)", bare):
        flags["negate"], bare = True, bare[1:]
    if bare[:1] in "!~" and bare:
        flags["invert"], bare = True, bare[1:]
    absolute = re.fullmatch(r"\|([^|]+)\|((?:\.\w+)*)", bare)     # |R6|, |R0|.reuse.H0_H0
    if absolute:
        flags["absolute"], bare = True, absolute.group(1) + absolute.group(2)
    suffixes, reuse = [], False
    for kind, pattern in OPERAND_KINDS:
        core, tail = bare, []
        while True:
            m = pattern.fullmatch(core)
            if m or kind in ("label", "const", "mem", "imm"):
                break
            s = _SUFFIX.search(core)
            if not s:
                break
            tail.insert(0, s.group(1))
            core = core[:s.start()]
        if not m:
            continue
        reuse = "reuse" in tail
        suffixes = tuple(t for t in tail if t != "reuse")
        return _build(kind, m, core, text.strip(), flags, reuse, suffixes)
    return Operand("other", text.strip(), name=bare, **flags)

def _build(kind, m, core, text, flags, reuse, suffixes) -> Operand:
    if kind == "label":
        return Operand(kind, text, name=m.group(1), **flags)
    if kind == "const":
        parts, offset = _address_parts(m.group(2))
        return Operand(kind, text, name=core, bank=int(m.group(1), 0), offset=offset, parts=parts,
                       reuse=reuse, suffixes=suffixes, **flags)
    if kind == "mem":
        parts, offset = _address_parts(m.group(2))
        descriptor = parse_operand(m.group(1)) if m.group(1) else None
        return Operand(kind, text, name=core, offset=offset, parts=parts, descriptor=descriptor, **flags)
    if kind == "imm":
        value = _number(m.group(1))
        return Operand(kind, text, name=core, value=value, **flags)
    if kind == "special":
        return Operand(kind, text, name=core, **flags)
    index = m.group(1)
    number = int(index) if index.isdigit() else None
    return Operand(kind, text, name=core, number=number, reuse=reuse, suffixes=suffixes, **flags)

def _split_operands(text: str) -> list:
    """Top-level commas separate operands; a space does too (`RET.REL.NODEC R20 `(k)`)."""
    pieces, depth, current = [], 0, ""
    for char in text:
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
        if char == "," and depth == 0:
            pieces.append(current)
            current = ""
        else:
            current += char
    pieces.append(current)
    result = []
    for piece in (p.strip() for p in pieces):
        if not piece:
            continue
        label = piece.find("`(")
        if label > 0 and piece[:label].strip():
            result += [piece[:label].strip(), piece[label:].strip()]
        else:
            result.append(piece)
    return result

_GUARD = re.compile(r"^@(!?U?P(?:\d+|T))\s+")
_BRANCH_TARGETS = re.compile(r'\(\*"BRANCH_TARGETS\s+([^"]*)"\*\)')
_ANNOTATION = re.compile(r'\s*\(\*"[^"]*"\*\)')     # `(*"SpillRefill"*)`: nvdisasm's remark, no operand

def parse_instruction(text: str, offset: int = 0, **extra) -> SassInstruction:
    """'@!P0 IMAD.WIDE.U32 R2, R9, 0x4, R2' -> SassInstruction (no control codes or lines)."""
    text = text.strip().rstrip(";").strip()
    guard, body = None, text
    m = _GUARD.match(body)
    if m:
        guard, body = parse_operand(m.group(1)), body[m.end():]
    mnemonic, _, rest = body.partition(" ")
    opcode, *mods = mnemonic.split(".")
    targets = ()
    m = _BRANCH_TARGETS.search(rest)
    if m:           # `BRX R4 -0x150 (*"BRANCH_TARGETS .L_x_1,.L_x_2"*)`: the targets ptxas knows of
        targets = tuple(t.strip() for t in m.group(1).split(",") if t.strip())
        rest = rest[:m.start()] + rest[m.end():]
    rest = _ANNOTATION.sub("", rest)
    pieces = _split_operands(rest)
    if opcode in ("BRX", "JMX"):    # `R4 -0x150`: register and displacement, no comma
        pieces = [part for piece in pieces for part in piece.split()]
    operands = tuple(parse_operand(piece) for piece in pieces)
    return SassInstruction(offset, opcode, tuple(mods), operands, guard, text, branch_targets=targets, **extra)

# --- control codes --------------------------------------------------------------

# (field, first bit within the high 64-bit word, width): bits 105..125 of the instruction
CONTROL_FIELDS = [("stall", 41, 4), ("yield_bit", 45, 1), ("write_barrier", 46, 3),
                  ("read_barrier", 49, 3), ("wait_mask", 52, 6), ("reuse_mask", 58, 4)]
NO_BARRIER = 7

def decode_control(high_word: int) -> ControlCodes:
    values = {name: high_word >> first & ((1 << width) - 1) for name, first, width in CONTROL_FIELDS}
    for name in ("write_barrier", "read_barrier"):
        if values[name] == NO_BARRIER:
            values[name] = None
    return ControlCodes(**values)

# --- the listing ------------------------------------------------------------------

def parse_listing(text: str) -> dict:
    """nvdisasm's text -> name -> SassFunction (blocks included), in listing order."""
    functions, entries = {}, set()
    current = None
    for line in text.splitlines():
        m = _SECTION.match(line)
        if m:
            current = {"name": m.group(1), "instructions": [], "labels": {}, "pending": None,
                       "source": None, "ptx_line": None}
            functions[current["name"]] = current
            continue
        m = _ENTRY_MARK.match(line)
        if m:
            entries.add(m.group(1))
            continue
        if current is None:
            continue
        m = _LINE_INFO.match(line)
        if m:
            if m.group(1) == PTX_FILE:
                current["ptx_line"] = int(m.group(2))
            else:
                current["source"] = (m.group(1), int(m.group(2)))
            continue
        m = _HIGH_WORD.match(line)
        if m and current["pending"] is not None:
            _finish(current, int(m.group(1), 16))
            continue
        m = _INSTRUCTION.match(line)
        if m:
            _flush(current)
            low = int(m.group(3), 16) if m.group(3) else None
            current["pending"] = (int(m.group(1), 16), m.group(2), low)
            continue
        m = _LABEL.match(line)
        if m and m.group(1) not in (current["name"], ".text." + current["name"]):
            _flush(current)
            current["labels"][m.group(1)] = len(current["instructions"])
    result = {}
    for name, state in functions.items():
        _flush(state)
        instructions = state["instructions"]
        fn = SassFunction(name, instructions, state["labels"], entry=name in entries,
                          index_of_offset={ins.offset: k for k, ins in enumerate(instructions)})
        fn.blocks = split_blocks(fn)
        result[name] = fn
    return result

def _finish(state: dict, high: int | None) -> None:
    offset, text, low = state["pending"]
    state["pending"] = None
    state["instructions"].append(parse_instruction(
        text, offset, control=decode_control(high) if high is not None else None,
        encoding=(low, high) if low is not None and high is not None else None,
        ptx_line=state["ptx_line"], source=state["source"]))

def _flush(state: dict) -> None:
    """An instruction without its second hex word (no -hex) is finished without control codes."""
    if state["pending"] is not None:
        _finish(state, None)

# --- running nvdisasm -------------------------------------------------------------

def run_nvdisasm(cubin: bytes) -> str:
    """The listing text of a cubin, cached on disk by cubin digest and nvdisasm version."""
    exe = nvdisasm_path()
    key = hashlib.sha256(cubin + repr((tool_version(exe), NVDISASM_OPTIONS)).encode()).hexdigest()
    path = sass_cache_dir() / "listing" / (key + ".txt")
    try:
        return path.read_text()
    except OSError:
        pass
    with tempfile.TemporaryDirectory(prefix="warpsim-nvdisasm-") as tmp:
        source = Path(tmp) / "module.cubin"
        source.write_bytes(cubin)
        try:
            done = subprocess.run([exe, *NVDISASM_OPTIONS, str(source)], capture_output=True, text=True,
                                  timeout=300)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise CompileError(f"could not run nvdisasm ({exe}): {exc}") from None
    if done.returncode != 0:
        raise CompileError("nvdisasm could not read the cubin", (done.stderr or done.stdout).strip())
    write_atomically(path, done.stdout.encode())
    return done.stdout

def disassemble(cubin: bytes, **module_fields) -> SassModule:
    """A cubin -> SassModule (module_fields: arch, ptxas_version, ptx_text, notes)."""
    from .elf import ptx_text_in_cubin, cubin_arch
    fields = dict(module_fields)
    fields.setdefault("arch", cubin_arch(cubin))
    if not fields.get("ptx_text"):
        fields["ptx_text"] = ptx_text_in_cubin(cubin)
    return SassModule(parse_listing(run_nvdisasm(cubin)), cubin=cubin, **fields)
