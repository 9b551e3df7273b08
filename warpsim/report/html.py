"""One self-contained HTML report that leads with the answer: per launch, the headline
figures (report/headline.py: predicted time, SIMT efficiency, sectors per load and per
store request, achieved vs theoretical occupancy, top stall reason), each linking to the
section that shows its cause, then the timing model's figures, the per-line stalls, the
occupancy calculation, the lane-activity chart, the source with per-line heat, source/PTX/
SASS side by side and every metric. No external assets: CSS is inline and charts are
base64 PNGs, so the file can be mailed, attached to CI or opened offline. Wide content
(code, long metric names) wraps inside its column, so the page fits a 1280-pixel window.

    write_html_report(prof, "report.html")    a `with warpsim.profile() as prof:` result
    render_profile_html(prof)                 the same as an HTML fragment (notebooks)
    write_demo_report(results, "demo.html")   what `warpsim demo --html` writes

A profiled launch is read through its attributes: kernel_name, grid, block,
metrics (Nsight Compute name -> value), lines (per-source-line LineStats),
sources (file name -> text, for code given as a string), activity (an
ActivityTrace, when one was recorded), level ('sass' or 'ptx': which
instructions the counts are of), timing (when a GPU was chosen) and code
(source/PTX/SASS rows). Missing ones are left out of the page.
"""

from __future__ import annotations

import datetime
import html
import os

from .activity import chart_data_uri
from .headline import EVIDENCE, headline
from .stall_lines import stall_lines

__all__ = ["write_html_report", "render_profile_html", "render_launch_html", "write_demo_report",
           "render_demo_html", "page"]

CSS = """
.warpsim-report { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d2430;
  max-width: 1200px; margin: 0 auto; padding: 0 16px 40px; box-sizing: border-box; }
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
.warpsim-report td.name { font: 12.5px ui-monospace, Menlo, Consolas, monospace; overflow-wrap: break-word; }
.warpsim-report tr.section td { background: #f7f8fb; font-weight: 600; color: #3a4658; }
.warpsim-report .cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); gap: 10px;
  margin: 10px 0 6px; }
.warpsim-report a.card { display: block; border: 1px solid #d6dbe3; border-left: 5px solid #8fb3e0;
  border-radius: 6px; padding: 7px 12px; color: inherit; text-decoration: none; }
.warpsim-report a.card:hover { background: #f7f8fb; }
.warpsim-report a.card.tone-bad { border-left-color: #b3261e; }
.warpsim-report a.card.tone-warn { border-left-color: #d4a72c; }
.warpsim-report .card b { display: block; font-size: 21px; line-height: 1.25; overflow-wrap: anywhere; }
.warpsim-report .card b.word { font-size: 16px; line-height: 1.6; }
.warpsim-report a.card.tone-bad b { color: #b3261e; }
.warpsim-report .card span { display: block; font-size: 13px; font-weight: 600; color: #3a4658; }
.warpsim-report .card small { display: block; font-size: 12px; color: #6b7688; }
.warpsim-report .level { font-size: 12px; font-weight: 600; color: #3a4658; background: #eef2f8;
  border-radius: 4px; padding: 1px 6px; vertical-align: middle; }
.warpsim-report table.keys td:first-child { color: #3a4658; }
.warpsim-report table.stalls td.code { font: 12.5px/1.4 ui-monospace, Menlo, Consolas, monospace;
  white-space: pre-wrap; overflow-wrap: anywhere; }
.warpsim-report table.source td { padding: 0 8px; border: none; }
.warpsim-report table.source td.code { white-space: pre-wrap; overflow-wrap: anywhere;
  font: 12.5px/1.5 ui-monospace, Menlo, Consolas, monospace; }
.warpsim-report table.code-view { table-layout: fixed; width: 100%; }
.warpsim-report table.code-view col.source { width: 27%; }
.warpsim-report table.code-view col.ptx { width: 31%; }
.warpsim-report table.code-view col.offset { width: 52px; }
.warpsim-report table.code-view col.sass { width: 31%; }
.warpsim-report table.code-view col.count { width: 80px; }
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

def headline_cards(launch, index: int = 0, present=None) -> str:
    """The launch's headline figures as cards, each a link to the section with its evidence
    (to the metrics when that section is not on the page)."""
    cards = []
    for card in headline(launch):
        section = card.evidence if present is None or card.evidence in present else "metrics"
        hint = f"evidence: {EVIDENCE[section]}" + (f" ({card.metric})" if card.metric else "")
        tone = f" tone-{card.tone}" if card.tone else ""
        word = ' class="word"' if card.value[:1].isalpha() else ""       # a name, not a number
        cards.append(f'<a class="card{tone}" href="#{_anchor(index, section)}" title="{escape(hint)}">'
                     f"<b{word}>{escape(card.value)}</b><span>{escape(card.title)}</span>"
                     f"<small>{escape(card.detail)}</small></a>")
    return f'<div class="cards">{"".join(cards)}</div>' if cards else ""


def _anchor(index: int, section: str) -> str:
    return f"launch-{index}-{section}"


def timing_table(timing) -> str:
    """The timing model's figures for the launch (warpsim.timing.Timing)."""
    stalls = sorted(((v, k) for k, v in timing.stalls.items() if k != "selected"), reverse=True)
    rows = [("predicted time (gpu__time_duration.sum)", f"{timing.time_s * 1e6:,.2f} us"),
            ("SM cycles (sm__cycles_elapsed.avg)", f"{timing.cycles:,.0f}"),
            ("achieved occupancy", f"{timing.achieved_occupancy:.1f}%"),
            ("issue active", f"{timing.issue_active:.1f}% of cycles"),
            ("bottleneck", timing.bottleneck),
            ("stall reasons, warps per issue", ", ".join(f"{k} {v:.2f}" for v, k in stalls[:5] if v >= 0.005)),
            ("the model's counts are from", f"the {timing.source.upper()} run" if timing.source in ("ptx", "sass")
             else timing.source)]
    rows += [("note", note) for note in getattr(timing, "notes", None) or []]
    return _keys_table(rows)


