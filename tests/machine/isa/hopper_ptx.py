"""Hand-written sm_90 PTX for the Hopper instruction tests, and the shared-memory images they read.

`wgmma_probe(...)` is a one-warpgroup kernel: it copies a shared-memory image
(A's and B's tiles, laid out as `place` says) from global memory, builds the
two matrix descriptors from the parameters plus the image's shared address,
runs one wgmma.mma_async on accumulators loaded from `c_in`, and stores every
thread's accumulator registers to `out[thread * registers + i]`. The same PTX
runs on warpsim (tests/machine/isa/test_wgmma.py) and on an H200
(validation/hopper/), so both compare raw fragments with NumPy.

`place` writes the PTX manual's canonical layouts element by element (a
second, loop-by-loop spelling of them, not warpsim's code): core matrices of
8 rows of 16 bytes; swizzled rows of 32/64/128 bytes whose 16-byte chunks are
XORed with the row number within 8 rows.
"""

import numpy as np

HEADER = ".version 8.0\n.target sm_90a\n.address_size 64\n"
SWIZZLE_MODES = {"none": 0, "128B": 1, "64B": 2, "32B": 3}
ROW_BYTES = {"none": 16, "32B": 32, "64B": 64, "128B": 128}
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1, "e5m2": 1, "s8": 1, "u8": 1}
K_OF = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32}


def element_offset(mn: int, k: int, esize: int, major: str, swizzle: str, lbo: int, sbo: int) -> int:
    """Byte offset of element (mn, k) of a tile in a canonical layout (before the swizzle)."""
    row = ROW_BYTES[swizzle]
    per_chunk = 16 // esize
    if major == "K":
        group, r = divmod(mn, 8)
        chunk, e = divmod(k, per_chunk)
        if swizzle == "none":
            return group * sbo + r * 16 + chunk * lbo + e * esize
        return group * sbo + r * row + chunk * 16 + e * esize
    chunk, e = divmod(mn, per_chunk)                  # M/N-major: M/N along the row
    group, r = divmod(k, 8)
    if swizzle == "none":
        return chunk * sbo + e * esize + r * 16 + group * lbo
    chunks_per_row = row // 16
    wide, c = divmod(chunk, chunks_per_row)
    return wide * lbo + c * 16 + e * esize + r * row + group * sbo


def swizzled(address: int, swizzle: str) -> int:
    bits = {"none": 0, "32B": 1, "64B": 2, "128B": 3}[swizzle]
    return address ^ (((address >> 7) & ((1 << bits) - 1)) << 4)


def place(image: np.ndarray, base: int, tile_bits: np.ndarray, esize: int, major: str, swizzle: str,
          lbo: int, sbo: int):
    """Write tile_bits[mn, k] (unsigned element bits) into the byte image at base."""
    for mn in range(tile_bits.shape[0]):
        for k in range(tile_bits.shape[1]):
            at = swizzled(base + element_offset(mn, k, esize, major, swizzle, lbo, sbo), swizzle)
            image[at:at + esize] = np.frombuffer(tile_bits[mn, k].tobytes(), np.uint8)


def descriptor(start: int, lbo: int, sbo: int, swizzle: str) -> int:
    return ((start >> 4) & 0x3FFF) | ((lbo >> 4) & 0x3FFF) << 16 | ((sbo >> 4) & 0x3FFF) << 32 | \
        SWIZZLE_MODES[swizzle] << 62


