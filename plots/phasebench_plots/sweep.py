"""Sweep: a metric against one config axis, one line per combination of the other axes that
vary in the file, the spread of each median as an error bar and n next to each point.

Numeric axes (prompt_tokens, chunk_cols...) are placed by value, on a log2 scale when they
span powers of two; the others (num_cols, submit...) in their natural order."""
from dataclasses import dataclass, field

from matplotlib.lines import Line2D
from matplotlib.transforms import blended_transform_factory, offset_copy

from . import style
from .errors import InputError
from .result_check import CONFIG_KEYS
from .runs import ResultFile, Run, config_value, error_bar, metric_label

NUMERIC_AXES = ("prompt_tokens", "decode_tokens", "chunk_cols", "seed")
AXIS_PREFERENCE = ("num_cols", "chunk_cols", "prompt_tokens", "decode_tokens", "submit", "prefill",
                   "barriers", "double_buffer", "skip_dead_work", "descriptors", "profile",
                   "subgroup", "coopmat", "dmmv_activations", "norm_placement", "glu_placement", "weights",
                   "model", "gguf", "seed")
CATEGORY_ORDER = {
    "num_cols": ["spec", "shared:32", "shared:64"],
    "submit": ["per-dispatch", "per-layer", "per-layer-nowait", "per-token", "per-token-ahead", "per-prompt"],
    "prefill": ["decode-loop", "batched", "matmul"],
    "barriers": ["global", "buffer", "ledger", "none"],
    "descriptors": ["pool-reset", "persistent", "push"],
    "profile": ["off", "submit", "phase", "dispatch"],
    "norm_placement": ["dispatch", "producer"],
    "glu_placement": ["dispatch", "producer"],
}
SERIES_COLOURS = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000",
                  "#8c564b"]
MARKERS = "osD^v<>p"


@dataclass
class Point:
    run: Run
    x: object  # the axis value
    median: float = None  # None: the run has no value for the metric (failed early)
    low: float = None
    high: float = None
    spread: str = "iqr"
    n: int = 0


@dataclass
class Series:
    label: str
    points: list = field(default_factory=list)


def default_axis(result: ResultFile):
    varying = result.varying_axes()
    return next((a for a in AXIS_PREFERENCE if a in varying), None)


def default_metrics(result: ResultFile) -> list:
    return [m for m in ("prefill.tok_s", "decode.tok_s")
            if any(r.stat(m) for r in result.runs)] or [result.runs[0].headline]


def check_choice(result: ResultFile, metrics, axis):
    if axis not in CONFIG_KEYS + ("gguf",):
        raise InputError(None, None, f"--axis '{axis}' is not a config axis; one of: "
                         + ", ".join(CONFIG_KEYS))
    known = sorted({m for r in result.runs for m in r.data["summary"]})
    for m in metrics:
        if m not in known:
            raise InputError(result.path, "runs[].summary",
                             f"has no metric '{m}'; it has: {', '.join(known[:12])}"
                             + (", …" if len(known) > 12 else ""))


def compute_series(result: ResultFile, metric: str, axis: str) -> list:
    others = [a for a in result.varying_axes() if a != axis]
    series = {}
    for run in result.runs:
        label = ", ".join(f"{a}={config_value(run.config.get(a))}" for a in others) or "all runs"
        point = Point(run, run.config.get(axis))
        stat = run.stat(metric)
        if stat:
            eb = error_bar(stat)
            point.median, point.low, point.high, point.spread, point.n = (
                stat["median"], eb.low, eb.high, eb.kind, stat["n"])
        series.setdefault(label, Series(label)).points.append(point)
    for s in series.values():
        s.points.sort(key=lambda p: _order_key(axis, p.x))
    return list(series.values())


def _order_key(axis, value):
    if axis in CATEGORY_ORDER and value in CATEGORY_ORDER[axis]:
        return (0, CATEGORY_ORDER[axis].index(value), "")
    if isinstance(value, str) and value.startswith("chunk:"):
        return (1, int(value.split(":")[1]), "")
    if isinstance(value, (int, float)):
        return (0, value, "")
    return (2, 0, config_value(value))


