"""Module -> PTX text. Parsing the printed text gives the same IR (round trip)."""

from __future__ import annotations

from .ir import Function, Imm, Module, Sym, Variable, format_instruction  # noqa: F401 (printer API)


def _init_element(e) -> str:
    if isinstance(e, Imm):
        return e.text
    if isinstance(e, Sym):
        return f"generic({e})"
    return repr(e) if isinstance(e, float) else str(e)


def format_variable(v: Variable, param: bool = False) -> str:
    parts = []
    if v.linkage:
        parts.append(f".{v.linkage}")
    parts.append(f".{v.space}")
    if v.align:
        parts.append(f".align {v.align}")
    parts.append(f".{v.type}")
    if v.ptr_space:
        parts.append(".ptr" + (f" .{v.ptr_space}" if v.ptr_space != "generic" else ""))
    name = v.name
    if v.count is not None:
        name += f"[{v.count}]" if v.count else "[]"
    parts.append(name)
    text = " ".join(parts)
    if v.init is not None:
        text += " = {" + ", ".join(_init_element(e) for e in v.init) + "}"
    return text if param else text + ";"


def format_function(fn: Function) -> str:
    lines = []
    head = (f".{fn.linkage} " if fn.linkage else "") + f".{fn.kind} "
    if fn.returns:
        head += "(" + ", ".join(format_variable(r, True) for r in fn.returns) + ") "
    head += fn.name
    head += "(" + ", ".join(format_variable(p, True) for p in fn.params) + ")"
    for d, values in fn.directives.items():
        head += f" .{d} " + ", ".join(map(str, values))
    if not fn.has_body:
        return head + ";"
    lines.append(head)
    lines.append("{")
    ranges = getattr(fn.regs, "ranges", {})
    for prefix, (count, t) in ranges.items():
        lines.append(f"\t.reg .{t} {prefix}<{count}>;")
    for name, t in fn.regs.items():
        if not (ranges and fn.regs.range_type(name) == t):
            lines.append(f"\t.reg .{t} {name};")  # scoped names keep their $N suffix
    for v in fn.locals:
        lines.append("\t" + format_variable(v))
    by_index: dict = {}
    for label, index in fn.labels.items():
        by_index.setdefault(index, []).append(label)
    for k, ins in enumerate(fn.body):
        for label in by_index.get(k, ()):
            lines.append(f"{label}:")
        lines.append("\t" + format_instruction(ins))
    for label in by_index.get(len(fn.body), ()):
        lines.append(f"{label}:")
    lines.append("}")
    return "\n".join(lines)


def format_module(module: Module) -> str:
    out = [f".version {module.version}", ".target " + ", ".join(module.target),
           f".address_size {module.address_size}", ""]
    for v in module.variables.values():
        out.append(format_variable(v))
    for fn in module.functions.values():
        out.append(format_function(fn))
    for index, path in module.files.items():
        out.append(f'.file {index} "{path}"')
    return "\n".join(out) + "\n"
