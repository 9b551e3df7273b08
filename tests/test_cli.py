"""The command-line dispatcher and its global options."""

import os

from warpsim import cli


def test_help_lists_commands(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in ("demo", "run", "profile", "occupancy", "ptx"):
        assert name in out


def test_unknown_command_is_an_error(capsys):
    assert cli.main(["frobnicate"]) == 2
    assert "unknown command 'frobnicate'" in capsys.readouterr().err


def test_scheduling_option_reaches_the_settings(monkeypatch):
    monkeypatch.delenv("WARPSIM_SCHEDULING", raising=False)
    rest = cli.take_global_options(["profile", "--scheduling", "stack", "python", "x.py", "--scheduling", "its"])
    assert rest == ["profile", "python", "x.py", "--scheduling", "its"]
    assert os.environ["WARPSIM_SCHEDULING"] == "stack"


def test_opcode_table(capsys):
    assert cli.main(["ptx", "--opcodes"]) == 0
    out = capsys.readouterr().out
    assert "shfl" in out and "fma" in out and "cvt" in out