def draw(result: ResultFile, metrics: list, axis: str):
    fig = style.new_figure(max(8.0, 5.2 * len(metrics) + 1.0), 5.0)
    axes = fig.subplots(1, len(metrics), squeeze=False)[0]
    xs = sorted({repr(r.config.get(axis)): r.config.get(axis) for r in result.runs}.values(),
                key=lambda v: _order_key(axis, v))
    numeric = axis in NUMERIC_AXES
    handles = []
    for ax, metric in zip(axes, metrics):
        series = compute_series(result, metric, axis)
        for k, s in enumerate(series):
            colour, marker = SERIES_COLOURS[k % len(SERIES_COLOURS)], MARKERS[k % len(MARKERS)]
            # Series sharing an x are shifted apart by a few points so their bars stay legible.
            shift = offset_copy(ax.transData, fig=fig, x=(k - (len(series) - 1) / 2) * 10, units="points")
            place = (lambda v: v) if numeric else xs.index
            _draw_series(ax, s, place, colour, marker, shift)
            if ax is axes[0]:
                handles.append(Line2D([], [], color=colour, marker=marker, label=s.label))
        ax.set_ylabel(metric_label(metric))
        ax.set_xlabel(axis + (" (tokens)" if axis in ("prompt_tokens", "decode_tokens") else
                              " (tokens per chunk)" if axis == "chunk_cols" else ""))
        if numeric:
            if len(xs) > 2 and min(xs) > 0 and max(xs) / min(xs) >= 8:
                ax.set_xscale("log", base=2)
            ax.set_xticks(xs, [config_value(v) for v in xs])
            ax.minorticks_off()
            ax.margins(x=0.08)  # room for the status labels beside the outermost points
        else:
            ax.set_xticks(range(len(xs)), [config_value(v) for v in xs])
            ax.set_xlim(-0.5, len(xs) - 0.5)
        ax.set_ylim(bottom=0)
    heading = f"Sweep: {', '.join(metrics)} against {axis}"
    style.title(fig, axes[0], heading, result.context(), style.CI_NOTE + "; n = repetitions per point")
    if any(r.status_tag() for r in result.runs):
        handles.append(Line2D([], [], color="none", marker="o", markerfacecolor="white",
                              markeredgecolor=style.STATUS_TEXT_COLOUR, label="run not ok (status shown)"))
    style.legend_below(fig, handles, ncol=3)
    return fig


def _draw_series(ax, s: Series, place, colour, marker, shift):
    measured = [p for p in s.points if p.median is not None]
    ax.plot([place(p.x) for p in measured], [p.median for p in measured], color=colour,
            marker=marker, linewidth=1.4, markersize=5, transform=shift)
    for p in measured:
        x = place(p.x)
        bars = ax.errorbar(x, p.median, yerr=[[p.median - p.low], [p.high - p.median]], fmt="none",
                           ecolor=colour, elinewidth=1, capsize=3, transform=shift)
        style.error_bar_lines(bars, p.spread)
        ax.annotate(f"n={p.n}", (x, p.high), xycoords=shift, textcoords="offset points",
                    xytext=(0, 3), ha="center", fontsize=6.5, color="#555555")
        if p.run.status_tag():
            ax.plot([x], [p.median], marker="o", markersize=9, markerfacecolor="white",
                    markeredgecolor=style.STATUS_TEXT_COLOUR, zorder=5, transform=shift)
            ax.annotate(p.run.status_tag(), (x, p.median), xycoords=shift, textcoords="offset points",
                        xytext=(6, -10), fontsize=7, color=style.STATUS_TEXT_COLOUR)
    # Runs without a value (failed before a repetition finished) sit on the x axis, marked.
    base = blended_transform_factory(shift, ax.transAxes)
    for p in s.points:
        if p.median is None:
            ax.plot([place(p.x)], [0.03], marker="X", color=style.STATUS_TEXT_COLOUR,
                    transform=base, markersize=8, clip_on=False)
            ax.annotate(f"{p.run.status_tag() or 'no value'}", (place(p.x), 0.03), xycoords=base,
                        textcoords="offset points", xytext=(6, 2), fontsize=7,
                        color=style.STATUS_TEXT_COLOUR)
