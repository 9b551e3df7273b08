"""Each demo reproduces its worked example of the SIMT document with the document's figures."""

import io

import numpy as np
import pytest
from rich.console import Console

from warpsim.demo import DEMOS, load, main, run_demo

pytestmark = pytest.mark.nvrtc

HEAVY = {"cooperative", "profile", "waves"}        # seconds each: their tests run in the slow job


@pytest.fixture(scope="module")
def results():
    return {}


def demo(results, name):
    if name not in results:
        results[name] = run_demo(name)
    return results[name]


def test_divergence_branch_on_lane_is_16_lanes_in_its_loop(results):
    f = demo(results, "divergence").figures
    assert f["lane_active_lanes"] == 16
    assert f["warp_active_lanes"] == 32
    assert f["lane_efficiency"] == 0.5 and f["warp_efficiency"] == 1.0
    assert 1.8 <= f["issued_ratio"] <= 2.0


def test_divergence_predicted_about_twice_the_cycles(results):
    f = demo(results, "divergence").figures
    assert 1.6 <= f["predicted_cycles_ratio"] <= 2.3
    assert f["lane_time_s"] > f["warp_time_s"] > 0


def test_loops_one_long_lane_is_8_percent_and_sorting_fixes_it(results):
    f = demo(results, "loops").figures
    assert f["predicted_sorting_speedup"] > 1
    assert f["warp0_loop_efficiency"] == pytest.approx(510 / 6400, abs=1e-9)
    assert f["document_unsorted"] == pytest.approx(510 / 6400, abs=1e-9)
    assert f["document_sorted"] == 1.0
    assert f["realistic_sorted"] > 0.95 > 0.6 > f["realistic_unsorted"]
    assert f["issued_sorted"] * 5 < f["issued_unsorted"]


def test_predication_select_without_branch_and_long_branch_diverges(results):
    f = demo(results, "predication").figures
    assert "selp" in f["short_opcodes"] and "bra" not in f["short_opcodes"]
    assert "bra" in f["long_opcodes"]
    assert f["short_partial_issues"] == 0 and f["short_lanes"] == 32
    assert f["long_partial_issues"] > 0 and f["long_lanes"] < 32
    assert f["short_sass_predicated"] and "BRA" not in f["short_sass"]       # the GPU's code: no branch
    assert f["long_sass_branches"] and {"BSSY", "BRA", "BSYNC"} <= set(f["long_sass"])
    if f["long_divergent_branches"] is not None:      # the profiler's metric, when it is there
        assert not f["short_divergent_branches"] and f["long_divergent_branches"] > 0


def test_reduction_sums_and_full_width_shuffles(results):
    f = demo(results, "reduction").figures
    assert f["sum"] == f["expected"]
    assert f["total"] == 528 and f["shuffles_per_warp_sum"] == 5
    assert f["recorded_shuffles"] > 0 and (f["shuffle_lanes"] == 32).all()
    tree = f["tree"]
    assert tree[1, 0] == 1 + 17 and tree[2, 0] == 1 + 9 + 17 + 25


def test_aggregated_atomics_are_32x_fewer_when_every_lane_keeps(results):
    f = demo(results, "atomics").figures
    per_thread, aggregated = f["compact_per_thread|all kept"], f["compact_aggregated|all kept"]
    assert per_thread["operations"] == 4096 and aggregated["operations"] == 4096 // 32
    assert f["ratio|all kept"] == 32
    assert 1 < f["ratio|half kept"] < 32
    assert all(v["correct"] for k, v in f.items() if isinstance(v, dict))


def test_block_of_100_threads_is_four_warps_the_last_with_four_lanes(results):
    f = demo(results, "partial_warp").figures
    assert f["warps_per_block"] == 4
    assert f["live_lanes"] == [32, 32, 32, 4]
    assert f["wasted_slots"] == 28 and f["last_warp_lanes"] == 4
    assert f["efficiency_100"] == pytest.approx(100 / 128) and f["efficiency_128"] == 1.0


def test_scheduling_spin_wait_and_legacy_reduction(results):
    f = demo(results, "scheduling").figures
    assert not f["spin_stack_completed"] and f["spin_its_completed"]
    msg = f["spin_stack_message"]
    assert "pre-Volta" in msg and "scheduling='its'" in msg
    assert f["legacy_reduce|stack"]["correct"]
    assert f["legacy_reduce|stack"]["lockstep_reads"] == 4 * (16 + 24 + 28 + 30 + 31)
    assert f["syncwarp_reduce|its"]["correct"] and f["syncwarp_reduce|its"]["lockstep_reads"] == 0
    assert f["syncwarp_reduce|stack"]["correct"]


