"""The lane-activity chart and the HTML report, checked in headless Chromium."""

import base64
import io
import os
import re
import shutil
import subprocess
import textwrap

import numpy as np
import pytest

import warpsim
from warpsim.report.activity import ActivityTrace, chart_png, save_chart
from warpsim.report.html import render_profile_html, write_demo_report

pytestmark = pytest.mark.nvrtc
matplotlib = pytest.importorskip("matplotlib")

KERNELS = textwrap.dedent("""
    __device__ float heavy(float x, int n) {
        for (int i = 0; i < n; ++i) x = x * 1.000001f + 0.5f;
        return x;
    }
    extern "C" __global__ void branch_on_lane(float* out, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        float v = i;
        if (threadIdx.x % 2 == 0) v = heavy(v, n);
        else                      v = heavy(v + 1.f, n);
        out[i] = v;
    }
    extern "C" __global__ void scale(float* x, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) x[i] *= 2.f;
    }
""")

SCRIPT = textwrap.dedent('''
    import numpy as np
    import warpsim as cp
    mod = cp.RawModule(code=open(__file__.replace("script.py", "kernels.cu")).read())
    out = cp.zeros(256, dtype=cp.float32)
    mod.get_function("branch_on_lane")((2,), (128,), (out, np.int32(12)))
    x = cp.zeros(100, dtype=cp.float32)
    mod.get_function("scale")((1,), (100,), (x, np.int32(100)))
    print("done")
''')


def png_pixels(data: bytes) -> np.ndarray:
    import matplotlib.pyplot as plt
    return plt.imread(io.BytesIO(data), format="png")


def distinct_colours(pixels: np.ndarray) -> int:
    rgb = (pixels[..., :3] * 255).round().astype(np.uint32)
    return len(np.unique(rgb[..., 0] << 16 | rgb[..., 1] << 8 | rgb[..., 2]))


@pytest.fixture(scope="module")
def profiled():
    module = warpsim.RawModule(code=KERNELS)
    with warpsim.profile() as prof:
        out = warpsim.zeros(256, dtype=np.float32)
        module.get_function("branch_on_lane")((2,), (128,), (out, np.int32(12)))
        x = warpsim.zeros(100, dtype=np.float32)
        module.get_function("scale")((1,), (100,), (x, np.int32(100)))
    return prof


def test_trace_records_lanes_per_warp(profiled):
    lane, partial = (launch.activity for launch in profiled.launches)
    assert isinstance(lane, ActivityTrace) and lane.warps == 8
    assert set(np.unique(lane.matrix().compressed())) == {16, 32}      # the even/odd passes and the rest
    assert partial.warps == 4 and partial.live_lanes[:4].tolist() == [32, 32, 32, 4]
    assert (partial.recorded(3) == 4).all()


def test_trace_is_bounded():
    trace = ActivityTrace(max_warps=2, max_issues=8)
    module = warpsim.RawModule(code=KERNELS)
    fn = module.get_function("branch_on_lane")
    from warpsim.api.args import pack_arguments
    out = warpsim.zeros(256, dtype=np.float32)
    fn.loaded_module.launch(fn.kernel_name, (2,), (128,),
                            pack_arguments(fn.kernel_name, fn.params, (out, np.int32(12))), observers=[trace])
    assert trace.warps == 2 and trace.total_warps == 8 and trace.truncated
    assert trace.matrix().shape == (2, 8) and trace.issued[0] > 8


def test_chart_png_is_written_and_not_trivial(profiled, tmp_path):
    path = save_chart([launch.activity for launch in profiled.launches], tmp_path / "chart.png", "lanes")
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    pixels = png_pixels(data)
    assert pixels.shape[0] > 300 and pixels.shape[1] > 600
    assert distinct_colours(pixels) >= 8
    assert chart_png(profiled.launches[0].activity)[:4] == b"\x89PNG"


def test_html_report_is_self_contained(profiled):
    text = render_profile_html(profiled)
    assert text.count('<section class="launch"') == 2
    assert '<table class="metrics">' in text and '<table class="source">' in text
    assert text.count('<img class="chart"') == 2 and "data:image/png;base64," in text
    assert "smsp__thread_inst_executed_per_inst_executed.ratio" in text
    assert "heavy(v, n)" in text                                       # the source view has the code
    assert not re.search(r'(src|href)="(https?:)?//', text)              # no external assets
    image = re.search(r'data:image/png;base64,([A-Za-z0-9+/=]+)"', text).group(1)
    assert base64.b64decode(image)[:4] == b"\x89PNG"
    assert profiled._repr_html_().startswith('<div class="warpsim-report">')
    assert "<table" in profiled.launches[0]._repr_html_()


