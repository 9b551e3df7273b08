"""A loaded module ready to run: functions cut into blocks with global ids,
symbols laid out in their state spaces, every instruction checked.

Block ids are global across functions so a thread's program counter is one
integer; lower ids come first in the text, which is the order the scheduler
uses to pick among a warp's divergent groups (lanes waiting at a later block
let the earlier ones catch up, so warps reconverge at the join).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from ..errors import DeviceRuntimeNotSimulated, UnsupportedInstruction, WarpsimError
from ..ptx.cfg import CFG
from ..ptx.ir import Addr, Function, Module, Sym, Vec
from .isa import is_cta_barrier, is_warp_sync, lookup
from .isa.builtins import BUILTINS, is_device_runtime


@dataclass
class ProgramBlock:
    gid: int
    function: Function
    cfg_block: object
    instructions: list
    kind: str                      # 'code', 'barrier' or 'warp_sync'
    next_gid: int                  # block that follows in the text (-1: none)
    compiled: object = None        # generated Python function, built on first use
    member_mask: object = None     # for warp_sync blocks: evaluates the mask per lane
    source: str = ""               # generated source, for debugging


@dataclass
class SymbolLayout:
    """Where each variable lives: global/const addresses, shared and local offsets."""
    global_addresses: dict = field(default_factory=dict)   # name -> device address
    shared_offsets: dict = field(default_factory=dict)     # name -> offset in the CTA's shared window
    dynamic_shared: dict = field(default_factory=dict)     # extern .shared name -> offset
    static_shared_size: int = 0
    local_offsets: dict = field(default_factory=dict)      # qualified name -> offset in the frame
    local_size: int = 0


class Program:
    def __init__(self, module: Module, source: str = "<ptx>"):
        self.module = module
        self.source = source
        self.blocks: list[ProgramBlock] = []
        self.function_entry: dict[str, int] = {}
        self.cfgs: dict[str, CFG] = {}
        self.layout = SymbolLayout()
        self.global_addresses: dict[str, int] = {}   # filled when the module is loaded on a device
        self.sources: dict = {}                       # file name -> text, for code given as a string
        self.return_copies: dict[int, list] = {}      # return block -> (callee var, caller var, size)
        self._checked: set = set()
        self._build_blocks()
        self._layout_shared()
        self._layout_local()
        self._layout_params()
        self.recursive_functions = self._recursive_functions()

    # ------------------------------------------------------------ checking

    def check_kernel(self, kernel: str):
        """Every instruction the kernel can reach is one warpsim simulates (checked once).

        Only the kernel and the functions it calls are checked, so one kernel
        with an unsupported instruction leaves the module's others usable.
        """
        if kernel in self._checked:
            return
        for name in self.reachable_functions(kernel):
            self._check_function(self.module.functions[name])
        self._checked.add(kernel)

    def check_all(self):
        for kernel in self.module.kernels:
            self.check_kernel(kernel.name)

    def reachable_functions(self, kernel: str) -> list:
        """The kernel and every function with a body it can call, directly or not."""
        found, stack = [], [kernel]
        while stack:
            name = stack.pop()
            fn = self.module.functions.get(name)
            if fn is None or not fn.has_body or name in found:
                continue
            found.append(name)
            stack.extend(callee for ins in fn.body if ins.opcode == "call" for callee in self.call_targets(ins))
        return found

    def call_targets(self, ins) -> list:
        """The functions a call instruction may reach: its target, or for a call through a pointer
        (a virtual function) every function whose address the module takes with as many
        parameters and return values."""
        call = ins.call
        if isinstance(call.target, Sym):
            return [call.target.name]
        return [name for name in sorted(self.address_taken)
                if len(self.module.functions[name].params) == len(call.args)
                and len(self.module.functions[name].returns) == len(call.returns)]

    @functools.cached_property
    def address_taken(self) -> set:
        """Functions with a body whose name a variable's initializer (a vtable) or an instruction's
        operand (mov of the name) holds: the only ones a pointer can reach (looked for only in a
        module with a call through a pointer)."""
        functions = {name for name, fn in self.module.functions.items() if fn.has_body}
        named = {e.name for v in self.module.variables.values() for e in (v.init or ()) if isinstance(e, Sym)}

        def symbols(operand):
            if isinstance(operand, Sym):
                yield operand.name
            elif isinstance(operand, Addr) and isinstance(operand.base, Sym):
                yield operand.base.name
            elif isinstance(operand, Vec):
                for item in operand.items:
                    yield from symbols(item)
        for fn in self.module.functions.values():
            for ins in fn.body:
                if ins.opcode != "call":
                    named.update(name for operand in ins.srcs for name in symbols(operand))
        return named & functions

    def _check_function(self, fn):
        for ins in fn.body:
            try:
                self._check_instruction(ins)
            except UnsupportedInstruction as exc:
                raise type(exc)(ins, exc.reason, self.source, fn.name, self.source_line(ins)) from None

    def _check_instruction(self, ins):
        lookup(ins, self.source)
        if ins.opcode != "call":
            return
        target = ins.call.target
        if ins.guard is not None:
            raise UnsupportedInstruction(ins, "predicated call")
        if not isinstance(target, Sym):
            if not self.call_targets(ins):
                raise UnsupportedInstruction(ins, "call through a function pointer, where the module takes the "
                                                  "address of no function of that signature")
            return
        callee = self.module.functions.get(target.name)
        if target.name in BUILTINS and callee is not None:
            return
        if (callee is None or not callee.has_body) and is_device_runtime(target.name):
            raise DeviceRuntimeNotSimulated(ins, f"call of '{target.name}' from the CUDA device runtime "
                                                 "(cudadevrt): this one is not simulated; launches, "
                                                 "streams, events, errors, cudaMalloc/cudaFree and 1D/2D "
                                                 "cudaMemcpyAsync/cudaMemsetAsync are")
        if callee is None or not callee.has_body:
            raise UnsupportedInstruction(ins, f"call of '{target.name}', which has no body in this "
                                              "module (external functions are not linked)")

    # ------------------------------------------------------------ blocks

    def _build_blocks(self):
        for fn in self.module.functions.values():
            if not fn.has_body:
                continue
            cfg = CFG(fn, is_warp_sync=is_warp_sync, is_cta_barrier=is_cta_barrier)
            self.cfgs[fn.name] = cfg
            base = len(self.blocks)
            self.function_entry[fn.name] = base
            for b in cfg.blocks:
                instructions = fn.body[b.start:b.end]
                first = instructions[0]
                kind = ("barrier" if is_cta_barrier(first) else
                        "warp_sync" if is_warp_sync(first) else "code")
                nxt = base + b.id + 1 if b.id + 1 < len(cfg.blocks) else -1
                self.blocks.append(ProgramBlock(base + b.id, fn, b, instructions, kind, nxt))
            if not cfg.blocks:
                raise WarpsimError(f"{self.source}: function '{fn.name}' has an empty body")

    def entry_block(self, kernel: str) -> int:
        return self.function_entry[kernel]

    def block_gid(self, fn: Function, local_id: int) -> int:
        return self.function_entry[fn.name] + local_id

    def label_gid(self, fn: Function, label: str) -> int:
        return self.block_gid(fn, self.cfgs[fn.name].target_block(label))

    # ------------------------------------------------------------ symbols

    def _layout_shared(self):
        """Offsets of .shared variables, compact per kernel.

        Each kernel gets the variables it and its callees name; variables of
        different kernels may overlap (they never live in the same CTA), those
        of one kernel never do. Dynamic shared memory (extern arrays) starts
        after the largest kernel's static variables.
        """
        static, dynamic = [], []
        for v in self.module.variables.values():
            if v.space == "shared":
                (dynamic if v.count == 0 and v.linkage == "extern" else static).append(v)
        for fn in self.module.functions.values():
            static.extend(v for v in fn.locals if v.space == "shared")
        by_name = {v.name: v for v in static}
        self.kernel_shared: dict[str, list] = {}
        for kernel in self.module.kernels:
            names = self._shared_names_reached(kernel.name, by_name)
            self.kernel_shared[kernel.name] = [by_name[n] for n in names]
        placed: dict[str, tuple] = {}
        for kernel, variables in self.kernel_shared.items():
            taken = [placed[v.name] for v in variables if v.name in placed]
            for v in variables:
                if v.name in placed:
                    continue
                offset = _first_fit(taken, v.size, v.alignment)
                placed[v.name] = (offset, offset + v.size)
                taken.append(placed[v.name])
        for v in static:               # named by no kernel: keep an address anyway
            if v.name not in placed:
                end = max((e for _, e in placed.values()), default=0)
                offset = _align(end, v.alignment)
                placed[v.name] = (offset, offset + v.size)
        self.layout.shared_offsets = {name: start for name, (start, _) in placed.items()}
        self.kernel_static_shared = {
            k: max((placed[v.name][1] for v in vs), default=0) for k, vs in self.kernel_shared.items()}
        end = max((e for _, e in placed.values()), default=0)
        self.layout.static_shared_size = end
        dyn_base = _align(end, max([16] + [v.alignment for v in dynamic]))
        for v in dynamic:
            self.layout.dynamic_shared[v.name] = dyn_base
            self.layout.shared_offsets[v.name] = dyn_base
        self.dynamic_shared_base = dyn_base

    def _shared_names_reached(self, kernel: str, shared: dict) -> list:
        """Static .shared variables named by a kernel and the functions it calls."""
        names = []
        for name in self.reachable_functions(kernel):
            fn = self.module.functions[name]
            names += [v.name for v in fn.locals if v.space == "shared"]
            for ins in fn.body:
                for op in ins.srcs + ins.dsts:
                    sym = op.base if isinstance(op, Addr) else op
                    if isinstance(sym, Sym) and sym.name in shared:
                        names.append(sym.name)
        return list(dict.fromkeys(names))

    def _layout_local(self):
        offset = 0
        for fn in self.module.functions.values():
            for v in fn.locals:
                if v.space == "local":
                    offset = _align(offset, max(v.alignment, 8))
                    self.layout.local_offsets[(fn.name, v.name)] = offset
                    offset += v.size
        self.layout.local_size = offset

    def _layout_params(self):
        """Kernel parameter offsets, and sizes of every per-thread .param variable."""
        self.param_offsets: dict[str, dict] = {}
        self.param_layouts: dict[str, list] = {}
        self.param_var_sizes: dict[str, int] = {}
        for fn in self.module.functions.values():
            if fn.kind == "entry":
                offset, layout = 0, []
                for p in fn.params:
                    offset = _align(offset, p.alignment)
                    layout.append((p.name, offset, p.size, p.alignment))
                    offset += p.size
                self.param_offsets[fn.name] = {name: off for name, off, _, _ in layout}
                self.param_layouts[fn.name] = layout
            else:
                for p in fn.params + fn.returns:
                    self.param_var_sizes[f"{fn.name}::{p.name}"] = p.size
            for v in fn.locals:
                if v.space == "param":
                    self.param_var_sizes[f"{fn.name}::{v.name}"] = v.size

    def stack_frame_bytes(self, function: str) -> int:
        """Stack a call of a recursive function takes: its .local variables and 16 bytes
        (return address and saved registers; arguments travel in registers, as in CUDA's ABI)."""
        fn = self.module.functions[function]
        local = sum(v.size for v in fn.locals if v.space == "local")
        return (local + 15) // 16 * 16 + 16

    def _recursive_functions(self) -> set:
        """Functions that can call themselves, directly or through others."""
        calls = {name: {callee for ins in fn.body if ins.opcode == "call" for callee in self.call_targets(ins)}
                 for name, fn in self.module.functions.items()}
        recursive = set()
        for start in calls:
            seen, stack = set(), list(calls[start])
            while stack:
                f = stack.pop()
                if f == start:
                    recursive.add(start)
                    break
                if f not in seen:
                    seen.add(f)
                    stack.extend(calls.get(f, ()))
        return recursive

    def source_line(self, ins) -> str:
        """'file.cu:12' for an instruction with line info, else ''."""
        loc = ins.loc
        if loc is None:
            return ""
        path = self.module.files.get(loc.file, f"file{loc.file}")
        return f"{path}:{loc.line}"

    def source_line_with_text(self, ins) -> str:
        """'file.cu:12' and, below it, that line of the source when it can be read."""
        where = self.source_line(ins)
        if not where:
            return ""
        from ..ptx.sources import source_text
        path = self.module.files.get(ins.loc.file, "")
        text = source_text(path, ins.loc.line, self.sources)
        return f"{where}\n    {text}" if text else where


def _first_fit(taken: list, size: int, align: int) -> int:
    """Lowest aligned offset where [offset, offset+size) overlaps no taken range."""
    offset = 0
    for start, end in sorted(taken):
        if _align(offset, align) + size <= start:
            break
        offset = max(offset, end)
    return _align(offset, align)


def _align(x: int, a: int) -> int:
    a = max(1, a)
    return (x + a - 1) // a * a
