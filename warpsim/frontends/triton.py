"""@triton.jit kernels -> PTX with Triton's own compiler, for a GPU target, without a GPU.

Triton's JIT specializes a kernel on its arguments before compiling (an int
equal to 1 becomes a constant, pointers and ints divisible by 16 get a
divisibility attribute that allows vector loads, annotated and defaulted
parameters are bound). compile_triton runs that same code of Triton's
(the JITFunction's binder and _pack_args, for a backend made for the target)
and then `triton.compile` on an ASTSource, so the PTX is the one Triton would
load on an sm_80 or sm_90 GPU. Arguments stand for device arrays through any
object with `data_ptr()` and a `dtype` whose str is a NumPy/Torch dtype name.

Triton's PTX keeps `.loc` lines into the kernel's Python file, so reports
name the Python lines. A kernel takes two parameters more than its
non-constant arguments: a global scratch buffer and a profiling scratch
buffer (CompiledTriton says how large, per program).
"""

from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass
from functools import lru_cache

from ..errors import CompileError

__all__ = ["CompiledTriton", "compile_triton", "triton_available", "DEFAULT_ARCH"]

DEFAULT_ARCH = 80
CONSTEXPR = "constexpr"


def triton_available() -> bool:
    try:
        import triton  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass(frozen=True)
class CompiledTriton:
    """One specialization of a Triton kernel, compiled to PTX for one target."""

    name: str
    ptx: str
    arch: int
    num_warps: int
    shared: int                    # dynamic shared memory bytes per program
    global_scratch_size: int       # bytes per program
    global_scratch_align: int
    profile_scratch_size: int
    profile_scratch_align: int
    signature: dict                # parameter -> Triton type ('*fp32', 'i32', 'constexpr', ...)
    runtime_args: tuple            # the argument values the kernel's parameters take, in order
    tensordesc_meta: tuple = ()    # per tensor-descriptor argument: Triton's swizzle, element size, box
    num_ctas: int = 1              # CTAs per program: a cluster of them along x (sm_90)

    @property
    def threads_per_program(self) -> int:
        return 32 * self.num_warps


@lru_cache(maxsize=None)
def _backend(arch: int):
    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend
    target = GPUTarget("cuda", arch, 32)
    return target, make_backend(target)


def _binder(fn, arch: int):
    """Triton's own argument binder for `fn` on this target (cached on the function per arch)."""
    from triton.runtime.jit import create_function_from_signature
    cache = fn.__dict__.setdefault("_warpsim_binders", {})
    if arch not in cache:
        _, backend = _backend(arch)
        cache[arch] = create_function_from_signature(fn.signature, fn.params, backend)
    return cache[arch]


def _compile(fn, signature, constexprs, attrs, options, arch: int):
    import triton
    from triton.compiler import ASTSource
    target, _ = _backend(arch)
    source = ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return triton.compile(source, target=target, options=options.__dict__)


_FILE_DIRECTIVE = re.compile(r'^(\s*\.file\s+\d+\s+")([^"]*)(")', re.MULTILINE)


def _with_own_file(ptx: str, fn) -> str:
    """The PTX with `.file` naming `fn`'s own file.

    Triton's cache keys a kernel on its source text and starting line, not its
    path, so a kernel compiled first from a copy of the same file elsewhere (an
    example, a deleted checkout) comes back naming that copy; reports would then
    show the copy's lines. A `.file` with the same base name is taken to be this one."""
    own = getattr(fn, "file_name", None)
    if not own:
        return ptx
    base = os.path.basename(own)
    return _FILE_DIRECTIVE.sub(lambda m: m.group(1) + (own if os.path.basename(m.group(2)) == base
                                                       else m.group(2)) + m.group(3), ptx)


def compile_triton(fn, args, kwargs, arch: int = DEFAULT_ARCH) -> CompiledTriton:
    """Compile `fn` (a @triton.jit function) for `args`/`kwargs` as `fn[grid](*args, **kwargs)` would.

    kwargs hold constexpr arguments and Triton's options (num_warps,
    num_stages, ...). Raises CompileError with Triton's message when Triton
    refuses the kernel.
    """
    if not hasattr(fn, "params") or not hasattr(fn, "signature"):
        raise TypeError(f"{fn!r} is not a @triton.jit function")
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")   # Triton 3.9's default, without its warning
    _, backend = _backend(arch)
    kwargs = dict(kwargs)
    kwargs.setdefault("debug", False)
    try:
        bound_args, specialization, options = _binder(fn, arch)(*args, **kwargs)
        options, signature, constexprs, attrs = fn._pack_args(backend, kwargs, bound_args,
                                                              specialization, options)
    except (TypeError, KeyError) as exc:
        raise TypeError(f"{fn.__name__}: {exc}") from None
    key = (tuple(signature.items()), tuple(sorted((str(k), repr(v)) for k, v in constexprs.items())),
           tuple(sorted((str(k), repr(v)) for k, v in attrs.items())), repr(sorted(options.__dict__.items())))
    cache = fn.__dict__.setdefault("_warpsim_compiled", {})
    if (arch, key) not in cache:
        try:
            cache[(arch, key)] = _compile(fn, signature, constexprs, attrs, options, arch)
        except Exception as exc:   # Triton raises its own CompilationError and RuntimeErrors
            raise CompileError(f"Triton could not compile {fn.__name__} for sm_{arch}", str(exc)) from exc
    kernel = cache[(arch, key)]
    meta = kernel.metadata
    runtime_args = tuple(value for value, kind in zip(bound_args.values(), signature.values())
                         if kind != CONSTEXPR)
    return CompiledTriton(name=meta.name, ptx=_with_own_file(kernel.asm["ptx"], fn), arch=arch, num_warps=meta.num_warps,
                          shared=meta.shared, global_scratch_size=meta.global_scratch_size,
                          global_scratch_align=meta.global_scratch_align,
                          profile_scratch_size=meta.profile_scratch_size,
                          profile_scratch_align=meta.profile_scratch_align,
                          signature=dict(signature), runtime_args=runtime_args,
                          tensordesc_meta=tuple(getattr(meta, "tensordesc_meta", None) or ()),
                          num_ctas=getattr(meta, "num_ctas", 1))
