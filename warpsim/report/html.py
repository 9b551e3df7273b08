"""One self-contained HTML report: metrics tables, the source with per-line heat,
and lane-activity charts. No external assets: CSS is inline and charts are
base64 PNGs, so the file can be mailed, attached to CI or opened offline.

    write_html_report(prof, "report.html")    a `with warpsim.profile() as prof:` result
    render_profile_html(prof)                 the same as an HTML fragment (notebooks)
    write_demo_report(results, "demo.html")   what `warpsim demo --html` writes

A profiled launch is read through its attributes: kernel_name, grid, block,
metrics (Nsight Compute name -> value), lines (per-source-line LineStats),
sources (file name -> text, for code given as a string) and activity (an
ActivityTrace, when one was recorded). Missing ones are left out of the page.
"""

from __future__ import annotations

import datetime
import html
import os

from .activity import chart_data_uri

__all__ = ["write_html_report", "render_profile_html", "render_launch_html", "write_demo_report",
           "render_demo_html", "page"]

# Shown first, in this order, as the launch's headline figures.
HEADLINE = [
    ("warpsim__simt_efficiency.pct", "SIMT efficiency"),
    ("smsp__thread_inst_executed_per_inst_executed.ratio", "active threads / warp instruction"),
    ("smsp__inst_executed.sum", "warp instructions"),
    ("smsp__sass_branch_targets_threads_divergent.sum", "divergent branches"),
    ("l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio", "sectors / global load request"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "shared load bank conflicts"),
    ("sm__maximum_warps_per_active_cycle_pct", "theoretical occupancy"),
]

CSS = """
.warpsim-report { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d2430;
  max-width: 1200px; margin: 0 auto; padding: 0 16px 40px; }
.warpsim-report h1 { font-size: 22px; margin: 18px 0 4px; }
.warpsim-report h2 { font-size: 18px; margin: 28px 0 6px; padding-top: 10px; border-top: 2px solid #d6dbe3; }
.warpsim-report h3 { font-size: 15px; margin: 18px 0 6px; color: #3a4658; }
.warpsim-report .muted { color: #6b7688; }
.warpsim-report code, .warpsim-report pre { font: 12.5px/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
.warpsim-report table { border-collapse: collapse; margin: 6px 0 12px; }
.warpsim-report th, .warpsim-report td { padding: 3px 9px; border-bottom: 1px solid #e6e9ef; text-align: left;
  vertical-align: top; }
.warpsim-report th { background: #f1f3f7; font-weight: 600; }
.warpsim-report td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.warpsim-report td.name { font: 12.5px ui-monospace, Menlo, Consolas, monospace; }
.warpsim-report tr.section td { background: #f7f8fb; font-weight: 600; color: #3a4658; }
.warpsim-report .cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 8px 0 4px; }
.warpsim-report .card { border: 1px solid #d6dbe3; border-radius: 6px; padding: 6px 12px; min-width: 130px; }
.warpsim-report .card b { display: block; font-size: 19px; }
.warpsim-report .card span { font-size: 12px; color: #6b7688; }
.warpsim-report table.source td { padding: 0 8px; border: none; }
.warpsim-report table.source td.code { white-space: pre; font: 12.5px/1.5 ui-monospace, Menlo, Consolas, monospace; }
.warpsim-report table.source tr.flagged td.code { font-weight: 700; }
.warpsim-report table.source td.why { color: #b3261e; font-size: 12px; }
.warpsim-report .bad { color: #b3261e; font-weight: 600; }
.warpsim-report .warn { color: #9a6700; }
.warpsim-report .ok { color: #1a7f37; font-weight: 600; }
.warpsim-report img.chart { max-width: 100%; border: 1px solid #e6e9ef; }
.warpsim-report blockquote { margin: 6px 0; padding: 4px 12px; border-left: 3px solid #8fb3e0; color: #3a4658; }
.warpsim-report nav a { margin-right: 12px; }
"""


def escape(value) -> str:
    return html.escape(str(value), quote=True)


