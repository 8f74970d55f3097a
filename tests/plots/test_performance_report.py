"""scripts/performance_report.py's per-dispatch cost of decode: from a real profiled run and its
unprofiled twin, one row per phase whose dispatches and GPU time add up to the run's own totals,
the cost of the timestamps stated, and a missing profile reported rather than fatal. What the
barriers cost, from the same decode run without them. And its read floor: from a real
phasebench-kernels run, the fastest grid of the sweep, and each DMMV's time against it; and each
fused kernel of decode's placements against the plain projection. And each prefill's host
recording set against the GPU's busy time, per prompt and in pieces; and a mixture of experts'
decode's roofline share and its row in the table of what stands between decode and the roofline."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REPORT = REPO / "scripts" / "performance_report.py"
DECODE = ["--model", "tiny-dense", "--weights", "q4_k", "--prompt", "4", "--decode", "4",
          "--prefill", "batched", "--submit", "per-token-ahead",
          "--dmmv-activations", "int8", "--repetitions", "3", "--no-bandwidth"]


def write_report(folder: Path, commands: list) -> str:
    """The record of `folder`: its kernels.json, else one with no benchmarks (the decode sections
    need none), and commands.tsv naming the given result files."""
    if not (folder / "kernels.json").exists():
        (folder / "kernels.json").write_text(json.dumps({"context": {"device_type": "cpu"}, "benchmarks": []}))
    (folder / "commands.tsv").write_text("".join(f"{ident}\t0\tphasebench run ...\n" for ident in commands))
    out = folder / "PERFORMANCE.md"
    proc = subprocess.run([sys.executable, "-B", str(REPORT), "--results", str(folder), "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return out.read_text()


def cost_table(text: str) -> dict:
    """phase -> (dispatches per token, GPU µs per token) from the record's cost table."""
    section = text.split("## Decode: the measured cost of each kind of dispatch", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 6 and re.fullmatch(r"[0-9.]+", cells[1]):
            rows[cells[0]] = (float(cells[1]), float(cells[2]))
    return rows


@pytest.fixture(scope="module")
def results(binary, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("performance")
    fused = ["--norm-placement", "producer", "--glu-placement", "producer"]
    # As scripts/performance runs them: the figures with timestamps at each submit's ends only.
    ledger = ["--barriers", "ledger"]
    for ident, extra in (("decode-int8-tiny-dense", [*ledger, "--profile", "submit"]),
                         ("decode-int8-fused-tiny-dense", [*ledger, "--profile", "submit", *fused]),
                         ("profile-decode-tiny-dense", [*ledger, "--profile", "dispatch", *fused]),
                         ("unsafe-decode-tiny-dense", ["--barriers", "none", "--profile", "submit", *fused])):
        cmd = [str(binary), "run", *DECODE, *extra, "--out", str(folder / f"{ident}.json")]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}"
    return folder


def test_each_phase_has_a_row_and_the_rows_add_up_to_the_run(results):
    text = write_report(results, ["decode-int8-tiny-dense", "decode-int8-fused-tiny-dense",
                                  "profile-decode-tiny-dense"])
    rows = cost_table(text)
    run = json.loads((results / "profile-decode-tiny-dense.json").read_text())["runs"][0]
    tokens = run["samples"][-1]["decode"]["tokens"]
    phases = {name.removeprefix("decode.phase.").removesuffix("_ms")
              for name in run["summary"] if name.startswith("decode.phase.")}
    assert set(rows) == phases | {"all"}
    per_token = run["derived"]["counters_per_token"]["decode"]["dispatches"]
    assert sum(d for phase, (d, _) in rows.items() if phase != "all") == pytest.approx(per_token, abs=0.02)
    assert rows["all"][0] == pytest.approx(per_token, abs=0.01)
    busy_us = run["summary"]["decode.gpu_busy_ms"]["median"] * 1e3 / tokens
    assert rows["all"][1] == pytest.approx(busy_us, abs=0.06)
    assert "int8 DMMV inputs" in text
    # The profile ran with the norms and gated units in the producers: it is named so, and its
    # timestamps' cost is set against the unprofiled run of the same kind.
    assert "**tiny-dense q4_k, int8 DMMV inputs, norms and gated units in the producers**" in text
    plain = json.loads((results / "decode-int8-fused-tiny-dense.json").read_text())["runs"][0]
    plain_ms = plain["summary"]["decode.gpu_busy_ms"]["median"] / plain["samples"][-1]["decode"]["tokens"]
    cost = re.search(r"What the timestamps cost: GPU busy [0-9.]+ ms per token with one between every two "
                     r"dispatches, against ([0-9.]+) ms with one at each submit's start and end \([+-][0-9.]+%\)", text)
    assert cost and float(cost.group(1)) == pytest.approx(plain_ms, abs=5e-4)
    figures = [line for line in text.splitlines() if line.startswith("| decode tiny-dense q4_k")]
    assert [f.split("|")[1].strip() for f in figures] == [
        "decode tiny-dense q4_k, int8 DMMV inputs: tokens/s",
        "decode tiny-dense q4_k, int8 DMMV inputs, norms and gated units in the producers: tokens/s"]


def test_a_profile_that_did_not_run_is_reported_missing(results, tmp_path):
    (tmp_path / "decode-int8-tiny-dense.json").write_text((results / "decode-int8-tiny-dense.json").read_text())
    text = write_report(tmp_path, ["decode-int8-tiny-dense", "profile-decode-tiny-dense"])
    assert "**tiny-dense**: missing, the run wrote no result file" in text
    assert cost_table(text) == {}


def barrier_rows(text: str) -> list:
    """The cells of each row of the record's barrier-cost table."""
    section = text.split("## Decode: what the barriers cost", 1)[1].split("\n## ", 1)[0]
    return [[c.strip() for c in line.strip("|").split("|")] for line in section.splitlines()
            if line.startswith("| tiny-dense")]


def per_token_busy_ms(path: Path) -> float:
    run = json.loads(path.read_text())["runs"][0]
    return run["summary"]["decode.gpu_busy_ms"]["median"] / run["samples"][-1]["decode"]["tokens"]


def test_the_barriers_cost_is_the_fused_decode_against_the_same_decode_without_them(results):
    text = write_report(results, ["decode-int8-tiny-dense", "decode-int8-fused-tiny-dense",
                                  "unsafe-decode-tiny-dense"])
    rows = barrier_rows(text)
    assert len(rows) == 1, text
    name, barriers, with_ms, without_ms, waits, per_barrier, streamed = rows[0]
    assert name.startswith("tiny-dense q4_k, int8 DMMV inputs, norms and gated units in the producers")
    safe = json.loads((results / "decode-int8-fused-tiny-dense.json").read_text())["runs"][0]
    per_token_barriers = safe["derived"]["counters_per_token"]["decode"]["barrier_commands"]
    assert per_token_barriers > 0
    assert float(barriers) == pytest.approx(per_token_barriers, abs=0.06)
    with_exact = per_token_busy_ms(results / "decode-int8-fused-tiny-dense.json")
    without_exact = per_token_busy_ms(results / "unsafe-decode-tiny-dense.json")
    assert float(with_ms) == pytest.approx(with_exact, abs=5e-4)
    assert float(without_ms) == pytest.approx(without_exact, abs=5e-4)
    assert float(waits) == pytest.approx(with_exact - without_exact, abs=5e-4)
    assert float(per_barrier) == pytest.approx((with_exact - without_exact) * 1e3 / per_token_barriers, abs=5e-3)
    assert streamed.endswith("GB/s")  # --no-bandwidth: no copy bandwidth to share against
    unsafe = json.loads((results / "unsafe-decode-tiny-dense.json").read_text())["runs"][0]
    assert unsafe["unsafe"] and unsafe["config"]["barriers"] == "none"
    assert "An empty dispatch behind a barrier" not in text  # no dispatch_floor benchmark ran


def test_the_barriers_cost_sets_an_empty_dispatch_beside_it(results, kernels_binary, tmp_path):
    runs = ["decode-int8-fused-tiny-dense", "unsafe-decode-tiny-dense"]
    for ident in runs:
        (tmp_path / f"{ident}.json").write_text((results / f"{ident}.json").read_text())
    text, medians = kernels_report(kernels_binary, tmp_path, r"dispatch_floor/fill_zero:64")
    text = write_report(tmp_path, runs)
    floor = medians["dispatch_floor/fill_zero:64"]
    shown = f"{floor:.0f}" if floor >= 100 else f"{floor:.3g}"
    assert f"An empty dispatch behind a barrier takes {shown} µs here (" in text, text
    assert len(barrier_rows(text)) == 1


def test_a_decode_without_barriers_and_no_twin_is_reported_missing(results, tmp_path):
    (tmp_path / "unsafe-decode-tiny-dense.json").write_text((results / "unsafe-decode-tiny-dense.json").read_text())
    text = write_report(tmp_path, ["unsafe-decode-tiny-dense"])
    rows = barrier_rows(text)
    assert len(rows) == 1 and "missing: its run with barriers: the run wrote no result file" in rows[0][1], rows
    assert "No decode without barriers ran." in write_report(results, ["decode-int8-fused-tiny-dense"])


def figure_row(text: str, start: str) -> list:
    """The cells of the figure row whose first cell starts with `start`: figure, device, driver,
    command, median, spread, n, target, verdict."""
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines()
            if line.startswith("| " + start)]
    assert len(rows) == 1, f"{len(rows)} rows start with {start!r}"
    return rows[0]


