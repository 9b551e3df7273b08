"""The report's text and the tool names (no compiler needed)."""

import pytest

from warpsim.sanitizer import Access, SanitizerError
from warpsim.sanitizer.report import lanes_text, render
from warpsim.sanitizer.session import TOOLS, parse_tools


def test_lanes_text():
    assert lanes_text(0x0000FFFF) == "0-15"
    assert lanes_text(0xFFFF0000) == "16-31"
    assert lanes_text(0b1011) == "0-1,3"
    assert lanes_text(0xAAAAAAAA) == "1,3,5,7,...,31 (16 lanes)"
    assert lanes_text(0) == "none"


def test_tool_names():
    assert parse_tools("all") == TOOLS
    assert parse_tools(["synccheck", "memcheck,racecheck"]) == ("memcheck", "racecheck", "synccheck")
    with pytest.raises(ValueError, match="unknown sanitizer tool"):
        parse_tools("leakcheck")


def test_error_text_and_summary():
    write = Access("Write", "k", (0, 0, 0), (33, 0, 0), 40, "st.shared.u32 [%r1], %r2;", "k.cu:5")
    read = Access("Read", "k", (0, 0, 0), (1, 0, 0), 44, "ld.shared.u32 %r3, [%r4];", "k.cu:6")
    error = SanitizerError("racecheck", "RAW hazard", "Error: Potential RAW hazard detected at __shared__ 0x84",
                           "k", [write, read], details=["why"], count=7, unit="hazards")
    assert error.text().splitlines() == [
        "========= Error: Potential RAW hazard detected at __shared__ 0x84 [7 hazards]",
        "=========     Write Thread (33,0,0) at PTX line 40 in k.cu:5:k",
        "=========         st.shared.u32 [%r1], %r2;",
        "=========     Read Thread (1,0,0) at PTX line 44 in k.cu:6:k",
        "=========         ld.shared.u32 %r3, [%r4];",
        "=========     why",
        "========= ",
    ]
    text = render([error, error, error], print_limit=2, tools=("racecheck",))
    assert text.startswith("========= COMPUTE-SANITIZER (warpsim check: racecheck)\n")
    assert text.count("[7 hazards]") == 2 and "1 more error(s) not printed" in text
    assert text.endswith("========= ERROR SUMMARY: 3 errors\n")
    assert render([], tools=TOOLS).endswith("ERROR SUMMARY: 0 errors\n")