def wgmma_probe(n: int, dtype: str, atype: str, a_in_registers=False, trans_a=0, trans_b=0,
                scale_a=1, scale_b=1, btype=None, satfinite=False) -> tuple[str, int]:
    """(PTX of kernel `wgmma_probe`, accumulator registers per thread). Integer inputs (.s32 with .s8/.u8,
    A's and B's types may differ) take neither scales nor transposes."""
    k = K_OF[atype]
    integer = dtype == "s32"
    regs = n // 4 if dtype == "f16" else n // 2
    d = ",".join(f"%d{i}" for i in range(regs))
    loads = "\n".join(f"    ld.global.b32 %d{i}, [%rd20+{4 * i}];" for i in range(regs))
    stores = "\n".join(f"    st.global.b32 [%rd21+{4 * i}], %d{i};" for i in range(regs))
    if a_in_registers:
        a_operand = "{%a0,%a1,%a2,%a3}"
        a_load = "\n".join(f"    ld.global.b32 %a{j}, [%rd22+{4 * j}];" for j in range(4))
        transposes = f", {trans_b}" if atype in ("f16", "bf16") else ""    # fp8: K-major only
    else:
        a_operand, a_load = "%rd8", ""
        transposes = f", {trans_a}, {trans_b}" if atype in ("f16", "bf16") else ""   # the others: K-major only
    scales = "" if integer else f", {scale_a}, {scale_b}"
    form = f"m64n{n}k{k}" + (".satfinite" if satfinite else "") + f".{dtype}.{atype}.{btype or atype}"
    header = HEADER.replace(".version 8.0", ".version 8.4") if integer else HEADER    # mixed integer types: 8.4
    text = header + f"""
.extern .shared .align 1024 .b8 smem[];
.visible .entry wgmma_probe(.param .u64 image, .param .u32 words, .param .u64 adesc, .param .u64 bdesc,
                            .param .u64 c_in, .param .u64 out, .param .u64 afrag, .param .u32 accumulate)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<20>;
    .reg .b32 %d<{regs}>;
    .reg .b32 %a<4>;
    .reg .b64 %rd<24>;
    ld.param.u64 %rd1, [image];
    ld.param.u32 %r1, [words];
    ld.param.u64 %rd2, [adesc];
    ld.param.u64 %rd3, [bdesc];
    ld.param.u64 %rd4, [c_in];
    ld.param.u64 %rd5, [out];
    ld.param.u64 %rd6, [afrag];
    ld.param.u32 %r9, [accumulate];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, smem;
    mov.u32 %r4, %r2;
COPY:
    setp.ge.u32 %p1, %r4, %r1;
    @%p1 bra COPIED;
    mul.wide.u32 %rd10, %r4, 4;
    add.s64 %rd11, %rd1, %rd10;
    ld.global.u32 %r5, [%rd11];
    shl.b32 %r6, %r4, 2;
    add.s32 %r7, %r3, %r6;
    st.shared.u32 [%r7], %r5;
    add.u32 %r4, %r4, 128;
    bra COPY;
COPIED:
    bar.sync 0;
    fence.proxy.async.shared::cta;
    shr.u32 %r8, %r3, 4;
    cvt.u64.u32 %rd7, %r8;
    add.s64 %rd8, %rd2, %rd7;
    add.s64 %rd9, %rd3, %rd7;
    mul.wide.u32 %rd12, %r2, {4 * regs};
    add.s64 %rd20, %rd4, %rd12;
    add.s64 %rd21, %rd5, %rd12;
    mul.wide.u32 %rd13, %r2, 16;
    add.s64 %rd22, %rd6, %rd13;
{loads}
{a_load}
    setp.ne.u32 %p2, %r9, 0;
    wgmma.fence.sync.aligned;
    wgmma.mma_async.sync.aligned.{form} {{{d}}}, {a_operand}, %rd9, %p2{scales}{transposes};
    wgmma.commit_group.sync.aligned;
    wgmma.wait_group.sync.aligned 0;
{stores}
    ret;
}}
"""
    return text, regs


