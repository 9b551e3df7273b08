"""What every sanitizer tool is: an observer of one launch that ends in errors."""

from __future__ import annotations

from ..machine.events import LaunchObserver
from .report import Access


class LaunchTool(LaunchObserver):
    """One tool watching one launch (the machine's observer interface).

    Subclasses override only the events they need, so a launch pays only
    for the hooks of the tools that are on. Errors
    go to the session when the launch finishes, or fails (`claim` may turn the
    failure into an error of this tool).
    """

    name = ""

    def __init__(self, checker, launch: int, kernel: str):
        self.checker, self.launch, self.kernel = checker, launch, kernel
        self.errors: list = []
        self.found: dict = {}           # key -> [count, SanitizerError]: folded repeats

    # ------------------------------------------------------------ observer interface

    def launch_finished(self, result):
        self.finish()

    def launch_failed(self, ctx, exc):
        self.claim(ctx, exc)
        self.finish()

    # ------------------------------------------------------------ for the tools

    def claim(self, ctx, exc) -> bool:
        """Report a launch that stopped with `exc`, if this tool covers it."""
        return False

    def collect(self) -> list:
        """Errors gathered during the launch: the direct ones, then the folded ones.

        Tools fold repeats into `self.found` (key -> [count, first error]), so one
        report stands for every occurrence at the same instruction (pair).
        """
        out = list(self.errors)
        for count, error in self.found.values():
            error.count = count
            out.append(error)
        self.found = {}
        return out

    def finish(self):
        errors = self.collect()
        for e in errors:
            e.launch = self.launch
        self.errors = []
        self.checker.add(errors)

    def access(self, ctx, site, slot: int, what: str = "") -> Access:
        where = ctx.where(int(slot))
        return Access(what, self.kernel, where["block"], where["thread"], site.ins.line,
                      str(site.ins), site.source_line)
