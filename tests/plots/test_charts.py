"""Every chart kind is drawn from real result files, and what it draws is right: budget bars
add up to wall time, bucket colours agree across kinds, runs that are not ok stay visible."""
import copy
import json
import subprocess
import xml.etree.ElementTree as ET

import matplotlib.image
import pytest
from phasebench_plots import breakdown, budget, style, sweep, timeline
from phasebench_plots.loader import load_inputs
from phasebench_plots.runs import ResultFile
from support import svg_bucket_fills

KIND_PATTERNS = {
    "budget": "sweep-budget-*",
    "breakdown": "sweep-breakdown-*",
    "sweep": "sweep-sweep-*",
    "timeline": "sweep-timeline-*",
    "ab": "gate-ab-*",
    "cycles": "cycles-cycles*",
}


def assert_chart_files(folder, pattern):
    svgs = sorted(folder.glob(pattern + ".svg"))
    pngs = sorted(folder.glob(pattern + ".png"))
    assert svgs and len(svgs) == len(pngs), f"no SVG/PNG pair matching {pattern} in {folder}"
    for svg in svgs:
        root = ET.parse(svg).getroot()  # raises on invalid XML
        assert root.tag.endswith("svg") and svg.stat().st_size > 1000
    for png in pngs:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        pixels = matplotlib.image.imread(png)
        assert pixels.shape[0] > 200 and pixels.shape[1] > 400
        assert pixels[..., :3].std() > 0.05, f"{png} is blank"


@pytest.mark.parametrize("kind", sorted(KIND_PATTERNS))
def test_every_kind_is_written_as_svg_and_png(all_charts, kind):
    assert_chart_files(all_charts, KIND_PATTERNS[kind])


