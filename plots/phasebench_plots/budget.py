"""Phase budget: where the wall time of a stage goes, one horizontal stacked bar per run.

A bar is one real repetition, the one with the median wall time (the lower middle one for an
even count), so its segments add up to its wall time exactly: GPU time per bucket, GPU time
no phase tag covers, and the CPU + submit/wait gap (wall − GPU busy). Medians of the parts
would not add up to the median of the whole. The label carries the median wall time and
tokens/s over all repetitions with n, and the error bar the spread of the median wall.
"""
from dataclasses import dataclass, field

from . import style
from .phases import BUCKETS, GAP, bucket_of
from .runs import ResultFile, Run, error_bar

SEGMENT_ORDER = BUCKETS + ("gpu_untagged", GAP, "unprofiled")


@dataclass
class BudgetBar:
    run: Run
    label: str
    wall_ms: float = 0.0  # the drawn repetition's wall time; the segments sum to it
    segments: dict = field(default_factory=dict)  # segment key -> ms, in SEGMENT_ORDER
    sample_index: int = None  # which repetition was drawn; None without samples
    note: str = ""  # a caveat printed on the bar (no profile, overlapping phases...)


def compute_bars(result: ResultFile, stage: str) -> list:
    axes = result.varying_axes()
    return [compute_bar(run, stage, run.label(axes)) for run in result.runs]


def compute_bar(run: Run, stage: str, label: str) -> BudgetBar:
    bar = BudgetBar(run, label)
    if not run.samples:
        bar.note = "no repetitions measured"
        return bar
    order = sorted(range(len(run.samples)), key=lambda i: run.samples[i][stage]["wall_ms"])
    bar.sample_index = order[(len(order) - 1) // 2]
    s = run.samples[bar.sample_index][stage]
    bar.wall_ms = wall = s["wall_ms"]
    busy = s["gpu_busy_ms"]
    if busy is None:
        bar.segments = {"unprofiled": wall}
        bar.note = f"profile {run.config['profile']}: GPU time not measured"
        return bar
    buckets = dict.fromkeys(BUCKETS, 0.0)
    for phase, ms in (s["phases_ms"] or {}).items():
        buckets[bucket_of(phase)] += ms
    tagged = sum(buckets.values())
    if busy > wall:  # GPU intervals placed past the host's window: clocks disagree
        bar.note = f"GPU busy {busy:.3g} ms exceeds wall; GPU parts scaled to wall"
        scale, busy = wall / busy, wall
        buckets = {b: v * scale for b, v in buckets.items()}
        tagged *= scale
    if tagged > busy * (1 + 1e-9):  # phase spans overlap (concurrent dispatches): share busy time out
        bar.note = bar.note or "phase spans overlap; scaled to GPU busy time"
        buckets = {b: v * busy / tagged for b, v in buckets.items()}
        tagged = busy
    if not s["phases_ms"]:
        bar.note = bar.note or f"profile {run.config['profile']}: no per-phase GPU times"
    segments = {b: v for b, v in buckets.items() if v > 0}
    if busy - tagged > 1e-9 * max(busy, 1.0):
        segments["gpu_untagged"] = busy - tagged
    segments[GAP] = wall - busy
    bar.segments = {k: segments[k] for k in SEGMENT_ORDER if k in segments}
    return bar


def draw(result: ResultFile, stage: str):
    bars = compute_bars(result, stage)
    lines = max(1, len(result.varying_axes()))
    fig = style.new_figure(11, 2.6 + len(bars) * (0.32 + 0.17 * lines))
    ax = fig.add_subplot()
    used = [k for k in SEGMENT_ORDER if any(k in b.segments for b in bars)]
    serial = 0
    longest = max([b.wall_ms for b in bars] + [_wall_high(b.run, stage) for b in bars] + [1e-9])
    for y, bar in enumerate(bars):
        left = 0.0
        for key, ms in bar.segments.items():
            rect = ax.barh(y, ms, left=left, height=0.62, color=style.BUCKET_COLOURS[key],
                           edgecolor=style.EDGE, linewidth=0.4,
                           hatch="..." if key == "unprofiled" else None)
            rect.patches[0].set_gid(style.bucket_gid(key, serial))
            serial += 1
            left += ms
        if bar.run.status_tag():  # hatched veil over a run that is not ok: seen, not hidden
            ax.barh(y, max(bar.wall_ms, longest * 0.02), height=0.62, color="none",
                    edgecolor=style.STATUS_TEXT_COLOUR, hatch=style.STATUS_HATCH, linewidth=0.8)
        _annotate(ax, y, bar, stage, longest)
    ax.set_yticks(range(len(bars)), [b.label.replace(", ", "\n") for b in bars])
    ax.invert_yaxis()  # first run on top, as in the file
    ax.set_xlim(0, longest * 1.5)
    ax.set_xlabel(f"{stage} wall time (ms)")
    ax.grid(axis="y", visible=False)
    style.title(fig, ax, f"{stage.capitalize()} phase budget", result.context(),
                "bar = the repetition with the median wall time; segments sum to its wall time; "
                + style.CI_NOTE)
    style.legend_below(fig, style.bucket_handles(used), ncol=5)
    return fig


def _wall_high(run: Run, stage: str) -> float:
    stat = run.stat(f"{stage}.wall_ms")
    return error_bar(stat).high if stat else 0.0


def _annotate(ax, y, bar: BudgetBar, stage: str, longest: float):
    run = bar.run
    wall, rate = run.stat(f"{stage}.wall_ms"), run.stat(f"{stage}.tok_s")
    parts = []
    if wall:
        eb = error_bar(wall)
        bars = ax.errorbar(wall["median"], y, xerr=[[wall["median"] - eb.low], [eb.high - wall["median"]]],
                           fmt="none", ecolor="black", elinewidth=1, capsize=3)
        style.error_bar_lines(bars, eb.kind)
        parts.append(f"{wall['median']:.4g} ms")
    if rate:
        parts.append(f"{rate['median']:.4g} tok/s")
    parts.append(f"n={wall['n'] if wall else len(run.samples)}")
    text = " · ".join(parts)
    if run.status_tag():
        text = f"{run.status_tag()}: " + text
    if bar.note:
        text += f"\n{bar.note}"
    if run.data.get("error"):
        text += f"\n{run.data['error'][:90]}"
    x = max(bar.wall_ms, _wall_high(run, stage)) + longest * 0.015
    ax.text(x, y, text, va="center", ha="left", fontsize=8,
            color=style.STATUS_TEXT_COLOUR if run.status_tag() else "black")
