"""scripts/performance_report.py's per-dispatch cost of decode: from a real profiled run and its
unprofiled twin, one row per phase whose dispatches and GPU time add up to the run's own totals,
the cost of the timestamps stated, and a missing profile reported rather than fatal."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REPORT = REPO / "scripts" / "performance_report.py"
DECODE = ["--model", "tiny-dense", "--weights", "q4_k", "--prompt", "4", "--decode", "4",
          "--prefill", "batched", "--submit", "per-token-ahead", "--barriers", "ledger",
          "--dmmv-activations", "int8", "--repetitions", "3", "--no-bandwidth"]


def write_report(folder: Path, commands: list) -> str:
    """The record of `folder`: a kernels.json with no benchmarks (the decode sections need none)
    and commands.tsv naming the given result files."""
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
    for ident, extra in (("decode-int8-tiny-dense", []), ("profile-decode-tiny-dense", ["--profile", "dispatch"])):
        cmd = [str(binary), "run", *DECODE, *extra, "--out", str(folder / f"{ident}.json")]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}"
    return folder


def test_each_phase_has_a_row_and_the_rows_add_up_to_the_run(results):
    text = write_report(results, ["decode-int8-tiny-dense", "profile-decode-tiny-dense"])
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
    assert re.search(r"What the timestamps cost: GPU busy [0-9.]+ ms per token profiled against [0-9.]+ ms "
                     r"without \([+-][0-9.]+%\)", text)


def test_a_profile_that_did_not_run_is_reported_missing(results, tmp_path):
    (tmp_path / "decode-int8-tiny-dense.json").write_text((results / "decode-int8-tiny-dense.json").read_text())
    text = write_report(tmp_path, ["decode-int8-tiny-dense", "profile-decode-tiny-dense"])
    assert "**tiny-dense**: missing, the run wrote no result file" in text
    assert cost_table(text) == {}
