"""warpsim's own PTX for the cooperative-groups functions of the CUDA device runtime (cudadevrt).

Numba's `cg.this_grid().sync()` calls cudadevrt's cudaCGGetIntrinsicHandle and
cudaCGSynchronize, which reach the driver through a system call that only a GPU
has. These stand-ins do what CUDA's cooperative_groups headers do for a C++
kernel: the grid handle is the address of the grid workspace a cooperative
launch hands the kernel in %envreg1 (high half) and %envreg2 (low half), zero in
any other launch; a sync counts each block's arrival on the workspace's barrier
word (atom.add.release.gpu, block 0 adding 0x80000000 - (blocks - 1), so the top
bit flips once all have arrived) while each block's first thread spins on
ld.acquire.gpu. The machine runs a cooperative launch's blocks together
(machine.cooperative), so the spin ends. A sync without a grid returns 999 and
does nothing, as cudadevrt does with a null handle.
"""

from __future__ import annotations

__all__ = ["COOPERATIVE_GROUPS_PTX", "COOPERATIVE_GROUPS_FUNCTIONS"]

COOPERATIVE_GROUPS_FUNCTIONS = ("cudaCGGetIntrinsicHandle", "cudaCGSynchronize")

COOPERATIVE_GROUPS_PTX = r"""
.visible .func (.param .b64 warpsim_cg_handle) cudaCGGetIntrinsicHandle(
	.param .b32 warpsim_cg_scope
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<5>;
	ld.param.b32 	%r1, [warpsim_cg_scope];
	mov.u32 	%r2, %envreg1;
	mov.u32 	%r3, %envreg2;
	cvt.u64.u32 	%rd1, %r2;
	shl.b64 	%rd2, %rd1, 32;
	cvt.u64.u32 	%rd3, %r3;
	or.b64 	%rd4, %rd2, %rd3;
	setp.ne.s32 	%p1, %r1, 1;
	selp.b64 	%rd4, 0, %rd4, %p1;
	st.param.b64 	[warpsim_cg_handle], %rd4;
	ret;
}

.visible .func (.param .b32 warpsim_cg_status) cudaCGSynchronize(
	.param .b64 warpsim_cg_grid,
	.param .b32 warpsim_cg_flags
)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<14>;
	.reg .b64 	%rd<3>;
	ld.param.b64 	%rd1, [warpsim_cg_grid];
	setp.eq.s64 	%p1, %rd1, 0;
	@%p1 bra 	$L__warpsim_cg_no_grid;
	add.s64 	%rd2, %rd1, 4;
	bar.sync 	0;
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, %tid.y;
	mov.u32 	%r3, %tid.z;
	or.b32 	%r1, %r1, %r2;
	or.b32 	%r1, %r1, %r3;
	setp.ne.s32 	%p2, %r1, 0;
	@%p2 bra 	$L__warpsim_cg_arrived;
	mov.u32 	%r4, %nctaid.x;
	mov.u32 	%r5, %nctaid.y;
	mov.u32 	%r6, %nctaid.z;
	mul.lo.s32 	%r4, %r4, %r5;
	mul.lo.s32 	%r4, %r4, %r6;
	mov.u32 	%r7, %ctaid.x;
	mov.u32 	%r8, %ctaid.y;
	mov.u32 	%r9, %ctaid.z;
	or.b32 	%r7, %r7, %r8;
	or.b32 	%r7, %r7, %r9;
	setp.eq.s32 	%p3, %r7, 0;
	sub.s32 	%r10, -2147483647, %r4;
	selp.b32 	%r10, %r10, 1, %p3;
	atom.add.release.gpu.u32 	%r11, [%rd2], %r10;
$L__warpsim_cg_wait:
	ld.acquire.gpu.u32 	%r12, [%rd2];
	xor.b32 	%r13, %r12, %r11;
	and.b32 	%r13, %r13, -2147483648;
	setp.eq.s32 	%p2, %r13, 0;
	@%p2 bra 	$L__warpsim_cg_wait;
$L__warpsim_cg_arrived:
	bar.sync 	0;
	st.param.b32 	[warpsim_cg_status], 0;
	ret;
$L__warpsim_cg_no_grid:
	st.param.b32 	[warpsim_cg_status], 999;
	ret;
}
"""
