"""PTX text -> Module.

A recursive-descent parser over the token list. It accepts the PTX that NVRTC,
nvcc and numba-cuda emit (sm_70..sm_90), hand-written PTX and inline asm
blocks. Registers declared in nested `{ }` scopes are renamed so that a scope's
`.reg .pred p;` never collides with another scope's `p`.
"""

from __future__ import annotations

from ..errors import PtxParseError
from .ir import (Addr, CallInfo, Function, Guard, Imm, Instruction, Module, Not,
                 Reg, Sink, SourceLoc, Sym, Variable, Vec, range_member)
from .lexer import Token, parse_int, tokenize
from .opcodes import NO_DESTINATION
from .types import TYPE_NAMES

STATE_SPACES = frozenset({".global", ".const", ".shared", ".local", ".param", ".tex"})
LINKAGE = frozenset({".visible", ".extern", ".weak", ".common"})
PERF_DIRECTIVES = frozenset({".maxntid", ".reqntid", ".minnctapersm", ".maxnctapersm",
                             ".maxnreg", ".noreturn", ".explicitcluster", ".reqnctapercluster",
                             ".maxclusterrank", ".blocksareclusters", ".pragma", ".abi_preserve",
                             ".abi_preserve_control"})


class _Parser:
    def __init__(self, text: str, source: str):
        self.text = text
        self.source = source
        self.lines = text.split("\n")
        self.toks = tokenize(text, source)
        last = self.toks[-1] if self.toks else Token("punct", "", 1, 1)
        self.eof = Token("eof", "", last.line, last.col + len(last.text))
        self.i = 0
        self.module = Module(source_name=source, text=text)
        self.loc: SourceLoc | None = None

    # ------------------------------------------------------------ token helpers

    def error(self, message: str, tok: Token | None = None):
        tok = tok or (self.toks[self.i] if self.i < len(self.toks) else
                      (self.toks[-1] if self.toks else Token("punct", "", 1, 1)))
        line_text = self.lines[tok.line - 1] if 0 < tok.line <= len(self.lines) else ""
        raise PtxParseError(message, self.source, tok.line, tok.col, line_text.rstrip())

    def peek(self, k: int = 0) -> Token:
        """The token k ahead; past the end, an 'eof' token (text '') placed after the last one."""
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else self.eof

    def next(self) -> Token:
        if self.i >= len(self.toks):
            self.error("unexpected end of PTX")
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def at(self, text: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.text == text

    def accept(self, text: str) -> bool:
        if self.at(text):
            self.i += 1
            return True
        return False

    def expect(self, text: str) -> Token:
        tok = self.peek()
        if tok.text != text:
            self.error(f"expected '{text}', found '{tok.text or 'end of file'}'")
        return self.next()

    def word(self) -> Token:
        tok = self.next()
        if tok.kind != "word":
            self.error(f"expected a name, found '{tok.text}'", tok)
        return tok

    def integer(self) -> int:
        neg = self.accept("-")
        tok = self.next()
        if tok.kind != "int":
            self.error(f"expected an integer, found '{tok.text}'", tok)
        v = self.int_value(tok)
        return -v if neg else v

    def int_value(self, tok: Token) -> int:
        """An integer literal's value; one that is malformed or wider than 64 bits is an error."""
        try:
            v = parse_int(tok.text)
        except ValueError:
            self.error(f"malformed integer '{tok.text}'", tok)
        if v >= 1 << 64:
            self.error(f"integer '{tok.text}' does not fit in 64 bits", tok)
        return v

    def skip_statement(self):
        depth = 0
        while True:
            tok = self.next()
            if tok.text in "{(":
                depth += 1
            elif tok.text in "})":
                depth -= 1
            elif tok.text == ";" and depth <= 0:
                return

    # ------------------------------------------------------------ module level

    def parse(self) -> Module:
        while self.peek().kind != "eof":
            self.module_statement()
        return self.module

    def module_statement(self):
        tok = self.peek()
        t = tok.text
        if t == ".version":
            self.next()
            major = self.next().text
            self.module.version = major
        elif t == ".target":
            self.next()
            targets = [self.word().text]
            while self.accept(","):
                targets.append(self.word().text)
            self.module.target = tuple(targets)
        elif t == ".address_size":
            self.next()
            self.module.address_size = self.integer()
        elif t == ".file":
            self.next()
            index = self.integer()
            name = self.next()
            if name.kind != "string":
                self.error("expected a file name string", name)
            self.module.files[index] = name.text[1:-1]
            while self.accept(","):
                self.integer()
        elif t == ".section":
            self.next()
            self.word()
            self.expect("{")
            depth = 1
            while depth:
                tok = self.next()
                depth += {"{": 1, "}": -1}.get(tok.text, 0)
        elif t == ".pragma":
            self.skip_statement()
        elif t == ".loc":
            self.next()
            self.parse_loc()
        elif t in LINKAGE or t in (".entry", ".func", ".alias") or t in STATE_SPACES:
            self.declaration()
        elif t == ";":
            self.next()
        else:
            self.error(f"unexpected '{t}' at module scope")

    def declaration(self):
        start = self.peek()
        linkage = None
        while self.peek().text in LINKAGE:
            linkage = self.next().text[1:]
        t = self.peek().text
        if t in (".entry", ".func"):
            self.function(linkage, start)
        elif t == ".alias":
            self.skip_statement()
        elif t in STATE_SPACES:
            var = self.variable(linkage)
            self.module.variables[var.name] = var
        else:
            self.error(f"expected .entry, .func or a variable after linkage, found '{t}'")

    # ------------------------------------------------------------ variables

    def variable(self, linkage: str | None, in_params: bool = False) -> Variable:
        """`.space [.align N] [.vN] .type name[dims] [= init]` (no trailing ';' for params)."""
        space_tok = self.next()
        space = space_tok.text[1:]
        if space == "tex":
            self.error("texture references (.tex) are not supported", space_tok)
        align, vector, ptype, ptr_space = 0, 1, None, None
        while True:
            tok = self.peek()
            if tok.text == ".align":
                self.next()
                n = self.integer()
                if ptr_space is None:          # after .ptr, .align is the pointee's, not the parameter's
                    align = n
            elif tok.text in (".v2", ".v4", ".v8"):
                vector = int(self.next().text[2:])
            elif tok.text == ".ptr":
                self.next()
                ptr_space = "generic"
                if self.peek().text in STATE_SPACES:
                    ptr_space = self.next().text[1:]
            elif tok.kind == "word" and tok.text.startswith(".") and tok.text[1:] in TYPE_NAMES:
                ptype = self.next().text[1:]
            elif tok.text == ".attribute":     # .attribute(.managed): a __managed__ variable, global memory here
                self.next()
                self.expect("(")
                while not self.accept(")"):
                    self.next()
            elif tok.text in (".texref", ".samplerref", ".surfref"):
                self.error(f"{tok.text} variables are not supported", tok)
            elif tok.kind == "word" and tok.text.startswith(".") and tok.text in STATE_SPACES:
                ptr_space = self.next().text[1:]
            elif tok.kind == "word" and tok.text.startswith("."):
                self.error(f"unknown variable attribute '{tok.text}'", tok)
            else:
                break
        if ptype is None:
            self.error("variable declaration without a type")
        name_tok = self.word()
        count = None
        while self.accept("["):
            n = 0 if self.at("]") else self.integer()
            self.expect("]")
            count = n if count is None else count * n
        if vector > 1:
            count = vector * (1 if count is None else count)
        var = Variable(name_tok.text, space, ptype, count, align, None, linkage, name_tok.line,
                       ptr_space)
        if in_params:
            return var
        if self.accept("="):
            var.init = self.initializer()
            if var.count == 0:
                var.count = len(var.init)
        self.expect(";")
        return var

    def initializer(self) -> list:
        if self.accept("{"):
            items: list = []
            if not self.at("}"):
                items.extend(self.initializer())
                while self.accept(","):
                    items.extend(self.initializer())
            self.expect("}")
            return items
        return [self.init_element()]

    def init_element(self):
        neg = self.accept("-")
        tok = self.next()
        if tok.kind == "int":
            v = self.int_value(tok)
            return -v if neg else v
        if tok.kind == "float":
            return -float(tok.text) if neg else float(tok.text)
        if tok.kind == "fbits":
            bits = int(tok.text[2:], 16)
            return Imm(bits, 32 if tok.text[1] in "fF" else 64, tok.text)
        if tok.kind == "word":
            name = tok.text
            if name in ("generic", "global", "shared", "const", "local") and self.accept("("):
                inner = self.word().text
                offset = self.offset_suffix()
                self.expect(")")
                return Sym(inner, offset)
            return Sym(name, self.offset_suffix())
        self.error(f"bad initializer element '{tok.text}'", tok)

    def offset_suffix(self) -> int:
        if self.at("+") or (self.at("-") and self.peek(1) and self.peek(1).kind == "int"):
            sign = -1 if self.next().text == "-" else 1
            return sign * self.integer()
        return 0

    # ------------------------------------------------------------ functions

    def function(self, linkage: str | None, start: Token):
        kind = self.next().text[1:]
        fn = Function("", kind, linkage=linkage, line=start.line)
        if kind == "func" and self.at("("):
            fn.returns = self.param_list()
        fn.name = self.word().text
        if self.at("("):
            fn.params = self.param_list()
        while self.peek().text in PERF_DIRECTIVES:
            d = self.next().text[1:]
            values = []
            while self.peek().kind == "int":
                values.append(self.integer())
                if not self.accept(","):
                    break
            fn.directives[d] = tuple(values)
        if self.accept(";"):
            fn.has_body = False
        else:
            self.body(fn)
        existing = self.module.functions.get(fn.name)
        if existing is None or not existing.has_body:
            self.module.functions[fn.name] = fn

    def param_list(self) -> list:
        self.expect("(")
        params = []
        while not self.at(")"):
            if self.peek().text not in (".param", ".reg"):
                self.error(f"expected .param in parameter list, found '{self.peek().text}'")
            params.append(self.variable(None, in_params=True))
            if not self.accept(","):
                break
        self.expect(")")
        return params

    def body(self, fn: Function):
        self.expect("{")
        self.loc = None
        self.scopes = [dict()]
        self.scope_ranges = [dict()]      # per scope: prefix -> (count, type, unique suffix) of %r<N>
        self.scope_counter = 0
        self.fn = fn
        self.pending_labels: list = []
        while not (self.at("}") and len(self.scopes) == 1):
            if self.peek().kind == "eof":
                self.error("unbalanced '{' in function body")
            self.body_statement()
        closing = self.next()
        for label in self.pending_labels:
            fn.labels[label] = len(fn.body)
        if len(fn.body) in fn.labels.values() or not fn.body:
            # A label at the very end (legal PTX) or an empty body: falling off the end returns.
            fn.body.append(Instruction("ret", line=closing.line, col=closing.col, loc=self.loc,
                                       index=len(fn.body)))

    def body_statement(self):
        tok = self.peek()
        t = tok.text
        if t == "{":
            self.next()
            self.scopes.append(dict())
            self.scope_ranges.append(dict())
            self.scope_counter += 1
            self.declare_scope_labels()
        elif t == "}":
            self.next()
            self.scopes.pop()
            self.scope_ranges.pop()
            if not self.scopes:
                self.error("unbalanced '}'", tok)
        elif t == ".reg" or t.startswith(".reg."):
            self.reg_declaration()
        elif t in STATE_SPACES:
            var = self.variable(None)
            var.name = self.declare(var.name)
            self.fn.locals.append(var)
        elif t == ".loc":
            self.next()
            self.parse_loc()
        elif t in (".pragma", ".maxnreg", ".section"):
            self.skip_statement()
        elif t == ";":
            self.next()
        elif tok.kind == "word" and self.peek(1).text == ":":
            self.next()
            self.next()
            if self.at(".callprototype"):
                self.skip_statement()
            else:
                self.fn.labels[self.resolve(tok.text)] = len(self.fn.body)
        else:
            self.instruction()

    def declare_scope_labels(self):
        """Labels are local to their `{ }` scope, as registers are: inline asm blocks that each
        have a `waitLoop:` (Triton's mbarrier waits) branch to their own. Labels are declared
        when the scope opens, since a branch may come before its label."""
        depth, i = 0, self.i
        while i + 1 < len(self.toks) and depth >= 0:
            tok = self.toks[i]
            if tok.text == "{":
                depth += 1
            elif tok.text == "}":
                depth -= 1
            elif depth == 0 and tok.kind == "word" and self.toks[i + 1].text == ":":
                self.declare(tok.text)
            i += 1

    def declare(self, name: str) -> str:
        """Register a name in the current scope; inner scopes get a unique suffix."""
        unique = name if len(self.scopes) == 1 else f"{name}${self.scope_counter}"
        self.scopes[-1][name] = unique
        return unique

    def resolve(self, name: str) -> str:
        """The unique name a register or symbol refers to in the current scope.

        A register of a `%r<N>` range is entered in the function's table when
        first named: a range is never expanded, so `%r<100000000>` costs nothing.
        """
        for scope, ranges in zip(reversed(self.scopes), reversed(self.scope_ranges)):
            if name in scope:
                return scope[name]
            member = range_member(ranges, name)
            if member is not None:
                ptype, suffix = member
                scope[name] = unique = name + suffix
                self.fn.regs[unique] = ptype
                return unique
        return name

    def is_register(self, name: str) -> bool:
        return self.resolve(name) in getattr(self.fn, "regs", ())

    def reg_declaration(self):
        glued = ["." + part for part in self.next().text[len(".reg"):].split(".") if part]  # .reg.b16
        vector = 1
        ptype = None
        while glued or (self.peek().text.startswith(".") and self.peek().kind == "word"):
            t = glued.pop(0) if glued else self.next().text
            if t in (".v2", ".v4"):
                vector = int(t[2:])
            elif t[1:] in TYPE_NAMES:
                ptype = t[1:]
            else:
                self.error(f"unknown register attribute '{t}'")
        if ptype is None:
            self.error("register declaration without a type")
        if vector > 1:
            self.error("vector registers (.reg .v2/.v4) are not supported")
        while True:
            name = self.word().text
            if self.accept("<"):
                count_tok = self.peek()
                n = self.integer()
                self.expect(">")
                if not 0 <= n <= MAX_REGISTER_RANGE:
                    self.error(f"register count {n} is outside 0..{MAX_REGISTER_RANGE}", count_tok)
                suffix = "" if len(self.scopes) == 1 else f"${self.scope_counter}"
                self.scope_ranges[-1][name] = (n, ptype, suffix)
                if not suffix:
                    self.fn.regs.ranges[name] = (n, ptype)
            else:
                self.fn.regs[self.declare(name)] = ptype
            if not self.accept(","):
                break
        self.expect(";")

    def parse_loc(self):
        file = self.integer()
        line = self.integer()
        col = self.integer()
        inlined = None
        if self.accept(","):
            # function_name <label>, inlined_at file line col
            while not (self.peek().kind == "word" and self.peek().text == "inlined_at"):
                self.next()
            self.next()
            inlined = SourceLoc(self.integer(), self.integer(), self.integer())
        self.loc = SourceLoc(file, line, col, inlined)

    # ------------------------------------------------------------ instructions

    def instruction(self):
        first = self.peek()
        guard = None
        if self.accept("@"):
            negated = self.accept("!")
            guard = Guard(Reg(self.resolve(self.word().text)), negated)
        op_tok = self.word()
        opcode, *mods = op_tok.text.split(".")
        if not opcode:
            self.error(f"unknown directive or instruction '{op_tok.text}'", op_tok)
        ins = Instruction(opcode, tuple(mods), guard=guard, line=first.line, col=first.col,
                          loc=self.loc)
        if opcode == "call":
            ins.call = self.call_operands()
        else:
            operands = []
            if not self.at(";"):
                operands.append(self.operand(allow_pair=True))
                while self.accept(","):
                    operands.append(self.operand(allow_pair=False))
            self.expect(";")
            self.assign_operands(ins, operands)
        ins.index = len(self.fn.body)
        self.fn.body.append(ins)

    def assign_operands(self, ins: Instruction, operands: list):
        reduction = ins.opcode in ("bar", "barrier") and "red" in ins.mods  # bar.red d, a, p
        accumulates = ins.opcode == "wgmma" and "mma_async" in ins.mods    # wgmma.mma_async d, a, b, ...
        if (ins.opcode in NO_DESTINATION and not (reduction or accumulates)) or not operands:
            ins.srcs = tuple(o for part in operands for o in (part if isinstance(part, tuple) else (part,)))
            return
        first, rest = operands[0], operands[1:]
        ins.dsts = first if isinstance(first, tuple) else (first,)
        ins.srcs = tuple(rest)

    def call_operands(self) -> CallInfo:
        returns = ()
        if self.at("("):
            returns = self.name_list()
            self.expect(",")
        target_tok = self.word()
        target = (Reg(self.resolve(target_tok.text)) if target_tok.text.startswith("%")
                  else Sym(target_tok.text))
        args, proto = (), None
        if self.accept(","):
            if self.at("("):
                args = self.name_list()
                if self.accept(","):
                    proto = self.word().text
            else:
                proto = self.word().text
        self.expect(";")
        return CallInfo(returns, target, args, proto)

    def name_list(self) -> tuple:
        self.expect("(")
        names = []
        while not self.at(")"):
            names.append(self.operand(allow_pair=False))
            if not self.accept(","):
                break
        self.expect(")")
        return tuple(names)

    def operand(self, allow_pair: bool):
        tok = self.peek()
        if tok.text == "[":
            return self.address()
        if tok.text == "{":
            self.next()
            items = [self.operand(False)]
            while self.accept(","):
                items.append(self.operand(False))
            self.expect("}")
            return Vec(tuple(items))
        if tok.text == "!":
            self.next()
            return Not(Reg(self.resolve(self.word().text)))
        if tok.text == "-" or tok.kind in ("int", "float", "fbits"):
            return self.immediate()
        if tok.kind == "word":
            self.next()
            if tok.text == "_":  # a sink; `_|p` names only the predicate half of a pair
                if allow_pair and self.accept("|"):
                    return (Sink(), Reg(self.resolve(self.word().text)))
                return Sink()
            if tok.text == "WARP_SZ":  # PTX's predefined constant: the warp size
                return Imm(32, 0, "WARP_SZ")
            name = self.resolve(tok.text)
            if tok.text.startswith("%") or self.is_register(tok.text):  # `p`: a register too
                reg = Reg(name)
                if allow_pair and self.accept("|"):
                    return (reg, Reg(self.resolve(self.word().text)))
                return reg
            return Sym(name, self.offset_suffix())
        self.error(f"unexpected '{tok.text}' in operand")

    def immediate(self) -> Imm:
        neg = self.accept("-")
        tok = self.next()
        text = ("-" if neg else "") + tok.text
        if tok.kind == "int":
            v = self.int_value(tok)
            return Imm(-v if neg else v, 0, text)
        if tok.kind == "float":
            v = float(tok.text)
            return Imm(-v if neg else v, 0, text)
        if tok.kind == "fbits":
            bits = int(tok.text[2:], 16)
            width = 32 if tok.text[1] in "fF" else 64
            if neg:
                bits ^= 1 << (width - 1)
            return Imm(bits, width, text)
        self.error(f"expected a number, found '{tok.text}'", tok)

    def address(self) -> Addr:
        self.expect("[")
        base, offset = None, 0
        tok = self.peek()
        if tok.kind == "word":
            self.next()
            name = self.resolve(tok.text)
            base = Reg(name) if tok.text.startswith("%") else Sym(name)
            offset = self.offset_suffix()
        else:
            offset = self.integer()
        if self.at(","):
            # texture/surface form [tex, {coords}]: kept as a vector, rejected at load
            items = [base or Imm(offset)]
            while self.accept(","):
                items.append(self.operand(False))
            self.expect("]")
            return Vec(tuple(items))
        self.expect("]")
        return Addr(base, offset)


MAX_REGISTER_RANGE = (1 << 31) - 1   # %r<N>: N is a 32-bit count (the range itself is lazy)


def parse_ptx(text: str, source: str = "<ptx>") -> Module:
    """Parse PTX text into a Module; errors name source:line:column.

    Only PtxParseError leaves: a Python error inside the parser (a bug in
    warpsim) is raised as one at the token it was reading, its cause chained.
    """
    parser = _Parser(text, source)
    try:
        return parser.parse()
    except PtxParseError:
        raise
    except (RecursionError, ArithmeticError, LookupError, TypeError, ValueError, AttributeError,
            StopIteration) as exc:
        try:
            parser.error(f"warpsim's parser failed here ({type(exc).__name__}: {exc}); this is a "
                         "bug in warpsim, please report it with this PTX")
        except PtxParseError as wrapped:
            raise wrapped from exc
