"""Every SASS opcode warpsim knows has one declaration and a pipe, and the timing model's map
is the table's: an opcode the executor runs is never timed on a guessed pipe."""

from __future__ import annotations

import pytest

from warpsim.sass.executor import OPCODES, PIPES, pipe_by_opcode
from warpsim.sass.executor import table as opcode_table
from warpsim.timing.pipes import pipe_of


def test_every_entry_has_a_known_pipe_and_timing_reads_it():
    pipes = pipe_by_opcode()
    assert set(OPCODES) <= set(pipes)
    for opcode, pipe in pipes.items():
        assert pipe in PIPES, opcode
        assert pipe_of(opcode) == pipe, opcode
    for opcode, entry in OPCODES.items():
        assert entry.pipe == pipes[opcode]


def test_executed_and_pipe_only_opcodes_are_disjoint():
    assert not set(OPCODES) & set(opcode_table.PIPE_ONLY)


@pytest.mark.parametrize("opcode, pipe", [
    ("FFMA", "fp32"), ("IMAD", "fma"), ("UIMAD", "uniform"), ("LOP3", "alu"), ("DFMA", "fp64"),
    ("MUFU", "mufu"), ("POPC", "mufu"), ("HMMA", "tensor"), ("LDS", "shared"), ("ATOMS", "shared"),
    ("LDG", "global"), ("REDG", "global"), ("LDL", "local"), ("LDC", "constant"), ("S2R", "special"),
    ("SHFL", "warp"), ("BAR", "barrier"), ("BRA", "branch"), ("FSEL", "fp32"), ("SEL", "alu"),
    # covered by the table since the pipe became part of the entry (they fell to "branch" before)
    ("VIADDMNMX", "alu"), ("VIMNMX3", "alu"), ("I2IP", "mufu"), ("R2UR", "uniform"),
    # known to the timing model only
    ("IMMA", "tensor"), ("STSM", "shared"), ("DMNMX", "fp64"),
])
def test_pipes_of_representative_opcodes(opcode, pipe):
    assert pipe_of(opcode) == pipe


def test_an_opcode_without_a_pipe_or_declared_twice_is_refused_at_registration(monkeypatch):
    monkeypatch.setattr(opcode_table, "OPCODES", dict(OPCODES))
    with pytest.raises(TypeError, match="pipe"):
        opcode_table.semantics("NEWOP", family="integer")
    with pytest.raises(ValueError, match="NEWOP has pipe 'vector'"):
        opcode_table.semantics("NEWOP", family="integer", pipe="vector")
    with pytest.raises(ValueError, match="2 opcodes"):
        opcode_table.semantics("NEWOP", "UNEWOP", family="integer", pipe=("alu",))
    with pytest.raises(ValueError, match="FFMA is declared twice"):
        opcode_table.semantics("FFMA", family="float", pipe="fp32")


def test_an_opcode_no_entry_names_is_guessed_from_its_name():
    assert pipe_of("UFUTUREOP") == "uniform" and pipe_of("FUTUREOP") == "branch"
    assert pipe_of("LDGFUTURE") == "global"