def kernels_report(kernels_binary, folder: Path, pattern: str):
    """The record of a real phasebench-kernels run of the benchmarks matching `pattern` (three
    repetitions), and their medians: benchmark name -> µs."""
    cmd = [str(kernels_binary), f"--benchmark_filter=^({pattern})/", "--benchmark_repetitions=3",
           "--benchmark_min_time=0.01", f"--benchmark_out={folder / 'kernels.json'}", "--benchmark_out_format=json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}"
    medians = {}
    for b in json.loads((folder / "kernels.json").read_text())["benchmarks"]:
        if b.get("aggregate_name") == "median":
            medians[b["run_name"].removesuffix("/manual_time")] = b["real_time"]
    return write_report(folder, []), medians


def test_the_read_floor_is_the_fastest_grid_and_each_dmmv_is_set_against_it(kernels_binary, tmp_path):
    grids = r"read_floor/q4_k/ffn_up:[0-9x]+/threads:(32|256)/loads:(1|4)"
    dmmv = r"dmmv_intdot/q4_k/dmmv/(ffn_down|ffn_up):[0-9x]+/num_cols:1"
    text, medians = kernels_report(kernels_binary, tmp_path, f"{grids}|{dmmv}")
    floors = {n: t for n, t in medians.items() if n.startswith("read_floor/")}
    assert len(floors) == 4
    fastest = min(floors, key=floors.get)
    row = figure_row(text, "read floor: one dispatch that only reads the q4_k FFN matrix's")
    threads, loads = re.search(r"threads:([0-9]+)/loads:([0-9]+)", fastest).groups()
    assert f"fastest of 4 grids: {threads} threads x {loads} loads" in row[0]
    shown = f"{floors[fastest]:.0f}" if floors[fastest] >= 100 else f"{floors[fastest]:.3g}"
    assert re.search(r", ([0-9.]+) µs\)", row[4]).group(1) == shown
    dmmvs = {n: t for n, t in medians.items() if n.startswith("dmmv_intdot/")}
    assert len(dmmvs) == 2, "the integer-dot kernels are compiled in (scripts/setup builds glslang with them)"
    for name, time in dmmvs.items():
        role_shape = name.split("/")[3].replace(":", " ")  # "ffn_up 512x256"
        row = figure_row(text, f"DMMV q4_k int8 inputs {role_shape}, NUM_COLS=1: time / the read floor")
        assert row[4] == f"{time / floors[fastest]:.3f}×"


def test_the_record_states_the_kernel_runs_steadiness(kernels_binary, tmp_path):
    text, medians = kernels_report(kernels_binary, tmp_path, r"rmsnorm/n:[0-9]+/cols:1|add/n:[0-9]+/cols:1")
    assert len(medians) == 2
    context = json.loads((tmp_path / "kernels.json").read_text())["context"]
    row = [line for line in text.splitlines() if line.startswith("| steadiness of the kernel run |")]
    assert len(row) == 1, text
    assert f"{context['copy_bandwidth_gbps']} GB/s at the start" in row[0]
    assert f"{context['copy_bandwidth_end_gbps']} GB/s at the end" in row[0]
    assert "over 3 repetitions" in row[0]
    assert f"{context['repetition_spread_over_limit']} benchmark(s) over 5.00%" in row[0]


def bandwidth_row(folder: Path, kernel_gbps: tuple, run_gbps: list) -> str:
    """The record's row on the copy bandwidth across its runs, from a kernel run that measured
    `kernel_gbps` (start, end) and runs probe-0, probe-1, ... that measured `run_gbps`."""
    context = {"device_type": "cpu", "copy_bandwidth_gbps": f"{kernel_gbps[0]:.1f}",
               "copy_bandwidth_end_gbps": f"{kernel_gbps[1]:.1f}"}
    (folder / "kernels.json").write_text(json.dumps({"context": context, "benchmarks": []}))
    for i, gbps in enumerate(run_gbps):
        (folder / f"probe-{i}.json").write_text(json.dumps({"device": {"copy_bandwidth_gbps": gbps}, "runs": []}))
    text = write_report(folder, [f"probe-{i}" for i in range(len(run_gbps))])
    rows = [line for line in text.splitlines() if line.startswith("| copy bandwidth across the record's runs |")]
    assert len(rows) == 1, text
    return rows[0]


def test_the_record_states_the_copy_bandwidth_across_its_runs(tmp_path):
    row = bandwidth_row(tmp_path, (2988.0, 2990.0), [2985.0, 2993.0])
    assert "measured 4 times" in row
    assert "2985 – 2993 GB/s" in row
    assert "more than" not in row


def test_a_device_that_changed_during_the_record_is_flagged(tmp_path):
    row = bandwidth_row(tmp_path, (2988.0, 2990.0), [2985.0, 2500.0, 2991.0])
    assert "measured 5 times" in row
    assert "2500 – 2991 GB/s" in row
    assert "the device changed during the record (lowest at `probe-1`, highest at `probe-2`)" in row


def test_a_runs_end_counts_where_its_result_file_holds_it(tmp_path):
    (tmp_path / "kernels.json").write_text(json.dumps({"context": {
        "device_type": "cpu", "copy_bandwidth_gbps": "2988.0", "copy_bandwidth_end_gbps": "2990.0"}, "benchmarks": []}))
    (tmp_path / "probe-0.json").write_text(json.dumps(
        {"device": {"copy_bandwidth_gbps": 2985.0, "copy_bandwidth_end_gbps": 2600.0}, "runs": []}))
    text = write_report(tmp_path, ["probe-0"])
    row = [line for line in text.splitlines() if line.startswith("| copy bandwidth across the record's runs |")][0]
    assert "measured 4 times" in row
    assert "lowest at `probe-0, end`" in row


def test_each_fused_kernel_is_set_against_the_plain_projection_on_its_weights(kernels_binary, tmp_path):
    wanted = r"dmmv_intdot/q4_k/(norm|rms|glu|dmmv)/(attn|ffn_down|ffn_gate_up):[0-9x]+/num_cols:1"
    text, by_name = kernels_report(kernels_binary, tmp_path, wanted)
    medians = {}  # (kind, role) -> median µs
    for name, time in by_name.items():
        _, _, kind, shape, _ = name.split("/", 4)
        medians[(kind, shape.split(":")[0])] = time
    pairs = [("norm", "attn"), ("norm", "ffn_down"), ("rms", "attn"), ("glu", "ffn_gate_up")]
    assert all(p in medians for p in pairs), sorted(medians)
    for kind, role in pairs:
        rows = [line for line in text.splitlines()
                if line.startswith(f"| DMMV q4_k int8 inputs {role} ") and "/ the plain projection" in line]
        what = {"norm": "next RMSNorm", "rms": "deferred norm's RMS (its reader)", "glu": "applying the GLU"}[kind]
        row = [r for r in rows if what in r]
        assert len(row) == 1, rows
        cells = [c.strip() for c in row[0].strip("|").split("|")]
        assert cells[4] == f"{medians[(kind, role)] / medians[('dmmv', role)]:.3f}×"


def figure_row(text: str, start: str) -> list:
    """The cells of the figures table's row whose figure starts with `start`."""
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in text.splitlines()
            if line.startswith("| " + start)]
    assert len(rows) == 1, f"{start}: {len(rows)} rows in\n{text}"
    return rows[0]


