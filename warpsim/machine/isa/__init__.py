"""The instruction set: one module per family; importing this fills the table.

Each family module owns its table entries (machine.isa.table), its load-time
checks, its emitters and its runtime helpers. FAMILIES names the modules that
generated code calls into (`warp.shfl(...)`, `atomics.apply(...)`).
"""

from . import (async_copy, atomics, barriers, builtins, bulk_copy, clusters, compare, control, conversion, floating,
               integer, logic, matrix_store, mbarrier, memory, moves, packed, reserved_shared, tensor,
               tensor_maps, textures, warp, warpgroup, wgmma)
from .table import OPS, entry, is_cta_barrier, is_warp_sync, lookup, mask_operand

__all__ = ["FAMILIES", "OPS", "entry", "is_cta_barrier", "is_warp_sync", "lookup", "mask_operand",
           "compare", "conversion", "floating", "integer", "logic", "packed"]

# Runtime modules generated code calls, by the name it calls them.
FAMILIES = {"async_copy": async_copy, "atomics": atomics, "barriers": barriers,
            "builtins": builtins, "bulk_copy": bulk_copy, "clusters": clusters, "control": control,
            "matrix_store": matrix_store, "mbarrier": mbarrier, "memory": memory, "moves": moves,
            "tensor": tensor, "tensor_maps": tensor_maps, "textures": textures, "warp": warp, "wgmma": wgmma}
