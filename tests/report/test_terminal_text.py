"""Square brackets in user text survive every table warpsim prints (rich would read them as markup).

The kernel is the naive transpose, whose one line `out[x * n + y] = in[y * n + x];` lost its
brackets in the per-line stall table (`if (x < n && y < n) out = in;`). It goes through the
profile (summary, metrics, hot lines, per-line stalls, source view, SASS listing), `warpsim sass`,
`warpsim compare`, `warpsim sweep` (tests/distributed/test_sweep.py), `warpsim check` and a demo
hint, and each must print it as written.
"""

from __future__ import annotations

import ast
import io
import pathlib
import sys

import numpy as np
import pytest

import warpsim
from warpsim import cli

pytestmark = pytest.mark.nvrtc

PACKAGE = pathlib.Path(warpsim.__file__).parent
RICH_HOMES = {"report/terminal.py", "report/console.py"}

TRANSPOSE = r'''extern "C" __global__ void transpose_naive(const float* in, float* out, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < n && y < n) out[x * n + y] = in[y * n + x];
}
'''
LINE = "if (x < n && y < n) out[x * n + y] = in[y * n + x];"
N = 64

SCRIPT = f'''
import sys
import numpy as np
import warpsim as cp
n = int(sys.argv[1]) if len(sys.argv) > 1 else {N}
kernel = cp.RawModule(code=open(__file__.replace("script.py", "transpose.cu")).read()).get_function("transpose_naive")
a = np.random.default_rng(0).random(({N}, {N}), dtype=np.float32)
out = cp.zeros(({N}, {N}), dtype=cp.float32)
kernel(({N} // 32, {N} // 8), (32, 8), (cp.asarray(a), out, np.int32(n)))
if n == {N}:
    assert np.array_equal(out.get(), a.T)
'''

ARGS = f'''
import numpy as np
def arguments(xp):
    return (xp.asarray(np.ones(({N}, {N}), np.float32)), xp.zeros(({N}, {N}), xp.float32), np.int32({N}))
'''


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("brackets")
    (folder / "transpose.cu").write_text(TRANSPOSE)
    (folder / "script.py").write_text(SCRIPT)
    (folder / "setup.py").write_text(ARGS)
    return folder


def rich_imports(path: pathlib.Path) -> list:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
        found += [n for n in names if n == "rich" or n.startswith("rich.")]
    return found


def test_only_the_terminal_builders_import_rich():
    """Tables, titles and styled lines are made in one place, from plain text: no other module
    can hand rich a str it would read as markup."""
    wrong = {str(p.relative_to(PACKAGE)): rich_imports(p) for p in PACKAGE.rglob("*.py")
             if str(p.relative_to(PACKAGE)) not in RICH_HOMES}
    wrong = {path: names for path, names in wrong.items() if names}
    assert not wrong, f"rich imported outside {sorted(RICH_HOMES)}: {wrong}"


def test_the_builders_keep_brackets_on_a_console_that_reads_markup():
    from rich.console import Console
    from warpsim.report.terminal import panel, rule, table, text
    t = table("[bold]title[/]", ["a[0]", ("b", dict(justify="right"))])
    t.add_row("out[x * n + y]", ("in[y]", "red"))
    t.caption = "pip install warpsim[triton]"
    out = io.StringIO()
    console = Console(file=out, width=100, markup=True)
    for renderable in (t, rule("[0] k[1]"), panel("x[i]", title="t[i]"), text("a[i] ", ("b[red]", "bold"))):
        console.print(renderable)
    printed = out.getvalue()
    for piece in ("[bold]title[/]", "a[0]", "out[x * n + y]", "in[y]", "warpsim[triton]", "[0] k[1]", "x[i]",
                  "t[i]", "a[i]", "b[red]"):
        assert piece in printed, piece


def test_profile_prints_the_line_in_every_table(files, capsys):
    status = cli.main(["profile", "--gpu", "h200", "--source", "--sass", "--width", "400", "python",
                       str(files / "script.py")])
    assert status == 0
    out = capsys.readouterr().out
    stalls, source_view = out[out.index("Predicted stalls by source line"):].split("transpose_naive: ", 1)
    assert LINE in stalls                                          # the per-line stall table
    assert LINE in source_view.split("//##")[0]                    # --source
    assert f".cu:3  {LINE}" in source_view                        # --sass
    assert "[SASS-level counts]" in out
    assert "ld.global.f32 %f1, [%rd" in out                        # the PTX beside the SASS
    assert "LDG.E R3, desc[UR4][R2.64]" in out


def test_profile_tables_keep_brackets_on_any_console(files):
    """The LaunchProfile and its tables, printed by a user on rich's own console (markup on)."""
    from rich.console import Console
    from warpsim.report.stall_lines import stall_lines_table
    kernel = warpsim.RawModule(code=TRANSPOSE).get_function("transpose_naive")
    with warpsim.settings(gpu="h200"), warpsim.profile() as prof:
        a = warpsim.asarray(np.ones((N, N), np.float32))
        kernel((N // 32, N // 8), (32, 8), (a, warpsim.zeros((N, N), np.float32), np.int32(N)))
    launch = prof.launches[0]
    out = io.StringIO()
    console = Console(file=out, width=400, markup=True)
    for renderable in (launch, launch.source_view(), stall_lines_table(launch.timing, sources=launch.sources)):
        console.print(renderable)
    printed = out.getvalue()
    assert printed.count(LINE) == 2 and "[SASS-level counts]" in printed
    assert LINE in launch.render(width=400, source=True)


def test_sass_listing_keeps_the_line(files, capsys):
    assert cli.main(["sass", str(files / "transpose.cu")]) == 0
    out = capsys.readouterr().out
    assert f"transpose.cu:3  {LINE}" in out and "desc[UR4][" in out


def test_compare_keeps_brackets(files, capsys):
    argv = ["compare", str(files / "transpose.cu"), "--kernel", "transpose_naive", "--grid", "2,8",
            "--block", "32,8", "--args", f"{files / 'setup.py'}:arguments", "--a-define", "X=1",
            "--b-define", "X=2", "--labels", "in[y],out[x]", "--gpu", "h200", "--ctas", "2", "--lines"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "in[y]" in out and "out[x]" in out and "[PTX " in out


def test_check_report_keeps_brackets(files, capsys):
    """n = 65 on 64 x 64 arrays: the transpose reads and writes past their ends."""
    status = cli.main(["check", "--tool", "memcheck", "--print-limit", "2", "python", str(files / "script.py"),
                       "65"])
    out = capsys.readouterr().out
    assert status == 1 and "kernel.cu:3" in out
    assert "ld.global.f32 %f1, [%rd" in out or "st.global.f32 [%rd" in out


def test_demo_hint_keeps_the_extra(monkeypatch):
    """Without Triton the cooperative demo says how to get it: `pip install warpsim[triton]`."""
    from rich.console import Console
    from warpsim.demo import run_demo
    monkeypatch.setitem(sys.modules, "triton", None)             # `import triton` fails as if not installed
    out = io.StringIO()
    run_demo("cooperative", Console(file=out, width=200), lengths=(32,))
    assert "(pip install warpsim[triton])" in out.getvalue()
