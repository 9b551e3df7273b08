"""warpsim's sanitizer: compute-sanitizer's four tools, on the simulated GPU.

`with warpsim.check() as chk:` (session.py) or `warpsim check python script.py`
(warpsim/cli/check.py). One module per tool: memcheck, racecheck, initcheck,
synccheck; report.py holds the error records and their text.
"""

from .report import Access, SanitizerError
from .session import TOOLS, Checker, check

__all__ = ["check", "Checker", "SanitizerError", "Access", "TOOLS"]
