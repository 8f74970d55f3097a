"""Helpers of the plots tests: joining run files, gate and cycle fixtures, running the module,
and reading back what the charts drew."""
import copy
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

PLOTS = Path(__file__).resolve().parents[2] / "plots"


def join_runs(files: list) -> dict:
    """One result file holding the runs of several, as a sweep writes them (same layout)."""
    out = copy.deepcopy(files[0])
    out["runs"] = [run for f in files for run in f["runs"]]
    return out


def run_plots(*args):
    """`python3 -m phasebench_plots ARGS` with this interpreter (the one CTest discovered);
    -B keeps __pycache__ out of the source tree."""
    return subprocess.run([sys.executable, "-B", "-m", "phasebench_plots", *map(str, args)],
                          capture_output=True, text=True, cwd=PLOTS, timeout=600)


def gate_json(sweep: dict) -> dict:
    """A `phasebench.gate/1` verdict of the sweep against a candidate a few percent off, one
    run per verdict kind, with run metrics and phase metrics, one of them without a CI."""
    verdicts = ["win", "regression", "flat", "inconclusive"]
    changes = [0.06, -0.04, 0.003, 0.02]
    runs = []
    for i, run in enumerate(sweep["runs"]):
        change = changes[i % len(changes)]
        metrics = {}
        for name, stat in run["summary"].items():
            if not (name.endswith("tok_s") or name.endswith("gap_ms") or ".phase." in name or name == "ttft_ms"):
                continue
            higher = name.endswith("tok_s")
            base = stat["median"]
            cand = base * (1 + change) if higher else base / (1 + change)
            wide = 0.05 if verdicts[i % 4] == "inconclusive" else 0.01
            metrics[name] = {
                "base_median": base, "cand_median": cand, "ratio": cand / base if base else None,
                "improvement": change, "ci_low": change - wide, "ci_high": change + wide,
                "p_value": 0.01, "verdict": verdicts[i % 4], "higher_is_better": higher,
                "n_base": stat["n"], "n_cand": stat["n"]}
        if metrics:
            first = sorted(metrics)[0]
            metrics[first].update({"improvement": None, "ci_low": None, "ci_high": None,
                                   "p_value": None, "verdict": "inconclusive"})
        runs.append({"key": f"run{i}", "config": run["config"], "verdict": verdicts[i % 4],
                     "reason": f"decode.tok_s {change:+.1%}", "headline": "decode.tok_s",
                     "metrics": metrics})
    return {"schema": "phasebench.gate/1",
            "base": {"file": "base.json", "device": sweep["device"]["name"], "git_commit": "a" * 40},
            "candidate": {"file": "cand.json", "device": sweep["device"]["name"], "git_commit": "b" * 40},
            "threshold": 0.01, "alpha": 0.05, "runs": runs}


def cycles_json() -> list:
    """`phasebench cycles --format json`: kept wins, a flat, a regression and an inconclusive."""
    rows = [
        (1, "persistent descriptors", 20.0, 21.0, 0.05, 0.03, 0.07, "win", True),
        (2, "per-prompt submit", 21.0, 21.1, 0.004, -0.003, 0.011, "flat", False),
        (3, "wave32 DMMV", 21.0, 20.0, -0.048, -0.06, -0.035, "regression", False),
        (4, "ledger barriers", 21.0, 22.3, 0.062, 0.045, 0.08, "win", True),
        (5, "NUM_COLS=8 spec", 22.3, 22.6, 0.013, -0.02, 0.04, "inconclusive", False),
    ]
    best = None
    out = []
    for cycle, change, base, cand, delta, lo, hi, verdict, kept in rows:
        best = max(best or base, cand) if kept else (best or base)
        out.append({"cycle": cycle, "change": change, "metric": "decode.tok_s", "base_value": base,
                    "cand_value": cand, "delta": delta, "ci_low": lo, "ci_high": hi,
                    "verdict": verdict, "kept": kept, "best_so_far": best})
    return out


def svg_bucket_fills(svg: Path) -> dict:
    """{bucket: {fill colours}} of every element the charts tagged `bucket-<name>-<n>`."""
    fills = {}
    for el in ET.parse(svg).getroot().iter():
        m = re.fullmatch(r"bucket-([a-z_]+)-\d+", el.get("id", ""))
        if not m:
            continue
        for child in el.iter():
            fill = re.search(r"fill:\s*(#[0-9a-fA-F]{6})", child.get("style", ""))
            if fill:
                fills.setdefault(m.group(1), set()).add(fill.group(1).lower())
    return fills