def test_warpsim_profile_html_cli(tmp_path, capsys):
    (tmp_path / "kernels.cu").write_text(KERNELS)
    (tmp_path / "script.py").write_text(SCRIPT)
    report = tmp_path / "report.html"
    from warpsim.cli import main
    assert main(["profile", "--html", str(report), "python", str(tmp_path / "script.py")]) == 0
    assert "done" in capsys.readouterr().out
    text = report.read_text()
    assert text.startswith("<!DOCTYPE html>") and "branch_on_lane" in text and "scale" in text
    assert text.count('<img class="chart"') == 2


def test_demo_report(tmp_path):
    from warpsim.demo import run_demo
    path = write_demo_report([run_demo("partial_warp")], tmp_path / "demo.html")
    text = open(path).read()
    assert '<table class="figures">' in text and "32 32 32 4" in text and '<img class="chart"' in text


# ---------------------------------------------------------------- in a browser

def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def run_chromium(args, tmp_path) -> subprocess.CompletedProcess:
    exe = chromium()
    command = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-dev-shm-usage", "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}",
               *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=90, cwd=tmp_path)


@pytest.mark.skipif(chromium() is None, reason="no headless Chromium (apt-get install chromium)")
def test_html_report_in_headless_chromium(profiled, tmp_path):
    from warpsim.report.html import write_html_report
    page = write_html_report(profiled, tmp_path / "report.html")
    url = "file://" + os.path.abspath(page)
    dom = run_chromium(["--dump-dom", url], tmp_path).stdout
    assert '<table class="metrics">' in dom and '<table class="source">' in dom
    assert dom.count('class="chart"') == 2 and "Lane activity" in dom
    shot = tmp_path / "shot.png"
    run_chromium([f"--screenshot={shot}", "--window-size=1200,1600", url], tmp_path)
    assert shot.exists() and shot.stat().st_size > 20_000
    pixels = png_pixels(shot.read_bytes())
    assert distinct_colours(pixels) >= 16
    rgb = (pixels[..., :3] * 255).round()
    yellow = (np.abs(rgb - [253, 231, 37]).max(axis=-1) < 12).sum()   # full-warp colour of the chart
    teal = (np.abs(rgb - [33, 145, 140]).max(axis=-1) < 20).sum()     # 16 lanes: the divergent loop
    assert yellow > 1000 and teal > 1000


LEAKY = r'''extern "C" __global__ void leaky(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    y[i] = v > 0.f ? v : 0.1f * v;
}'''


def test_sass_level_profile_shows_source_ptx_and_sass_side_by_side():
    kernel = warpsim.RawModule(code=LEAKY).get_function("leaky")
    x = np.random.default_rng(3).standard_normal(1000).astype(np.float32)
    y = warpsim.full(1000, np.nan, dtype=np.float32)
    with warpsim.profile(level="sass") as prof:
        kernel((4,), (256,), (warpsim.asarray(x), y, np.int32(1000)))
    np.testing.assert_array_equal(y.get(), np.where(x > 0, x, np.float32(0.1) * x))
    launch = prof.launches[0]
    assert launch.level == "sass" and launch.code
    ternary = [r for r in launch.code if r.source_line == 5]
    assert any(r.sass_text.startswith("FSETP") for r in ternary)
    assert all("BRA" not in r.sass_text for r in ternary)
    assert all(r.ptx_line and r.ptx_text for r in ternary)
    assert max(r.executions for r in launch.code) == 32          # 32 warps ran every instruction
    html = render_profile_html(prof)
    assert "Source, PTX and SASS" in html and "FSETP.GT" in html and "y[i] = v &gt; 0.f" in html


# ---------------------------------------------------------------- the headline, at 1280 pixels

NAIVE_TRANSPOSE = r'''extern "C" __global__ void transpose_naive(const float* in, float* out, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < n && y < n) out[x * n + y] = in[y * n + x];
}'''

# Opens every <details>, then lists each element that reaches past the window or scrolls, and
# each headline card with the section it links to, in a <pre id="probe"> that --dump-dom prints.
PROBE = """<script>
document.querySelectorAll("details").forEach(d => d.open = true);
window.addEventListener("load", () => {
  const width = document.documentElement.clientWidth, wide = [];
  for (const el of document.body.querySelectorAll("*")) {
    const box = el.getBoundingClientRect();
    if (el.scrollWidth > width || box.right > width + 1 || el.scrollWidth > el.clientWidth + 1 &&
        getComputedStyle(el).overflowX !== "visible")
      wide.push(`${el.tagName}.${el.className} scrollWidth ${el.scrollWidth} right ${Math.round(box.right)}`);
  }
  const cards = [...document.querySelectorAll("a.card")].map(a => ({
    text: a.innerText, href: a.getAttribute("href"),
    target: !!document.querySelector(a.getAttribute("href")), top: a.getBoundingClientRect().top}));
  const probe = document.createElement("pre");
  probe.id = "probe";
  probe.textContent = JSON.stringify({width, wide, cards});
  document.body.appendChild(probe);
});
</script>"""