def _keys_table(rows) -> str:
    body = "".join(f"<tr><td>{escape(k)}</td><td>{escape(v)}</td></tr>" for k, v in rows)
    return f'<table class="keys"><tbody>{body}</tbody></table>'


def occupancy_keys(metrics: dict, timing=None) -> str:
    """How many blocks fit on an SM and why (the occupancy calculator's figures), and what the
    timing model predicts is achieved."""
    if "sm__maximum_warps_per_active_cycle_pct" not in metrics:
        return ""
    limits = ", ".join(f"{what} {_fmt(metrics[f'launch__occupancy_limit_{key}'])}"
                       for key, what in (("warps", "warps"), ("blocks", "blocks"), ("registers", "registers"),
                                         ("shared_mem", "shared memory"))
                       if f"launch__occupancy_limit_{key}" in metrics)
    rows = [("theoretical occupancy", f"{metrics['sm__maximum_warps_per_active_cycle_pct']:.1f}%, limited by "
                                      f"{metrics.get('warpsim__occupancy_limiter') or '-'}"),
            ("blocks per SM each resource allows", limits),
            ("registers per thread", f"{_fmt(metrics.get('launch__registers_per_thread', '-'))} "
                                     f"({metrics.get('warpsim__registers_per_thread_source', '')})"),
            ("shared memory per block", f"{_fmt(metrics.get('launch__shared_mem_per_block_static', 0))} B static + "
                                        f"{_fmt(metrics.get('launch__shared_mem_per_block_dynamic', 0))} B dynamic + "
                                        f"{_fmt(metrics.get('launch__shared_mem_per_block_driver', 0))} B driver")]
    if timing is not None:
        rows.append(("achieved occupancy (predicted)", f"{timing.achieved_occupancy:.1f}% on {timing.gpu.upper()}"))
    return _keys_table(rows)


