"""Which charts a set of inputs and options makes, and writing them.

Planning is separate from drawing so that every option is checked against every file before
the first chart is written: a bad --run or --axis leaves the output folder untouched."""
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import ab, breakdown, budget, cycles, style, sweep, timeline
from .errors import InputError
from .loader import Inputs

KINDS = ("budget", "breakdown", "sweep", "ab", "timeline", "cycles")
STAGES = ("prefill", "decode")


@dataclass
class Options:
    kinds: tuple = KINDS  # the kinds asked for; all of them by default
    explicit: bool = False  # True when --kind was given: a kind that cannot be drawn is an error
    stage: str = None
    run: int = None
    metric: str = None
    axis: str = None


@dataclass
class Chart:
    kind: str
    stem: str  # output file name without extension
    caption: str  # one line for the report
    draw: Callable  # () -> Figure
    source: object  # the ResultFile, GateFile or CycleFile drawn from
    run: object = None  # the Run of a per-run chart
    stage: str = None


def plan(inputs: Inputs, opts: Options) -> list:
    charts = []
    stems = _unique_stems([f.path for f in inputs.results + inputs.gates + inputs.cycles])
    for f in inputs.results:
        charts += _result_charts(f, stems[f.path], opts)
    for g in inputs.gates:
        charts += _gate_charts(g, stems[g.path], opts)
    if "cycles" in opts.kinds:
        for c in inputs.cycles:
            charts.append(Chart("cycles", f"{stems[c.path]}-cycles", "optimization cycle history",
                                lambda c=c: cycles.draw(c.cycles, c.path.name), c))
    if opts.explicit:
        _require_inputs(inputs, opts)
    return charts


def write(charts: list, out_dir: Path, formats=("svg", "png")) -> list:
    """Draws and saves every chart; returns (chart, [paths]) pairs."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for chart in charts:
        fig = chart.draw()
        written.append((chart, style.save(fig, out_dir / chart.stem, formats)))
    return written


def _result_charts(f, stem, opts) -> list:
    stages = [opts.stage] if opts.stage else [s for s in STAGES if _has_stage(f, s)]
    if opts.stage and not _has_stage(f, opts.stage):
        raise InputError(f.path, "runs[].config.decode_tokens", "is 0 in every run: no decode stage to chart")
    runs = f.runs
    if opts.run is not None:
        if not 0 <= opts.run < len(f.runs):
            raise InputError(f.path, "runs", f"has {len(f.runs)} runs; --run {opts.run} is not among 0..{len(f.runs) - 1}")
        runs = [f.runs[opts.run]]
    out = []
    k = opts.kinds
    for s in stages:
        if "budget" in k:
            out.append(Chart("budget", f"{stem}-budget-{s}", f"{s} phase budget, one bar per run",
                             lambda s=s: budget.draw(f, s), f, stage=s))
    if "sweep" in k:
        out += _sweep_charts(f, stem, opts)
    for run in runs:
        for s in stages:
            if "breakdown" in k:
                out.append(Chart("breakdown", f"{stem}-breakdown-{s}-run{run.index}", f"{s} phase breakdown",
                                 lambda r=run, s=s: breakdown.draw(r, s), f, run, s))
            if "timeline" in k:
                out.append(Chart("timeline", f"{stem}-timeline-{s}-run{run.index}", f"{s} timeline",
                                 lambda r=run, s=s: timeline.draw(r, s), f, run, s))
    return out


def _sweep_charts(f, stem, opts) -> list:
    axis = opts.axis or sweep.default_axis(f)
    if axis is None:
        if opts.explicit and opts.kinds == ("sweep",):
            raise InputError(f.path, "runs[].config", "no config axis varies across the runs; "
                             "name the one to plot with --axis")
        return []
    metrics = [opts.metric] if opts.metric else sweep.default_metrics(f)
    sweep.check_choice(f, metrics, axis)
    name = "-".join(m.replace(".", "_") for m in metrics)
    return [Chart("sweep", f"{stem}-sweep-{_safe(name)}-vs-{_safe(axis)}",
                  f"{', '.join(metrics)} against {axis}", lambda: sweep.draw(f, metrics, axis), f)]


def _gate_charts(g, stem, opts) -> list:
    if "ab" not in opts.kinds:
        return []
    out = [Chart("ab", f"{stem}-ab-summary", "A/B verdict per run", lambda: ab.draw_summary(g.data), g)]
    indices = range(len(g.data["runs"]))
    if opts.run is not None:
        if opts.run not in indices:
            raise InputError(g.path, "runs", f"has {len(indices)} runs; --run {opts.run} is not among them")
        indices = [opts.run]
    for i in indices:
        out.append(Chart("ab", f"{stem}-ab-run{i}", f"A/B detail: {ab.run_label(g.data, g.data['runs'][i])}",
                         lambda i=i: ab.draw_run(g.data, i), g))
    return out


def _require_inputs(inputs: Inputs, opts: Options):
    needs = {"ab": (inputs.gates, "a gate verdict from `phasebench gate A B --json`"),
             "cycles": (inputs.cycles, "a cycle history from `phasebench cycles --format json`")}
    for kind in opts.kinds:
        have, what = needs.get(kind, (inputs.results, "a result file (phasebench run or sweep)"))
        if not have:
            raise InputError(None, None, f"--kind {kind} needs {what} among the inputs")


def _has_stage(f, stage) -> bool:
    return stage == "prefill" or any(r.config["decode_tokens"] > 0 for r in f.runs)


def _unique_stems(paths) -> dict:
    seen, out = {}, {}
    for p in paths:
        base = _safe(p.stem)
        seen[base] = seen.get(base, 0) + 1
        out[p] = base if seen[base] == 1 else f"{base}-{seen[base]}"
    return out


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)