@pytest.fixture(scope="module")
def naive_transpose():
    """The naive transpose on 64 x 64 floats, profiled with the H200 chosen: loads coalesce
    (4 sectors per request), the transposed stores do not (32)."""
    kernel = warpsim.RawModule(code=NAIVE_TRANSPOSE).get_function("transpose_naive")
    a = np.random.default_rng(1).random((64, 64), dtype=np.float32)
    out = warpsim.zeros((64, 64), dtype=np.float32)
    with warpsim.settings(gpu="h200"), warpsim.profile() as prof:
        kernel((2, 8), (32, 8), (warpsim.asarray(a), out, np.int32(64)))
    np.testing.assert_array_equal(out.get(), a.T)
    return prof


def test_headline_leads_with_the_answer_and_links_to_the_evidence(naive_transpose):
    from warpsim.report.headline import headline
    launch = naive_transpose.launches[0]
    cards = {card.title: card for card in headline(launch)}
    assert list(cards)[0] == "predicted time on H200"
    assert cards["predicted time on H200"].value == f"{launch.timing.time_s * 1e6:.2f} us"
    assert cards["sectors per global load request"].value == "4.0"
    store = cards["sectors per global store request"]
    assert store.value == "32.0" and store.tone == "bad"
    assert cards["SIMT efficiency"].value == "100.0%"
    assert cards["achieved / theoretical occupancy"].value == f"{launch.timing.achieved_occupancy:.1f}% / 100%"
    assert cards["top stall reason"].value == launch.timing.top_stall
    text = render_profile_html(naive_transpose)
    assert text.index('class="cards"') < text.index("<h3>")              # the cards come first
    for href in re.findall(r'<a class="card[^"]*" href="#([^"]+)"', text):
        assert f'id="{href}"' in text, href
    assert {"launch-0-timing", "launch-0-stalls", "launch-0-occupancy", "launch-0-source"} <= set(
        re.findall(r'<a class="card[^"]*" href="#([^"]+)"', text))


def test_report_says_the_level_and_has_the_per_line_stalls(naive_transpose):
    text = render_profile_html(naive_transpose)
    assert naive_transpose.launches[0].level == "sass"
    assert "SASS-level counts" in text and "Counts are of SASS instructions" in text
    assert "Counts are of PTX instructions" not in text and "warp-level PTX instructions" not in text
    stalls = text[text.index('id="launch-0-stalls"'):]
    stalls = stalls[:stalls.index("</table>")]
    assert "if (x &lt; n &amp;&amp; y &lt; n) out[x * n + y] = in[y * n + x];" in stalls
    assert naive_transpose.launches[0].timing.top_stall in stalls


@pytest.mark.skipif(chromium() is None, reason="no headless Chromium (apt-get install chromium)")
def test_report_fits_1280_pixels_and_shows_the_headline_on_top(naive_transpose, tmp_path):
    """At 1280 pixels, every section open, nothing reaches past the window (the SASS column was
    cut at the right) and the headline cards, at the top, hold the numbers."""
    import json
    from html import unescape
    from warpsim.report.html import write_html_report
    page = write_html_report(naive_transpose, tmp_path / "report.html")
    probed = tmp_path / "probed.html"
    probed.write_text(open(page, encoding="utf-8").read() + PROBE, encoding="utf-8")
    url = "file://" + os.path.abspath(probed)
    dom = run_chromium(["--window-size=1280,1600", "--dump-dom", url], tmp_path).stdout
    found = json.loads(unescape(re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S).group(1)))
    assert found["width"] == 1280 and found["wide"] == []
    cards = {card["text"].split("\n")[1]: card for card in found["cards"]}
    launch = naive_transpose.launches[0]
    assert cards["predicted time on H200"]["text"].startswith(f"{launch.timing.time_s * 1e6:.2f} us")
    assert cards["sectors per global store request"]["text"].startswith("32.0")
    assert cards["sectors per global load request"]["text"].startswith("4.0")
    assert cards["top stall reason"]["text"].startswith(launch.timing.top_stall)
    assert "achieved / theoretical occupancy" in cards and "SIMT efficiency" in cards
    assert all(card["target"] for card in found["cards"])
    assert max(card["top"] for card in found["cards"]) < 400          # above the fold
    shot = tmp_path / "headline.png"
    run_chromium([f"--screenshot={shot}", "--window-size=1280,900", url], tmp_path)
    rgb = (png_pixels(shot.read_bytes())[..., :3] * 255).round()
    assert rgb.shape[1] == 1280
    red = np.abs(rgb - [179, 38, 30]).max(axis=-1) < 16                 # the store card's red
    rows = np.nonzero(red.any(axis=1))[0]
    assert red.sum() > 200 and rows.min() < 400
