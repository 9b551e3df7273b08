"""Which kernels a plain launch must give the grid workspace: those that read %envreg1/%envreg2
(a cooperative_groups grid sync), in their own body or in a function they call."""

from warpsim.runtime.calls import _syncs_grid

PTX = """
.func (.reg .b32 r) helper_sync()
{
    mov.u32 %r1, %envreg2;
    ret;
}
.func other()
{
    ret;
}
.visible .entry direct(.param .u64 p)
{
    mov.u32 %r1, %envreg1;
    ret;
}
.visible .entry through_call(.param .u64 p)
{
    call.uni (%r2), helper_sync, ();
    ret;
}
.visible .entry plain(.param .u64 p)
{
    call.uni other, ();
    ret;
}
"""


def test_kernels_reading_the_grid_workspace_are_found():
    assert _syncs_grid(PTX, "direct")
    assert _syncs_grid(PTX, "through_call")
    assert not _syncs_grid(PTX, "plain")
    assert not _syncs_grid(PTX.replace("%envreg", "%tid.x "), "direct")