def test_the_mixture_of_experts_rows_are_the_runs_tokens_per_second(binary, tmp_path):
    common = ["--weights", "q4_k", "--repetitions", "3", "--no-bandwidth"]
    decode = ["--prompt", "4", "--decode", "4", "--prefill", "batched", "--submit", "per-token-ahead",
              "--barriers", "ledger", "--profile", "submit"]
    fused = [*decode, "--dmmv-activations", "int8", "--norm-placement", "producer", "--glu-placement", "producer"]
    runs = {"moe-prefill-tiny-moe": ("tiny-moe", ["--prompt", "8", "--decode", "0", "--prefill", "matmul",
                                                  "--chunk-cols", "8", "--submit", "per-prompt"]),
            "moe-decode-tiny-moe": ("tiny-moe", decode),
            "moe-decode-int8-fused-tiny-moe": ("tiny-moe", fused),
            "hybrid-prefill-chunks-int8-tiny-hybrid": ("tiny-hybrid", ["--prompt", "8", "--decode", "0", "--prefill",
                                                                       "matmul", "--chunk-cols", "4", "--submit",
                                                                       "per-prompt", "--dmmv-activations", "int8"]),
            "overlapped-hybrid-prefill-chunks-int8-tiny-hybrid": ("tiny-hybrid", ["--prompt", "8", "--decode", "0",
                                                                                  "--prefill", "matmul", "--chunk-cols",
                                                                                  "4", "--submit", "chunk:16",
                                                                                  "--dmmv-activations", "int8"]),
            "hybrid-decode-int8-fused-tiny-hybrid": ("tiny-hybrid", fused)}
    for ident, (model, extra) in runs.items():
        cmd = [str(binary), "run", "--model", model, *common, *extra, "--out", str(tmp_path / f"{ident}.json")]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}"
    # A MoE decode that never ran (its model did not fit, say) is a missing row, not a failure.
    text = write_report(tmp_path, [*runs, "moe-decode-tiny-gemma"])
    for ident, row in (("moe-prefill-tiny-moe", "prefill tiny-moe q4_k (mixture of experts), 512"),
                       ("moe-decode-tiny-moe", "decode tiny-moe q4_k (mixture of experts), float"),
                       ("moe-decode-int8-fused-tiny-moe", "decode tiny-moe q4_k (mixture of experts), int8"),
                       ("hybrid-prefill-chunks-int8-tiny-hybrid", "prefill tiny-hybrid q4_k (mixture of experts), "
                                                                  "Qwen3.5's hybrid, 512 tokens through matmul in"),
                       ("overlapped-hybrid-prefill-chunks-int8-tiny-hybrid",
                        "prefill tiny-hybrid q4_k (mixture of experts), Qwen3.5's hybrid, the same prompt and chunks "
                        "as above, submitted every 512 dispatches"),
                       ("hybrid-decode-int8-fused-tiny-hybrid", "decode tiny-hybrid q4_k (mixture of experts), "
                                                                "Qwen3.5's hybrid")):
        phase = row.split()[0]
        cells = figure_row(text, row)
        result = json.loads((tmp_path / f"{ident}.json").read_text())["runs"][0]
        tok_s = result["summary"][f"{phase}.tok_s"]
        # In brackets: the same tokens over the GPU's busy time alone (the wall time adds the host's).
        busy = result["summary"][f"{phase}.gpu_busy_ms"]
        tokens = result["samples"][-1][phase]["tokens"]
        gpu = lambda ms: tokens / (ms * 1e-3)
        shown = lambda x: f"{x:.0f}" if x >= 100 else f"{x:.3g}"
        assert cells[4] == f"{shown(tok_s['median'])} (GPU {shown(gpu(busy['median']))})", cells
        assert cells[5] == (f"{shown(tok_s['min'])} – {shown(tok_s['max'])} "
                            f"(GPU {shown(gpu(busy['max']))} – {shown(gpu(busy['min']))})"), cells
        assert gpu(busy["median"]) >= tok_s["median"], "the GPU is busy for part of the wall time at most"
        assert cells[6] == "3" and ident in cells[3], cells
    cells = figure_row(text, "decode tiny-gemma q4_k (mixture of experts)")
    assert cells[4] == "missing" and "the run wrote no result file" in cells[5], cells


