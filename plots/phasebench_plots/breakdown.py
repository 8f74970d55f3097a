"""Phase breakdown of one run: one bar per phase plus the CPU + submit/wait gap, sorted
largest first, each with its median over the repetitions, the spread of that median, and its
share of the median wall time of the stage."""
from dataclasses import dataclass

from . import style
from .phases import GAP, PHASES, bucket_of
from .runs import Run, error_bar


@dataclass
class BreakdownRow:
    name: str  # phase name, or "gap"
    bucket: str  # colour key
    median_ms: float
    low_ms: float
    high_ms: float
    spread: str  # "ci" or "iqr"
    share: float  # median / median wall of the stage
    n: int


def compute_rows(run: Run, stage: str) -> list:
    wall = run.stat(f"{stage}.wall_ms")
    if not wall or wall["median"] <= 0:
        return []
    rows = []
    names = [(p, f"{stage}.phase.{p}_ms", bucket_of(p)) for p in PHASES]
    names.append((GAP, f"{stage}.gap_ms", GAP))
    for name, metric, bucket in names:
        stat = run.stat(metric)
        if stat is None or (name != GAP and stat["median"] <= 0):
            continue
        eb = error_bar(stat)
        rows.append(BreakdownRow(name, bucket, stat["median"], eb.low, eb.high, eb.kind,
                                 stat["median"] / wall["median"], stat["n"]))
    # Phases that appear only with phase profiling; without them only the gap is left.
    if all(r.name == GAP for r in rows):
        return []
    return sorted(rows, key=lambda r: -r.median_ms)


def draw(run: Run, stage: str):
    rows = compute_rows(run, stage)
    fig = style.new_figure(9, 2.6 + 0.26 * max(len(rows), 3))
    ax = fig.add_subplot()
    label = run.file.label(run)
    tag = run.status_tag()
    heading = f"{stage.capitalize()} phase breakdown — run {run.index}: {label}" + (f" [{tag}]" if tag else "")
    wall = run.stat(f"{stage}.wall_ms")
    note = (f"median over n={wall['n']} repetitions; share = phase median / median wall time "
            f"({wall['median']:.4g} ms); " + style.CI_NOTE) if wall else ""
    style.title(fig, ax, heading, run.context(), note)
    if not rows:
        why = (f"no per-phase GPU times: profile was '{run.config['profile']}' (needs phase or dispatch)"
               if run.samples else f"no repetitions measured ({run.status}: {run.data.get('error') or ''})")
        ax.text(0.5, 0.5, why, ha="center", va="center", transform=ax.transAxes,
                color=style.STATUS_TEXT_COLOUR)
        ax.set_axis_off()
        return fig
    ys = range(len(rows))
    for y, row in zip(ys, rows):
        rect = ax.barh(y, row.median_ms, height=0.7, color=style.BUCKET_COLOURS[row.bucket],
                       edgecolor=style.EDGE, linewidth=0.4, hatch=style.STATUS_HATCH if tag else None)
        rect.patches[0].set_gid(style.bucket_gid(row.bucket, y))
        bars = ax.errorbar(row.median_ms, y, xerr=[[row.median_ms - row.low_ms], [row.high_ms - row.median_ms]],
                           fmt="none", ecolor="black", elinewidth=0.8, capsize=2)
        style.error_bar_lines(bars, row.spread)
    top = max(r.high_ms for r in rows)
    for y, row in zip(ys, rows):
        ax.text(max(row.high_ms, row.median_ms) + top * 0.01, y,
                f"{row.median_ms:.3g} ms  {100 * row.share:.1f}%", va="center", fontsize=7.5)
    ax.set_yticks(list(ys), [style.BUCKET_LABELS[GAP] if r.name == GAP else r.name for r in rows])
    ax.invert_yaxis()
    ax.set_xlim(0, top * 1.25)
    ax.set_xlabel(f"{stage} time per phase (GPU) and gap (host), median (ms)")
    ax.grid(axis="y", visible=False)
    used = [b for b in style.BUCKET_COLOURS if any(r.bucket == b for r in rows)]
    style.legend_below(fig, style.bucket_handles(used), ncol=5)
    return fig