def test_phasebench_chart_hands_over_to_the_module(binary, sweep_file, tmp_path):
    """The C++ entry point finds a python3 with matplotlib and the module, and execs it.
    The input's name has dots in it, which must survive into the chart's name."""
    dotted = tmp_path / "sweep.v2.json"
    dotted.write_bytes(sweep_file.read_bytes())
    out = tmp_path / "out"
    proc = subprocess.run([binary, "chart", dotted, "--kind", "budget", "--stage", "decode",
                           "--out", out], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert_chart_files(out, "sweep.v2-budget-decode")
    assert sorted(p.name for p in out.iterdir()) == ["sweep.v2-budget-decode.png", "sweep.v2-budget-decode.svg"]


@pytest.mark.parametrize("stage", ["prefill", "decode"])
def test_budget_segments_sum_to_wall_time(sweep_file, stage):
    result = load_inputs([sweep_file]).results[0]
    bars = budget.compute_bars(result, stage)
    assert len(bars) == len(result.runs)
    for bar in bars:
        assert bar.wall_ms > 0
        assert sum(bar.segments.values()) == pytest.approx(bar.wall_ms, rel=1e-9, abs=1e-9)
        assert all(v >= 0 for v in bar.segments.values())
        sample = bar.run.samples[bar.sample_index][stage]
        assert bar.wall_ms == sample["wall_ms"]
        if sample["gpu_busy_ms"] is not None:
            assert bar.segments["gap"] == pytest.approx(sample["wall_ms"] - sample["gpu_busy_ms"])
        if len(bar.run.samples) % 2 == 1:  # odd n: the drawn repetition is the median itself
            assert bar.wall_ms == pytest.approx(bar.run.stat(f"{stage}.wall_ms")["median"])


def test_budget_of_an_unprofiled_run_is_one_marked_segment(sweep_file):
    result = load_inputs([sweep_file]).results[0]
    off = [b for b in budget.compute_bars(result, "prefill") if b.run.config["profile"] == "off"]
    assert off and all(list(b.segments) == ["unprofiled"] and "profile off" in b.note for b in off)


def test_bucket_colour_is_the_same_in_every_chart(all_charts):
    seen = {}  # bucket -> {colour: [files]}
    for svg in all_charts.glob("*.svg"):
        for bucket, colours in svg_bucket_fills(svg).items():
            for c in colours:
                seen.setdefault(bucket, {}).setdefault(c, []).append(svg.name)
    assert {"attention", "dense_ffn", "tail"} <= set(seen)
    kinds_per_bucket = {}
    for bucket, colours in seen.items():
        assert list(colours) == [style.BUCKET_COLOURS[bucket]], f"{bucket} drawn in {colours}"
        files = [f for fs in colours.values() for f in fs]
        kinds_per_bucket[bucket] = {k for k, p in KIND_PATTERNS.items() if any(_match(f, p) for f in files)}
    assert kinds_per_bucket["attention"] >= {"budget", "breakdown", "timeline", "ab"}


def _match(name, pattern):
    return name.startswith(pattern.rstrip("*"))


def test_runs_that_are_not_ok_stay_in_the_charts(sweep_data, tmp_path):
    data = copy.deepcopy(sweep_data)
    failed, incorrect = data["runs"][1], data["runs"][2]
    failed.update(status="failed", error="VK_ERROR_DEVICE_LOST in vkQueueSubmit", samples=[], summary={})
    incorrect.update(status="incorrect", incorrect_reason="top-1 token differs at position 3")
    result = ResultFile(tmp_path / "bad.json", data)
    bars = budget.compute_bars(result, "prefill")
    assert len(bars) == len(data["runs"]) and bars[1].segments == {}
    texts = " ".join(t.get_text() for t in budget.draw(result, "prefill").axes[0].texts)
    assert "FAILED" in texts and "INCORRECT" in texts and "VK_ERROR_DEVICE_LOST" in texts
    points = [p for s in sweep.compute_series(result, "decode.tok_s", "prompt_tokens") for p in s.points]
    assert len(points) == len(data["runs"]) and any(p.median is None and p.run.status == "failed" for p in points)
    fig = sweep.draw(result, ["decode.tok_s"], "prompt_tokens")
    assert "FAILED" in " ".join(t.get_text() for t in fig.axes[0].texts)
    assert "FAILED" in breakdown.draw(result.runs[1], "prefill")._suptitle.get_text()


def test_sweep_error_bars_are_a_ci_only_with_enough_samples(sweep_file):
    result = load_inputs([sweep_file]).results[0]
    for s in sweep.compute_series(result, "decode.tok_s", "prompt_tokens"):
        for p in s.points:
            assert p.spread == ("ci" if p.n >= 6 else "iqr")
            assert p.low <= p.median <= p.high


def test_breakdown_shares_are_of_the_median_wall(sweep_file):
    run = load_inputs([sweep_file]).results[0].runs[0]
    rows = breakdown.compute_rows(run, "decode")
    wall = run.stat("decode.wall_ms")["median"]
    assert rows == sorted(rows, key=lambda r: -r.median_ms)
    assert {r.name for r in rows} >= {"gap", "lm_head"}
    for r in rows:
        assert r.share == pytest.approx(r.median_ms / wall)


def test_timeline_draws_every_span(sweep_data, sweep_file):
    run = load_inputs([sweep_file]).results[0].runs[0]
    lanes = timeline.lanes(run, "prefill")
    t = sweep_data["runs"][0]["timeline"]["prefill"]
    assert sum(len(v) for v in lanes["GPU phases"].values()) == len(t["gpu_spans"])
    assert len(lanes["GPU busy / idle"]["gpu_busy"]) == len(t["gpu_segments"])
    host = sum(len(lanes[f"CPU {k}"].get(k, [])) for k in ("record", "submit", "wait"))
    assert host == len(t["host"])


def test_sweep_needs_an_axis_that_varies(binary, sweep_data, tmp_path):
    one = dict(sweep_data, runs=sweep_data["runs"][:1])
    path = tmp_path / "one.json"
    path.write_text(json.dumps(one))
    proc = subprocess.run([binary, "chart", path, "--kind", "sweep", "--out", tmp_path / "out"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2 and "--axis" in proc.stderr
    assert not (tmp_path / "out").exists()
