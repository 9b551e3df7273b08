"""Hand-written PTX kernels that several machine tests run."""

HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"

# Block 0: parameters and the bounds test; block 1: the add; block 2: ret.
ADD = HEADER + r"""
.visible .entry add(.param .u64 a, .param .u64 b, .param .u64 out, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<10>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.param.u64 %rd3, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.s32 %p1, %r5, %r1;
    @%p1 bra DONE;
    mul.wide.s32 %rd4, %r5, 4;
    add.s64 %rd5, %rd1, %rd4;
    add.s64 %rd6, %rd2, %rd4;
    add.s64 %rd7, %rd3, %rd4;
    ld.global.u32 %r6, [%rd5];
    ld.global.u32 %r7, [%rd6];
    add.s32 %r6, %r6, %r7;
    st.global.u32 [%rd7], %r6;
DONE:
    ret;
}
"""