def test_prefill_in_chunks_is_its_own_figure_with_no_target(binary, tmp_path):
    common = ["--model", "tiny-dense", "--weights", "q4_k", "--prompt", "8", "--decode", "0", "--prefill", "matmul",
              "--submit", "per-prompt", "--repetitions", "2", "--no-bandwidth"]
    for ident, chunk in (("prefill-tiny-dense", "8"), ("prefill-chunks-tiny-dense", "4")):
        cmd = [str(binary), "run", *common, "--chunk-cols", chunk, "--out", str(tmp_path / f"{ident}.json")]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}"
    text = write_report(tmp_path, ["prefill-tiny-dense", "prefill-chunks-tiny-dense"])
    whole = figure_row(text, "prefill tiny-dense q4_k, 512 tokens through matmul (one chunk)")
    chunked = figure_row(text, "prefill tiny-dense q4_k, 512 tokens through matmul (chunks of 32 tokens, the default)")
    # The one chunk is judged against the target (on a GPU); the chunks are shown beside it, unjudged.
    assert whole[7].startswith("≥ 100 with coopmat"), whole
    assert chunked[7] == "(the default chunk, for comparison)", chunked
    assert chunked[8] not in ("meets", "below target"), chunked
    assert "prefill-chunks-tiny-dense" in chunked[3] and float(chunked[4]) > 0, chunked


