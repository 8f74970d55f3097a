"""The one place colours, labels and figure output are decided.

Every chart takes a bucket's colour from BUCKET_COLOURS so that "attention" is the same
orange in a budget, a breakdown, a timeline and an A/B chart; the tests check the drawn SVGs.
Bucket colours follow the Okabe-Ito palette (distinguishable with common colour blindness);
the CPU side is kept in greys so GPU work and host overhead separate at a glance.
"""
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless: no display, deterministic output
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from .phases import GAP  # noqa: E402

BUCKET_COLOURS = {
    "embed": "#f0e442",
    "ssm_projections": "#0072b2",
    "ssm_other": "#56b4e9",
    "attention": "#e69f00",
    "moe": "#009e73",
    "shared_expert": "#8fd9bf",
    "dense_ffn": "#cc79a7",
    "tail": "#d55e00",
    GAP: "#a6a6a6",
    # GPU time no phase tag covers (profile 'submit', or phase spans short of GPU busy).
    "gpu_untagged": "#595959",
    # Wall time that was not split at all (profile 'off').
    "unprofiled": "#ffffff",
}

BUCKET_LABELS = {
    "embed": "embed",
    "ssm_projections": "SSM projections",
    "ssm_other": "SSM other",
    "attention": "attention",
    "moe": "MoE",
    "shared_expert": "shared expert",
    "dense_ffn": "dense FFN",
    "tail": "tail (final norm, LM head, sample)",
    GAP: "CPU + submit/wait gap",
    "gpu_untagged": "GPU, no phase tag",
    "unprofiled": "wall, not profiled",
}

# Host-side spans of the timeline: greys, darker for the work the CPU does itself.
HOST_COLOURS = {"record": "#404040", "submit": "#000000", "wait": "#d0d0d0"}
GPU_BUSY_COLOUR = "#5a6b7d"
GPU_IDLE_COLOUR = "#e41a1c"  # the GPU waiting on the host: the thing submit shapes change

VERDICT_COLOURS = {
    "win": "#1a9850",
    "regression": "#d73027",
    "flat": "#8c8c8c",
    "inconclusive": "#f4a442",
    "incorrect": "#762a83",
    "unsafe": "#000000",
}

# Runs whose status is not ok are drawn hatched and labelled, never dropped.
STATUS_HATCH = "////"
STATUS_TEXT_COLOUR = "#b2182b"

EDGE = "#333333"
CI_NOTE = "error bars: 95% CI of the median (n≥6); dashed: interquartile range (n<6)"

matplotlib.rcParams.update({
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#e5e5e5",
    "grid.linewidth": 0.6,
    "axes.axisbelow": True,
    "svg.hashsalt": "phasebench",  # stable element ids: identical input, identical SVG
    "hatch.linewidth": 0.8,
})


def bucket_gid(bucket: str, serial: int) -> str:
    """SVG id of a drawn bucket artist; the colour-consistency test reads these back."""
    return f"bucket-{bucket}-{serial}"


def bucket_handles(buckets) -> list:
    """Legend entries for buckets, in the order given."""
    return [Patch(facecolor=BUCKET_COLOURS[b], edgecolor=EDGE, linewidth=0.5,
                  hatch="..." if b == "unprofiled" else None, label=BUCKET_LABELS[b])
            for b in buckets]


def legend_below(fig: Figure, handles: list, ncol: int = 4):
    """A legend in its own strip under the axes, so it never covers data or the x label.

    The strip's height is reserved through the layout engine's rect, which keeps the plot
    area clear of it whatever the figure size."""
    if not handles:
        return
    # No more columns than fit across the figure (8 pt legend text: ~13 characters an inch,
    # plus the key), so a narrow figure wraps its legend instead of clipping it.
    widest = max(len(h.get_label()) for h in handles) / 13 + 0.6
    ncol = max(1, min(ncol, len(handles), int(fig.get_figwidth() / widest)))
    rows = -(-len(handles) // ncol)
    strip = (0.12 + 0.2 * rows) / fig.get_figheight()
    # Matplotlib fills a legend column by column; reorder so it reads row by row.
    handles = [handles[r * ncol + c] for c in range(ncol) for r in range(rows) if r * ncol + c < len(handles)]
    fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 0.0), ncol=ncol,
               frameon=False)
    fig.get_layout_engine().set(rect=(0, strip, 1, 1 - strip))


def new_figure(width_in: float, height_in: float) -> Figure:
    """A figure not tied to pyplot's global state, so charts never leak into each other."""
    return Figure(figsize=(width_in, height_in), layout="constrained")


def save(fig: Figure, out_stem: Path, formats=("svg", "png")) -> list:
    """Writes the figure as out_stem.svg and out_stem.png; returns the paths written."""
    paths = []
    for fmt in formats:
        path = out_stem.parent / f"{out_stem.name}.{fmt}"  # not with_suffix: stems may hold dots
        fig.savefig(path, format=fmt, dpi=150, metadata={"Date": None} if fmt == "svg" else None)
        paths.append(path)
    return paths


def title(fig: Figure, ax, heading: str, context: str, note: str = ""):
    """Heading in bold over the figure; the device/model/workload line and an optional
    method note (what a bar or an error bar means) in small type above the axes."""
    # Wrapped to fit (8 pt text runs about 15 characters an inch, and the axes, where the
    # lines start, leave room for tick labels), so a long device name never runs off the edge.
    width = int(fig.get_figwidth() * 15 * 0.7)
    fig.suptitle(textwrap.fill(heading, width), x=0.01, ha="left", fontsize=11,
                 fontweight="bold")
    lines = [textwrap.fill(t, width) for t in [context, note] if t]
    ax.set_title("\n".join(lines), loc="left", fontsize=8, color="#333333")


def error_bar_lines(container, kind: str):
    """Dashes the bars of an interquartile range, so it is never mistaken for a CI."""
    if kind == "iqr":
        for line in container.lines[2]:
            line.set_linestyle("--")