def test_occupancy_registers_and_shared_memory_budgets(results):
    rows = {(r["kernel"], r["shared"]): r for r in demo(results, "occupancy").figures["rows"]}
    light, heavy = rows["triad_1", 0], rows["triad_32", 0]
    assert light["warps"] == 64 and light["pct"] == 100
    assert heavy["registers"] > light["registers"] and heavy["warps"] < light["warps"]
    assert "registers" in heavy["limiters"]
    smem = rows["triad_1", 100 * 1024]
    assert smem["warps"] < 64 and "shared_mem" in smem["limiters"]
    assert all(r["correct"] for r in rows.values())


def test_occupancy_predicted_fewer_warps_hide_less_latency(results):
    f = demo(results, "occupancy").figures
    hiding = f["latency_hiding"]                       # (resident warps, predicted s), most warps first
    assert [w for w, _ in hiding] == sorted({w for w, _ in hiding}, reverse=True) and hiding[0][0] == 64
    assert all(later >= earlier * 0.99 for (_, earlier), (_, later) in zip(hiding, hiding[1:]))
    assert hiding[-1][1] > 1.5 * hiding[0][1]
    assert f["loads_in_flight_speedup"] > 1          # 32 loads in flight per thread make up for 16 warps
    rows = demo(results, "occupancy").figures["rows"]
    assert all(r["predicted"] > 0 for r in rows)


def test_partial_warp_predicted_blocks_of_100_waste_issue_slots(results):
    f = demo(results, "partial_warp").figures
    assert 1 < f["predicted_polish_ratio"] <= 128 / 100 + 0.05
    assert f["predicted_scale_ratio"] > 1


def test_predicted_times_follow_the_document(results):
    assert demo(results, "simd").figures["predicted_sorted_speedup"] > 1.3       # neighbours alike
    assert demo(results, "atomics").figures["predicted_aggregation_speedup"] > 1
    f = demo(results, "coalescing").figures
    assert f["predicted_stride_ratio"] > 2 and f["predicted_transpose_speedup"] > 1
    times = f["predicted_s"]
    assert times[32] > times[8] > times[1]
    assert demo(results, "reduction").figures["block_sum_time_s"] > 0


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in HEAVY else n for n in DEMOS])
def test_every_demo_agrees_with_the_document(results, name):
    r = demo(results, name)
    assert r.rows and r.ok, [(row.what, row.measured) for row in r.rows if not row.ok]


def test_demo_prints_figures_beside_the_document(results):
    out = io.StringIO()
    run_demo("partial_warp", Console(file=out, width=120))
    text = out.getvalue()
    assert "A block of 100 threads" in text and "32 32 32 4" in text and "simt-execution.md" in text