def host_rows(text: str) -> dict:
    """run -> its cells, from the record's prefill host section."""
    section = text.split("## Prefill: the host's recording against the GPU's work (per prompt)", 1)[1]
    section = section.split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        match = re.fullmatch(r"\[`([^`]+)`\]\(#commands\)", cells[0])
        if match:
            rows[match.group(1)] = cells[1:]
    return rows


def test_each_prefill_states_its_host_recording_against_the_gpus_work(binary, tmp_path):
    common = ["--weights", "q4_k", "--decode", "0", "--prefill", "matmul", "--repetitions", "3", "--no-bandwidth"]
    runs = {"prefill-tiny-dense": ["--model", "tiny-dense", "--prompt", "8", "--chunk-cols", "8",
                                   "--submit", "per-prompt"],
            "overlapped-hybrid-prefill-chunks-int8-tiny-hybrid": ["--model", "tiny-hybrid", "--prompt", "8",
                                                                  "--chunk-cols", "4", "--submit", "chunk:16",
                                                                  "--dmmv-activations", "int8"],
            # Without timestamps a run has no GPU busy time: its row says so rather than failing.
            "prefill-chunks-tiny-dense": ["--model", "tiny-dense", "--prompt", "8", "--chunk-cols", "4",
                                          "--submit", "per-prompt", "--profile", "off"]}
    for ident, extra in runs.items():
        cmd = [str(binary), "run", *common, *extra, "--out", str(tmp_path / f"{ident}.json")]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}"
    # A prefill that never ran is a row that says so; a decode is no prefill and has none.
    text = write_report(tmp_path, [*runs, "moe-prefill-tiny-moe", "decode-tiny-dense"])
    rows = host_rows(text)
    assert set(rows) == {*runs, "moe-prefill-tiny-moe"}, rows
    assert rows["moe-prefill-tiny-moe"][0] == "missing: the run wrote no result file", rows
    for ident, submit in (("prefill-tiny-dense", "per-prompt"),
                          ("overlapped-hybrid-prefill-chunks-int8-tiny-hybrid", "chunk:16")):
        run = json.loads((tmp_path / f"{ident}.json").read_text())["runs"][0]
        per_token = run["derived"]["counters_per_token"]["prefill"]
        tokens = run["samples"][-1]["prefill"]["tokens"]
        median = lambda key: run["summary"][f"prefill.{key}_ms"]["median"]
        cells = rows[ident]
        assert cells[0] == submit, cells
        dispatches, submits = per_token["dispatches"] * tokens, per_token["submits"] * tokens
        assert int(cells[1]) == round(dispatches) and int(cells[2]) == round(submits), cells
        # One submit per prompt, or one per 16 dispatches begun.
        assert submits == (1 if submit == "per-prompt" else -(-dispatches // 16)), (submits, dispatches)
        assert [float(c) for c in cells[3:6]] == [round(median(k), 2) for k in ("record", "gpu_busy", "wall")], cells
        gap = median("gap")
        assert cells[6] == f"{gap:.2f} ({gap / median('wall'):.1%})", cells
    untimed = rows["prefill-chunks-tiny-dense"]
    assert untimed[4] == "—" and untimed[6] == "—" and float(untimed[3]) > 0 and float(untimed[5]) > 0, untimed
    # Nor can its TFLOP/s figure be computed: a missing row that says why, not a crash.
    cells = figure_row(text, "prefill tiny-dense q4_k, 512 tokens through matmul (chunks of 32 tokens, the default)")
    assert cells[4] == "missing" and "--profile off" in cells[5], cells


def test_a_mixture_of_experts_decode_states_its_roofline_share_and_what_stands_between(binary, tmp_path):
    # With the copy bandwidth measured (no --no-bandwidth), so the run has a roofline.
    ident = "moe-decode-int8-fused-tiny-moe"
    cmd = [str(binary), "run", "--model", "tiny-moe", "--weights", "q4_k", "--prompt", "4", "--decode", "4",
           "--prefill", "batched", "--submit", "per-token-ahead", "--barriers", "ledger", "--profile", "submit",
           "--dmmv-activations", "int8", "--norm-placement", "producer", "--glu-placement", "producer",
           "--repetitions", "3", "--out", str(tmp_path / f"{ident}.json")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}"
    text = write_report(tmp_path, [ident])
    run = json.loads((tmp_path / f"{ident}.json").read_text())["runs"][0]
    share, tok = run["derived"]["decode_roofline_share"], run["summary"]["decode.tok_s"]
    shown = lambda x: f"{100 * x:.3g}%" if x < 0.1 else f"{100 * x:.1f}%"
    cells = figure_row(text, "decode tiny-moe q4_k (mixture of experts), int8 DMMV inputs, the norms and the SwiGLU "
                             "in their producers (the experts' gate, up and SwiGLU in one dispatch): share of the")
    assert cells[4] == shown(share), cells
    scale = share / tok["median"]
    assert cells[5] == f"{shown(tok['min'] * scale)} – {shown(tok['max'] * scale)}", cells
    assert cells[7] == "" and cells[8] == "—", "no target: the issue's targets are for dense decode"
    # And a row of its own in the table of what stands between decode and the roofline.
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in text.splitlines()
            if line.startswith("| tiny-moe (mixture of experts) q4_k, int8 DMMV inputs, norms and gated units")]
    assert len(rows) == 1, text
    per_token = run["derived"]["counters_per_token"]["decode"]
    assert rows[0][1] == f"{run['model']['weight_bytes_per_token'] / 1e6:.1f} MB", rows
    assert rows[0][2] == f"{per_token['dispatches']:.1f}" and rows[0][3] == f"{per_token['barrier_commands']:.1f}", rows