def accumulator_matrix(words: np.ndarray, n: int, dtype: str) -> np.ndarray:
    """The 64 x n matrix that 128 threads' accumulator registers hold (the manual's figure).

    Thread t = 32 w + l holds, in element i, row 16 w + l // 4 + 8 ((i // 2) % 2) and
    column 8 (i // 4) + 2 (l % 4) + i % 2.
    """
    values = words.view({"f32": np.float32, "s32": np.int32}.get(dtype, np.float16)).reshape(128, n // 2)
    out = np.full((64, n), np.nan if values.dtype.kind == "f" else -1, dtype=values.dtype)
    for t in range(128):
        w, lane = divmod(t, 32)
        for i in range(n // 2):
            out[16 * w + lane // 4 + 8 * ((i // 2) % 2), 8 * (i // 4) + 2 * (lane % 4) + i % 2] = values[t, i]
    return out


def a_fragments_8bit(a: np.ndarray) -> np.ndarray:
    """(128, 4) words of a 64 x 32 8-bit (fp8) A in registers, as the PTX manual's m64nNk32 A fragment
    lays it out: element i of lane l of warp w at row 16 w + l // 4 (+8 when i // 4 is odd), column
    4 (l % 4) + i % 4 (+16 for i >= 8)."""
    out = np.zeros((128, 16), dtype=np.uint8)
    for t in range(128):
        w, lane = divmod(t, 32)
        for i in range(16):
            out[t, i] = a[16 * w + lane // 4 + 8 * ((i // 4) % 2), 4 * (lane % 4) + (i % 4) + 16 * (i // 8)]
    return out.view(np.uint32)


def a_fragments(a: np.ndarray) -> np.ndarray:
    """(128, 4) words of a 64 x 16 f16/bf16 A in registers: rows 16 w + (l // 4) (+8), cols 2 (l % 4) (+1, +8)."""
    out = np.zeros((128, 8), dtype=a.dtype)
    for t in range(128):
        w, lane = divmod(t, 32)
        for i in range(8):
            out[t, i] = a[16 * w + lane // 4 + 8 * ((i // 2) % 2), 2 * (lane % 4) + (i % 2) + 8 * (i // 4)]
    return out.view(np.uint32)


# Per thread, 24 words: the special registers PTX leaves to the implementation and the
# addresses of distributed shared memory, then a neighbour's value read through mapa.
SPECIAL_WORDS = ("reserved_begin", "reserved_end", "reserved_cap", "reserved_0", "reserved_1",
                 "total_smem", "dynamic_smem", "buf", "mapa_rank0", "mapa_rank1", "ctarank",
                 "nctarank", "clusterid", "nclusterid", "cluster_ctaid", "cluster_nctaid",
                 "explicit_cluster", "neighbour_value", "generic_lo", "generic_hi",
                 "generic_mapa_lo", "generic_mapa_hi", "aggr_smem", "cluster_nctaid_y")

SPECIALS = """.version 8.3
.target sm_90a
.address_size 64
.extern .shared .align 16 .b8 dyn[];
.visible .entry specials(.param .u64 out) .reqnctapercluster 2, 1, 1
{
    .reg .b32 %r<40>;
    .reg .b64 %rd<20>;
    .reg .pred %p<2>;
    .shared .align 16 .b32 buf[64];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mad.lo.s32 %r3, %r2, 64, %r1;
    mul.wide.u32 %rd2, %r3, 96;
    add.s64 %rd3, %rd1, %rd2;
    mov.u32 %r4, %reserved_smem_offset_begin;
    st.global.u32 [%rd3], %r4;
    mov.u32 %r4, %reserved_smem_offset_end;
    st.global.u32 [%rd3+4], %r4;
    mov.u32 %r4, %reserved_smem_offset_cap;
    st.global.u32 [%rd3+8], %r4;
    mov.u32 %r4, %reserved_smem_offset_0;
    st.global.u32 [%rd3+12], %r4;
    mov.u32 %r4, %reserved_smem_offset_1;
    st.global.u32 [%rd3+16], %r4;
    mov.u32 %r4, %total_smem_size;
    st.global.u32 [%rd3+20], %r4;
    mov.u32 %r4, %dynamic_smem_size;
    st.global.u32 [%rd3+24], %r4;
    mov.u32 %r5, buf;
    st.global.u32 [%rd3+28], %r5;
    mov.u32 %r6, 0;
    mapa.shared::cluster.u32 %r7, %r5, %r6;
    st.global.u32 [%rd3+32], %r7;
    mov.u32 %r6, 1;
    mapa.shared::cluster.u32 %r7, %r5, %r6;
    st.global.u32 [%rd3+36], %r7;
    mov.u32 %r4, %cluster_ctarank;
    st.global.u32 [%rd3+40], %r4;
    mov.u32 %r4, %cluster_nctarank;
    st.global.u32 [%rd3+44], %r4;
    mov.u32 %r4, %clusterid.x;
    st.global.u32 [%rd3+48], %r4;
    mov.u32 %r4, %nclusterid.x;
    st.global.u32 [%rd3+52], %r4;
    mov.u32 %r4, %cluster_ctaid.x;
    st.global.u32 [%rd3+56], %r4;
    mov.u32 %r4, %cluster_nctaid.x;
    st.global.u32 [%rd3+60], %r4;
    mov.pred %p1, %is_explicit_cluster;
    selp.u32 %r4, 1, 0, %p1;
    st.global.u32 [%rd3+64], %r4;
    mov.u32 %r8, %cluster_ctarank;
    mad.lo.s32 %r9, %r8, 1000, %r1;
    shl.b32 %r10, %r1, 2;
    add.s32 %r11, %r5, %r10;
    st.shared.u32 [%r11], %r9;
    barrier.cluster.arrive.aligned;
    barrier.cluster.wait.aligned;
    xor.b32 %r12, %r8, 1;
    mapa.shared::cluster.u32 %r13, %r11, %r12;
    ld.shared::cluster.u32 %r14, [%r13];
    st.global.u32 [%rd3+68], %r14;
    mov.u64 %rd4, buf;
    cvta.shared.u64 %rd5, %rd4;
    st.global.u64 [%rd3+72], %rd5;
    mapa.u64 %rd6, %rd5, %r12;
    st.global.u64 [%rd3+80], %rd6;
    mov.u32 %r4, %aggr_smem_size;
    st.global.u32 [%rd3+88], %r4;
    mov.u32 %r4, %cluster_nctaid.y;
    st.global.u32 [%rd3+92], %r4;
    barrier.cluster.arrive.aligned;
    barrier.cluster.wait.aligned;
    ret;
}
"""


# One CTA of 64 threads: thread 0 announces 512 bytes on an mbarrier, copies 256 bytes in
# with cp.async.bulk (the phase must still be open: out_flags[0] = 0), then 256 more (now
# complete: out_flags[1] = 1); every thread waits on the phase's parity, writes 3 * its word
# to a second buffer, and thread 0 bulk-copies that buffer out to global memory.
BULK = HEADER + """
.visible .entry bulk_probe(.param .u64 src, .param .u64 dst, .param .u64 flags)
{
    .reg .pred %p<6>;
    .reg .b32 %r<20>;
    .reg .b64 %rd<20>;
    .shared .align 128 .b32 inbuf[128];
    .shared .align 128 .b32 outbuf[128];
    .shared .align 8 .b64 bar;
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd2, [dst];
    ld.param.u64 %rd3, [flags];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, bar;
    mov.u32 %r3, inbuf;
    mov.u32 %r4, outbuf;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 mbarrier.init.shared::cta.b64 [%r2], 1;
    fence.mbarrier_init.release.cluster;
    bar.sync 0;
    @!%p1 bra WAIT;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd10, [%r2], 512;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd1], 256, [%r2];
    mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r2], 0;
    selp.u32 %r5, 1, 0, %p2;
    st.global.u32 [%rd3], %r5;
    add.s32 %r6, %r3, 256;
    add.s64 %rd4, %rd1, 256;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r6], [%rd4], 256, [%r2];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r2], 0;
    @!%p3 bra WAIT;
    @!%p1 bra READ;
    selp.u32 %r5, 1, 0, %p3;
    st.global.u32 [%rd3+4], %r5;
READ:
    shl.b32 %r7, %r1, 3;
    add.s32 %r8, %r3, %r7;
    ld.shared.v2.u32 {%r9, %r10}, [%r8];
    mul.lo.u32 %r9, %r9, 3;
    mul.lo.u32 %r10, %r10, 3;
    add.s32 %r11, %r4, %r7;
    st.shared.v2.u32 [%r11], {%r9, %r10};
    fence.proxy.async.shared::cta;
    bar.sync 0;
    @!%p1 bra DONE;
    cp.async.bulk.global.shared::cta.bulk_group [%rd2], [%r4], 512;
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group.read 0;
    cp.async.bulk.wait_group 0;
DONE:
    ret;
}
"""


def tensor_probe(rank: int, box_elements: int) -> str:
    """Kernel `tensor_probe(tmap, coords[5], out, tmap_out)`: thread 0 loads the box at coords with
    cp.async.bulk.tensor (waiting on an mbarrier), every thread copies the box's shared bytes to
    `out`, then thread 0 stores the box back through `tmap_out` at the same coordinates."""
    coords = ", ".join(f"%c{d}" for d in range(rank))
    loads = "\n".join(f"    ld.global.s32 %c{d}, [%rd2+{4 * d}];" for d in range(rank))
    box_bytes = box_elements * 4
    return HEADER + f"""
.visible .entry tensor_probe(.param .align 64 .b8 tmap[128], .param .u64 coords, .param .u64 out,
                             .param .align 64 .b8 tmap_out[128])
{{
    .reg .pred %p<4>;
    .reg .b32 %r<20>;
    .reg .b32 %c<5>;
    .reg .b64 %rd<20>;
    .shared .align 1024 .b8 box[{box_bytes}];
    .shared .align 8 .b64 bar;
    ld.param.u64 %rd2, [coords];
    ld.param.u64 %rd3, [out];
{loads}
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, bar;
    mov.u32 %r3, box;
    mov.u64 %rd4, tmap;
    cvta.param.u64 %rd5, %rd4;
    mov.u64 %rd6, tmap_out;
    cvta.param.u64 %rd7, %rd6;
    setp.eq.u32 %p1, %r1, 0;
    prefetch.tensormap [%rd5];
    @%p1 mbarrier.init.shared::cta.b64 [%r2], 1;
    bar.sync 0;
    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], {box_bytes};
    @%p1 cp.async.bulk.tensor.{rank}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd5, {{{coords}}}], [%r2];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
    @!%p2 bra WAIT;
    mov.u32 %r4, %r1;
COPY:
    setp.ge.u32 %p3, %r4, {box_elements};
    @%p3 bra COPIED;
    shl.b32 %r5, %r4, 2;
    add.s32 %r6, %r3, %r5;
    ld.shared.u32 %r7, [%r6];
    mul.wide.u32 %rd8, %r4, 4;
    add.s64 %rd9, %rd3, %rd8;
    st.global.u32 [%rd9], %r7;
    add.u32 %r4, %r4, 64;
    bra COPY;
COPIED:
    fence.proxy.async.shared::cta;
    bar.sync 0;
    @%p1 cp.async.bulk.tensor.{rank}d.global.shared::cta.tile.bulk_group [%rd7, {{{coords}}}], [%r3];
    @%p1 cp.async.bulk.commit_group;
    @%p1 cp.async.bulk.wait_group 0;
    ret;
}}
"""


def box_of(tensor, coords, box, fill):
    """NumPy's box of `tensor` (outermost axis first) at coords (innermost first), `fill` outside."""
    out = np.full(tuple(reversed(box)), fill, tensor.dtype)
    index = []
    for axis in range(tensor.ndim):
        d = tensor.ndim - 1 - axis
        index.append(np.arange(box[d]) + coords[d])
    grids = np.meshgrid(*index, indexing="ij")
    inside = np.ones(out.shape, bool)
    for axis, g in enumerate(grids):
        inside &= (g >= 0) & (g < tensor.shape[axis])
    clipped = tuple(np.clip(g, 0, tensor.shape[axis] - 1) for axis, g in enumerate(grids))
    out[inside] = tensor[clipped][inside]
    return out, inside


def stmatrix_probe(count: int, trans: bool) -> str:
    """Kernel `stmatrix_probe(words, rows, out)`: lane l stores its `count` words words[l, :] with
    stmatrix to the row addresses rows[l] (byte offsets into a shared buffer), then the warp
    copies the buffer (512 bytes) to out. It also runs setmaxnreg, elect.sync and the proxy
    fences Hopper kernels put around such stores."""
    regs = ", ".join(f"%w{j}" for j in range(count))
    loads = "\n".join(f"    ld.global.u32 %w{j}, [%rd4+{4 * j}];" for j in range(count))
    return HEADER + f"""
.visible .entry stmatrix_probe(.param .u64 words, .param .u64 rows, .param .u64 out)
{{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b32 %w<4>;
    .reg .b64 %rd<12>;
    .shared .align 16 .b8 buf[512];
    ld.param.u64 %rd1, [words];
    ld.param.u64 %rd2, [rows];
    ld.param.u64 %rd3, [out];
    setmaxnreg.inc.sync.aligned.u32 64;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd5, %r1, {4 * count};
    add.s64 %rd4, %rd1, %rd5;
{loads}
    mul.wide.u32 %rd6, %r1, 4;
    add.s64 %rd7, %rd2, %rd6;
    ld.global.u32 %r2, [%rd7];
    mov.u32 %r3, buf;
    add.s32 %r4, %r3, %r2;
    stmatrix.sync.aligned.m8n8.x{count}{'.trans' if trans else ''}.shared.b16 [%r4], {{{regs}}};
    fence.proxy.async.shared::cta;
    fence.proxy.tensormap::generic.release.gpu;
    bar.warp.sync -1;
    elect.sync %r5|%p1, -1;
    shl.b32 %r6, %r1, 4;
    add.s32 %r7, %r3, %r6;
    ld.shared.v4.u32 {{%r8, %r9, %r10, %r11}}, [%r7];
    mul.wide.u32 %rd8, %r1, 16;
    add.s64 %rd9, %rd3, %rd8;
    st.global.v4.u32 [%rd9], {{%r8, %r9, %r10, %r11}};
    ret;
}}
"""


# A cluster of 2 CTAs x 32 threads: CTA 1 announces 256 bytes on its mbarrier; CTA 0's thread 0
# bulk-copies its 256-byte buffer into CTA 1's (shared::cluster addresses from mapa), completing
# the bytes on CTA 1's mbarrier; CTA 1 waits for the phase and writes what arrived to out.
CLUSTER_BULK = HEADER + """
.visible .entry cluster_bulk(.param .u64 src, .param .u64 out) .reqnctapercluster 2, 1, 1
{
    .reg .pred %p<6>;
    .reg .b32 %r<20>;
    .reg .b64 %rd<12>;
    .shared .align 128 .b32 buf[64];
    .shared .align 8 .b64 bar;
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %cluster_ctarank;
    mov.u32 %r3, buf;
    mov.u32 %r4, bar;
    setp.eq.u32 %p1, %r1, 0;
    setp.eq.u32 %p2, %r2, 0;
    @%p1 mbarrier.init.shared::cta.b64 [%r4], 1;
    mul.wide.u32 %rd3, %r1, 8;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.v2.u32 {%r5, %r6}, [%rd4];
    shl.b32 %r7, %r1, 3;
    add.s32 %r8, %r3, %r7;
    @%p2 st.shared.v2.u32 [%r8], {%r5, %r6};
    fence.proxy.async.shared::cta;
    barrier.cluster.arrive.release.aligned;
    barrier.cluster.wait.acquire.aligned;
    @%p2 bra SEND;
    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [%r4], 256;
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r4], 0;
    @!%p3 bra WAIT;
    ld.shared.v2.u32 {%r5, %r6}, [%r8];
    mul.wide.u32 %rd6, %r1, 8;
    add.s64 %rd7, %rd2, %rd6;
    st.global.v2.u32 [%rd7], {%r5, %r6};
    bra DONE;
SEND:
    @!%p1 bra DONE;
    mov.u32 %r9, 1;
    mapa.shared::cluster.u32 %r10, %r3, %r9;
    mapa.shared::cluster.u32 %r11, %r4, %r9;
    cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r10], [%r3], 256, [%r11];
DONE:
    barrier.cluster.arrive.release.aligned;
    barrier.cluster.wait.acquire.aligned;
    ret;
}
"""
