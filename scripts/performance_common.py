"""What scripts/performance_report.py and its decode sections (performance_decode.py) share:
reading result files and writing numbers the way the record writes them."""

import json
import os
import statistics


def load(path):
    with open(path) as f:
        return json.load(f)


def spread_of(values):
    return min(values), statistics.median(values), max(values)


def pct(x):
    return f"{100 * x:.3g}%" if x < 0.1 else f"{100 * x:.1f}%"


def num(x):
    """Three significant digits, whole numbers from 100 up: CPU-device and GPU figures alike."""
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.3g}"


def run_of(r, ident):
    """The run of result file `ident`, or None and why not (for the record's "missing" rows)."""
    path = os.path.join(r.results, ident + ".json")
    if not os.path.exists(path):
        return None, "the run wrote no result file"
    runs = load(path).get("runs", [])
    if not runs:
        return None, "the result file holds no run"
    if runs[0].get("status") != "ok":
        detail = runs[0].get("error") or ""
        return None, f"the run's status is {runs[0].get('status')}" + (f": {detail}" if detail else "")
    return runs[0], ""