def stall_table(timing, sources=None, limit: int = 10) -> str:
    """The per-line stall breakdown (report/stall_lines.py) as HTML."""
    rows = stall_lines(timing, limit, sources)
    if not rows:
        return ""
    body = "".join(f'<tr><td class="num muted">{escape(r.where)}</td><td class="num">{r.share_pct:.1f}</td>'
                   f"<td>{escape(r.stalls_text)}</td><td class=\"muted\">{escape(r.ptx_text)}</td>"
                   f'<td class="code">{escape(r.source)}</td></tr>' for r in rows)
    return ('<table class="stalls"><thead><tr><th>line</th><th>share %</th><th>top stall reasons '
            '(warps per issue)</th><th>PTX lines</th><th>source</th></tr></thead><tbody>' + body + "</tbody></table>")


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
    return ('<table class="source code-view"><colgroup><col class="source"><col class="ptx"><col class="offset">'
            '<col class="sass"><col class="count"></colgroup><thead><tr><th>source</th><th>PTX</th><th>offset</th>'
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


def level_label(launch) -> str:
    """'SASS-level counts' or 'PTX-level counts' (with the reason, when the SASS run fell back)."""
    level = (getattr(launch, "level", None) or "ptx").upper()
    note = getattr(launch, "level_note", "")
    return f"{level}-level counts" + (f": {note}" if note else "")


def render_launch_html(launch, index: int = 0) -> str:
    """One launch: the headline cards, then the sections they link to."""
    name = getattr(launch, "kernel_name", None) or getattr(launch, "kernel", "kernel")
    metrics = dict(getattr(launch, "metrics", None) or {})
    selected = getattr(launch, "selected", None)          # warpsim profile --metrics a,b
    shown = {k: v for k, v in metrics.items() if k in selected} if selected else metrics
    lines = getattr(launch, "lines", None) or []
    sources = getattr(launch, "sources", None)
    trace = getattr(launch, "activity", None)
    timing = getattr(launch, "timing", None)
    level = (getattr(launch, "level", None) or "ptx").upper()
    sections = {}                                         # evidence key -> HTML, in page order
    if timing is not None:
        sections["timing"] = (f"<h3>Predicted on {escape(timing.gpu.upper())}</h3>", timing_table(timing))
        stalls = stall_table(timing, sources)
        if stalls:
            sections["stalls"] = ("<h3>Predicted stalls by source line</h3>",
                                  '<p class="muted">Share: of all warp-cycles of the launch; reasons: warps stalled '
                                  "per issued instruction of the whole kernel, so they add up over the lines to the "
                                  "launch's.</p>" + stalls)
    occupancy = occupancy_keys(metrics, timing)
    if occupancy:
        sections["occupancy"] = ("<h3>Occupancy</h3>", occupancy)
    if trace is not None:
        chart = chart_img(trace)
        if chart:
            sections["lanes"] = ("<h3>Lane activity</h3>",
                                 '<p class="muted">Active lanes of every warp instruction the PTX run issued, '
                                 "warps as rows.</p>" + chart)
    if lines:
        sections["source"] = ("<h3>Source</h3>",
                              f'<p class="muted">Counts of {level} instructions by source line. Heat: share of the '
                              "launch's warp instructions issued on the line. SIMT efficiency below 90% is yellow, "
                              "below 50% red.</p>" + source_table(lines, sources))
    parts = [f'<section class="launch" id="launch-{index}">',
             f'<h2>[{index}] <code>{escape(name)}</code> <span class="muted">grid {escape(_dims(getattr(launch, "grid", ())))}'
             f', block {escape(_dims(getattr(launch, "block", ())))}</span> '
             f'<span class="level">{escape(level_label(launch))}</span></h2>',
             *([f'<p class="muted">toolchain: {escape(launch.toolchain)}</p>']
               if getattr(launch, "toolchain", "") else []),
             headline_cards(launch, index, set(sections) | ({"metrics"} if shown else set()))]
    for key, (heading, body) in sections.items():
        parts.append(f'<div id="{_anchor(index, key)}">{heading}{body}</div>')
    code = getattr(launch, "code", None)
    if code:
        parts += [f'<details id="{_anchor(index, "code")}"><summary><h3 style="display:inline">Source, PTX and SASS'
                  "</h3></summary>",
                  '<p class="muted">Every SASS instruction ptxas made, with the PTX and source line it '
                  "came from; heat: warp-level executions in the SASS run.</p>",
                  code_table(code, sources), "</details>"]
    if shown:
        parts += [f'<details open id="{_anchor(index, "metrics")}"><summary><h3 style="display:inline">'
                  f"Metrics ({len(shown)})</h3></summary>",
                  f'<p class="muted">Instruction counts are of {level} instructions.</p>',
                  metrics_table(shown), "</details>"]
    parts.append("</section>")
    return "\n".join(p for p in parts if p)


def counts_sentence(launches) -> str:
    """What the page's instruction counts are of, as the launches were counted."""
    levels = {(getattr(launch, "level", None) or "ptx") for launch in launches}
    if levels == {"sass"}:
        return "Counts are of SASS instructions (what the GPU issues), from a SASS run beside the PTX run."
    if levels == {"ptx"}:
        return "Counts are of PTX instructions (the hardware counts SASS)."
    return "Counts are of SASS or PTX instructions, as each launch says."


def render_profile_html(prof, title: str = "warpsim profile") -> str:
    """A profile (or a list of launches) as an HTML fragment: style, contents, one section per launch."""
    launches = _launches(prof)
    nav = "".join(f'<a href="#launch-{i}">[{i}] {escape(getattr(l, "kernel_name", "kernel"))}</a>'
                  for i, l in enumerate(launches))
    body = "\n".join(render_launch_html(l, i) for i, l in enumerate(launches))
    return (f'<div class="warpsim-report"><style>{CSS}</style><h1>{escape(title)}</h1>'
            f'<p class="muted">{len(launches)} launch{"es" if len(launches) != 1 else ""} simulated by warpsim. '
            f"{counts_sentence(launches)}</p>"
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