def _fmt(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return f"{int(value):,}"
        return f"{value:,.2f}" if abs(value) >= 0.01 else f"{value:.3g}"
    if isinstance(value, (tuple, list)):
        return ", ".join(_fmt(v) for v in value)
    return str(value)


def _dims(d) -> str:
    return " x ".join(str(v) for v in (tuple(d) if d is not None else ()))


def _metric_info() -> dict:
    try:
        from ..metrics.names import BY_NAME
    except ImportError:
        return {}
    return BY_NAME


# ------------------------------------------------------------ pieces

def headline_cards(metrics: dict) -> str:
    cards = []
    for name, title in HEADLINE:
        if name not in metrics:
            continue
        if "sectors_per_request" in name and not metrics.get(
                "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 1):
            continue                            # no global loads: nothing to say
        value = metrics[name]
        text = f"{value:.1f}%" if name.endswith(".pct") or name.endswith("_pct") else _fmt(value)
        cards.append(f'<div class="card" title="{escape(name)}"><b>{escape(text)}</b><span>{escape(title)}</span></div>')
    return f'<div class="cards">{"".join(cards)}</div>' if cards else ""


def metrics_table(metrics: dict) -> str:
    """Every metric, grouped by section, with its unit."""
    if not metrics:
        return ""
    info = _metric_info()
    sections: dict = {}
    for name, value in metrics.items():
        m = info.get(name)
        sections.setdefault(m.section if m else "Other", []).append((name, m, value))
    rows = []
    for section, items in sections.items():
        rows.append(f'<tr class="section"><td colspan="4">{escape(section)}</td></tr>')
        for name, m, value in items:
            unit = m.unit if m else ""
            desc = m.description if m else ""
            rows.append(f'<tr><td class="name" title="{escape(desc)}">{escape(name)}</td><td>{escape(unit)}</td>'
                        f'<td class="num">{escape(_fmt(value))}</td><td class="muted">{escape(desc)}</td></tr>')
    return ('<table class="metrics"><thead><tr><th>Metric Name</th><th>Metric Unit</th>'
            '<th>Metric Value</th><th>what it counts</th></tr></thead><tbody>'
            + "".join(rows) + "</tbody></table>")


def _heat_style(share: float) -> str:
    if share <= 0:
        return ""
    alpha = 0.06 + 0.55 * min(1.0, share)
    return f' style="background: rgba(255, 120, 30, {alpha:.2f})"'


def source_table(lines, sources=None, context: int = 2) -> str:
    """The source of each file with executed lines, heat = share of the warp instructions issued."""
    if not lines:
        return ""
    from ..metrics.lines import NO_LINE, read_source, worst_lines
    flagged = worst_lines(lines)
    by_file: dict = {}
    for r in lines:
        by_file.setdefault(r.file, {})[r.line] = r
    peak = max((r.inst for r in lines), default=0) or 1
    out = []
    for path, stats in by_file.items():
        text = read_source(path, sources) if path != NO_LINE else None
        if text is None:
            numbers = sorted(stats)
        else:
            executed = [n for n in stats if n]
            first = max(1, min(executed) - context) if executed else 1
            last = min(len(text), max(stats) + context)
            numbers = list(range(first, last + 1))
        rows = []
        for n in numbers:
            r = stats.get(n)
            code = text[n - 1] if text is not None and 0 < n <= len(text) else ""
            if r is None:
                rows.append(f'<tr><td class="num muted">{n}</td><td class="code muted">{escape(code)}</td>'
                            '<td></td><td></td><td></td><td></td><td></td><td></td></tr>')
                continue
            reasons = flagged.get((r.file, r.line), [])
            eff = r.simt_efficiency_pct
            eff_class = "bad" if r.inst and eff < 50 else "warn" if r.inst and eff < 90 else ""
            spr = f"{r.sectors_per_request:.1f}" if r.global_requests else ""
            rows.append(
                f'<tr class="{"flagged" if reasons else ""}"{_heat_style(r.inst / peak)}>'
                f'<td class="num muted">{n if n else "-"}</td><td class="code">{escape(code)}</td>'
                f'<td class="num">{_fmt(r.inst) if r.inst else ""}</td>'
                f'<td class="num {eff_class}">{f"{eff:.0f}%" if r.inst else ""}</td>'
                f'<td class="num">{_fmt(r.divergent) if r.divergent else ""}</td>'
                f'<td class="num">{spr}</td>'
                f'<td class="num">{_fmt(r.bank_conflicts) if r.bank_conflicts else ""}</td>'
                f'<td class="why">{escape(", ".join(reasons))}</td></tr>')
        out.append(f'<p class="muted"><code>{escape(path)}</code></p>'
                   '<table class="source"><thead><tr><th>line</th><th>source</th><th>warp inst</th>'
                   '<th>SIMT eff.</th><th>div. br.</th><th>sect/req</th><th>bank confl.</th><th>worst for</th>'
                   '</tr></thead><tbody>' + "".join(rows) + "</tbody></table>")
    return "".join(out)


def code_table(rows, sources=None) -> str:
    """Source, PTX and SASS side by side: each SASS instruction with the PTX and source line it
    came from, heat = its share of the most-executed instruction's warp executions."""
    if not rows:
        return ""
    from ..metrics.lines import read_source
    peak = max((r.executions or 0 for r in rows), default=0) or 1
    texts: dict = {}
    body, last = [], None
    for r in rows:
        if r.source_file not in texts:
            texts[r.source_file] = read_source(r.source_file, sources) if r.source_file else None
        lines = texts[r.source_file]
        where = (r.source_file, r.source_line)
        source = ""
        if where != last and lines and 0 < r.source_line <= len(lines):
            source = f"{r.source_line}: {lines[r.source_line - 1].strip()}"
        last = where
        ptx = f"{r.ptx_line}: {r.ptx_text}" if r.ptx_line else ""
        count = "" if r.executions is None else _fmt(r.executions)
        body.append(f'<tr{_heat_style((r.executions or 0) / peak)}><td class="code">{escape(source)}</td>'
                    f'<td class="code muted">{escape(ptx)}</td><td class="num muted">{r.offset:04x}</td>'
                    f'<td class="code">{escape(r.sass_text)}</td><td class="num">{count}</td></tr>')
    return ('<table class="source code-view"><thead><tr><th>source</th><th>PTX</th><th>offset</th>'
            '<th>SASS</th><th>warp inst</th></tr></thead><tbody>' + "".join(body) + "</tbody></table>")


def chart_img(traces, title: str = "") -> str:
    traces = [t for t in (traces if isinstance(traces, (list, tuple)) else [traces]) if t is not None and t.warps]
    if not traces:
        return ""
    try:
        uri = chart_data_uri(traces, title)
    except ImportError:                       # no matplotlib: the page goes without the picture
        return '<p class="muted">(lane-activity chart needs matplotlib: pip install matplotlib)</p>'
    alt = "lane activity: warps as rows, issued instructions as columns, colour = active lanes"
    return f'<figure><img class="chart" alt="{escape(alt)}" src="{uri}"></figure>'


# ------------------------------------------------------------ launches and profiles

def _launches(prof) -> list:
    launches = getattr(prof, "launches", None)
    if launches is None:
        launches = prof if isinstance(prof, (list, tuple)) else [prof]
    return list(launches)


def render_launch_html(launch, index: int = 0) -> str:
    name = getattr(launch, "kernel_name", None) or getattr(launch, "kernel", "kernel")
    metrics = dict(getattr(launch, "metrics", None) or {})
    selected = getattr(launch, "selected", None)          # warpsim profile --metrics a,b
    shown = {k: v for k, v in metrics.items() if k in selected} if selected else metrics
    lines = getattr(launch, "lines", None) or []
    sources = getattr(launch, "sources", None)
    trace = getattr(launch, "activity", None)
    parts = [f'<section class="launch" id="launch-{index}">',
             f'<h2>[{index}] <code>{escape(name)}</code> <span class="muted">grid {escape(_dims(getattr(launch, "grid", ())))}'
             f', block {escape(_dims(getattr(launch, "block", ())))}</span></h2>',
             headline_cards(metrics)]
    if trace is not None:
        parts += ["<h3>Lane activity</h3>", chart_img(trace)]
    if lines:
        parts += ["<h3>Source</h3>", '<p class="muted">Heat: share of the launch\'s warp instructions issued '
                                     "on the line. SIMT efficiency below 90% is yellow, below 50% red.</p>",
                  source_table(lines, sources)]
    code = getattr(launch, "code", None)
    if code:
        parts += ["<details><summary><h3 style=\"display:inline\">Source, PTX and SASS</h3></summary>",
                  '<p class="muted">Every SASS instruction ptxas made, with the PTX and source line it '
                  "came from; heat: warp-level executions in the SASS run.</p>",
                  code_table(code, sources), "</details>"]
    if shown:
        parts += [f"<details open><summary><h3 style=\"display:inline\">Metrics ({len(shown)})</h3></summary>",
                  metrics_table(shown), "</details>"]
    parts.append("</section>")
    return "\n".join(p for p in parts if p)


def render_profile_html(prof, title: str = "warpsim profile") -> str:
    """A profile (or a list of launches) as an HTML fragment: style, contents, one section per launch."""
    launches = _launches(prof)
    nav = "".join(f'<a href="#launch-{i}">[{i}] {escape(getattr(l, "kernel_name", "kernel"))}</a>'
                  for i, l in enumerate(launches))
    body = "\n".join(render_launch_html(l, i) for i, l in enumerate(launches))
    return (f'<div class="warpsim-report"><style>{CSS}</style><h1>{escape(title)}</h1>'
            f'<p class="muted">{len(launches)} launch{"es" if len(launches) != 1 else ""} simulated by warpsim. '
            "Counts are of PTX instructions.</p>"
            + (f"<nav>{nav}</nav>" if len(launches) > 1 else "") + body + "</div>")


def page(fragment: str, title: str) -> str:
    stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"generator\" content=\"warpsim\"><title>{escape(title)}</title></head>"
            f"<body>{fragment}<p class=\"warpsim-report muted\">Written by warpsim on {stamp}.</p>"
            "</body></html>\n")


def write_html_report(prof, path, title: str = "warpsim profile") -> str:
    """Write the profile as one self-contained HTML file; returns the path."""
    text = page(render_profile_html(prof, title), title)
    with open(os.fspath(path), "w", encoding="utf-8") as handle:
        handle.write(text)
    return os.fspath(path)


# ------------------------------------------------------------ demos

def render_demo_html(results) -> str:
    parts = ['<div class="warpsim-report">', f"<style>{CSS}</style>",
             "<h1>warpsim demo: the SIMT document's worked examples</h1>",
             '<p class="muted">Each demo runs the document\'s kernels on warpsim and puts the measured '
             "figures beside the document's claims.</p>",
             "<nav>" + "".join(f'<a href="#demo-{escape(r.name)}">{escape(r.title)}</a>' for r in results) + "</nav>"]
    for r in results:
        claim = r.claim
        rows = "".join(
            f'<tr><td>{escape(row.what)}</td><td class="num"><b>{escape(row.measured)}</b></td>'
            f'<td class="num">{escape(row.document)}</td>'
            f'<td class="{"ok" if row.ok else "bad"}">{"✓" if row.ok else "✗"}</td></tr>' for row in r.rows)
        parts += [f'<section class="demo" id="demo-{escape(r.name)}">', f"<h2>{escape(r.title)} "
                  f'<span class="muted">warpsim demo {escape(r.name)}</span></h2>',
                  f"<blockquote>{escape(claim)}</blockquote>",
                  '<table class="figures"><thead><tr><th>figure</th><th>measured</th>'
                  "<th>simt-execution.md says</th><th></th></tr></thead><tbody>" + rows + "</tbody></table>",
                  chart_img([run.trace for run in r.runs], r.title), _demo_code(r.runs), "</section>"]
    parts.append("</div>")
    return "\n".join(p for p in parts if p)


def _demo_code(runs) -> str:
    """Each launch's source, PTX and SASS side by side (launches without a SASS view are left out)."""
    parts = []
    for run in runs:
        profile = getattr(run, "profile", None)
        code = getattr(profile, "code", None)
        if code:
            parts += [f"<details><summary>Source, PTX and SASS: <code>{escape(run.label)}</code></summary>",
                      code_table(code, getattr(profile, "sources", None)), "</details>"]
    return "\n".join(parts)


def write_demo_report(results, path) -> str:
    text = page(render_demo_html(results), "warpsim demo")
    with open(os.fspath(path), "w", encoding="utf-8") as handle:
        handle.write(text)
    return os.fspath(path)


# The name warpsim.profiler's Profiler.write_html looks for.
write_profile = write_html_report