def test_cli_lists_and_rejects(capsys):
    assert main(["--list"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in DEMOS)
    assert main(["no-such-demo"]) == 2
    assert load("partial-warp").NAME == "partial_warp"


def test_cli_runs_one_demo_and_writes_charts(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    assert main(["divergence", "--charts", str(tmp_path)]) == 0
    png = tmp_path / "divergence.png"
    assert png.stat().st_size > 10_000
    assert np.frombuffer(png.read_bytes()[:8], np.uint8).tolist() == [137, 80, 78, 71, 13, 10, 26, 10]


def test_coalescing_sectors_per_request_grow_with_the_stride(results):
    f = demo(results, "coalescing").figures
    assert f["sectors_per_request"] == {1: 4, 2: 8, 4: 16, 8: 32, 32: 32}
    assert f["load_bytes"][1] == 8192 * 4 and f["load_bytes"][8] == 8 * f["load_bytes"][1]
    assert f["naive_store_sectors_per_request"] == 32
    assert f["tiled_load_sectors_per_request"] == 4 == f["tiled_store_sectors_per_request"]
    assert f["naive_store_bytes"] == 8 * f["tiled_store_bytes"]


def test_masks_full_mask_shuffle_after_return_is_reported_and_the_fix_is_clean(results):
    f = demo(results, "masks").figures
    assert f["shuffles_reported"] == 5
    assert f["error_kinds"] == ["shfl_absent_source", "sync_exited_lanes"]
    assert "exited 0xffffff00" in f["first_error"] and "masks.cu:5" in f["first_error"]
    assert f["masked_sum"] == f["expected"] and f["masked_errors"] == 0


def test_simd_blend_does_both_sides_simt_only_the_taken_ones(results):
    f = demo(results, "simd").figures
    assert f["simd_useful"] == 0.5
    assert 12 < f["random_loop_lanes"] < 20
    assert f["sorted_loop_lanes"] > 31 and f["sorted_mixed_warps"] <= 1
    assert f["random_issued"] > 1.5 * f["sorted_issued"]


@pytest.mark.slow
def test_waves_too_few_threads_and_the_last_wave(results):
    f = demo(results, "waves").figures
    assert f["correct"]
    assert f["too_few_threads_ratio"] > 4
    times = [s["time_us"] for s in f["shapes"][:4]]            # one warp per SM ... 64 warps per SM
    assert all(b <= a * 1.01 for a, b in zip(times, times[1:])) and times[0] > 4 * times[3]
    assert f["shapes"][5]["theoretical"] == 50 and f["small_blocks_ratio"] > 1   # blocks of 32: 32 per SM
    assert f["wave"] == 132 * f["blocks_per_sm"]
    assert f["tail_ratio"] > 1.05                                 # one block past a wave: far over 0.1%
    assert f["two_waves_ratio"] > f["tail_ratio"]


@pytest.mark.slow
def test_profile_three_numbers_each_point_to_its_fix(results):
    r = demo(results, "profile")
    versions = {v["label"]: v for v in r.figures["versions"]}
    slow, fixed = versions["slow"], versions["fixed: all three"]
    assert all(v["correct"] for v in versions.values())
    assert slow["lanes"] < 24 and slow["sectors"] == 32 and slow["occupancy"] < 10 <= slow["theoretical"]
    assert fixed["lanes"] > 31 and fixed["sectors"] == 4 and fixed["occupancy"] > 50   # the H200: 74%
    bucketed, soa, threads = (versions[k] for k in ("fix 1 alone: bucketed", "fix 2 alone: structure of arrays",
                                                    "fix 3 alone: a thread per item"))
    assert bucketed["lanes"] > 31 and bucketed["sectors"] == 32 and bucketed["occupancy"] < 10
    assert soa["lanes"] < 24 and soa["sectors"] == 4 and soa["occupancy"] < 10
    assert threads["lanes"] < 24 and threads["sectors"] == 32 and threads["occupancy"] > 50
    assert r.figures["predicted_speedup"] > 1


@pytest.mark.slow
def test_cooperative_wins_on_long_rows_not_on_very_short_ones(results):
    from warpsim.demo.cooperative import LENGTHS, LONG, NOT_RUN
    f = demo(results, "cooperative").figures
    table = f["table"]
    assert not set(NOT_RUN) & set(table)                              # left out by default, said so
    assert all(m["correct"] and m["written"] for m in table.values())
    for op in ("softmax", "layernorm"):
        for cols in LONG:
            assert f["speedup"][op, cols, "warp"] > 1
        short, long_ = LENGTHS[0], LONG[-1]
        assert f["speedup"][op, short, "warp"] < f["speedup"][op, long_, "warp"] / 4
        warp, thread = table[op, short, "warp"], table[op, short, "thread"]
        assert warp["lanes"] < 0.75 * 32 and thread["lanes"] == 32       # lanes past 8 columns idle
        assert warp["issued_per_row"] > 5 * thread["issued_per_row"]
        assert table[op, long_, "warp"]["shuffles_per_row"] == 10 and thread["shuffles_per_row"] == 0
    assert table["softmax", LONG[-1], "thread"]["sectors"] == 32 == 8 * table["softmax", LONG[-1], "warp"]["sectors"]
    if not f["triton_skipped"]:
        for op in ("softmax", "layernorm"):
            assert table[op, LONG[-1], "triton"]["shuffles_per_row"] > 0
            assert f["speedup"][op, LONG[-1], "triton"] > 1


@pytest.mark.slow
def test_cooperative_runs_without_triton_and_says_why(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "triton", None)             # `import triton` fails as if not installed
    out = io.StringIO()
    r = run_demo("cooperative", Console(file=out, width=160))
    assert r.ok and "not installed" in r.figures["triton_skipped"]
    assert "Triton's row is skipped: triton is not installed" in out.getvalue()
    assert not any(way == "triton" for _, _, way in r.figures["table"])


def test_cli_html_has_each_demo_its_figures_and_the_sass(tmp_path, capsys):
    path = tmp_path / "demo.html"
    assert main(["divergence", "partial_warp", "--html", str(path)]) == 0
    html = path.read_text(encoding="utf-8")
    assert 'id="demo-divergence"' in html and 'id="demo-partial_warp"' in html
    assert "Source, PTX and SASS: <code>branch_on_lane</code>" in html
    assert "BSSY" in html and "FFMA" in html          # the SASS ptxas made for heavy()'s loop
    assert "predicted on H200" in html
