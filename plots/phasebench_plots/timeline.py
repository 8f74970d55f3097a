"""Timeline of one run's stage: GPU phase spans, GPU busy segments (one per submit) and the
host's record / submit / wait spans on one host-clock axis, from the last repetition.

Sub-pixel spans (a vkQueueSubmit takes microseconds) are drawn with an outline of their own
colour, so they stay visible as hairlines instead of vanishing at the scale of the stage."""
from matplotlib.patches import Patch

from . import style
from .phases import bucket_of
from .runs import Run

LANE_COLOURS = {"gpu_busy": style.GPU_BUSY_COLOUR, "gpu_idle": style.GPU_IDLE_COLOUR, **style.HOST_COLOURS}
LANE_LABELS = {"gpu_busy": "GPU busy", "gpu_idle": "GPU idle between submits", "record": "CPU record",
               "submit": "CPU submit", "wait": "CPU wait"}
LANES = ("GPU phases", "GPU busy / idle", "CPU record", "CPU submit", "CPU wait")


def lanes(run: Run, stage: str):
    """{lane: {colour key: [(start_ms, width_ms)]}} from the run's timeline, or None."""
    t = run.data["timeline"].get(stage)
    if t is None:
        return None
    out = {lane: {} for lane in LANES}
    for phase, _seg, _layer, _token, b, e, _ops in (row[:7] for row in t["gpu_spans"]):
        out["GPU phases"].setdefault(bucket_of(phase), []).append((b / 1e3, (e - b) / 1e3))
    segments = sorted((b / 1e3, e / 1e3) for _s, b, e in (r[:3] for r in t["gpu_segments"]))
    out[LANES[1]]["gpu_busy"] = [(b, e - b) for b, e in segments]
    # The idle stretches between submits are the submit gap itself: drawn on their own so a
    # tenth of a millisecond still shows at the scale of a whole stage.
    out[LANES[1]]["gpu_idle"] = [(e0, b1 - e0) for (_b0, e0), (b1, _e1) in zip(segments, segments[1:]) if b1 > e0]
    for kind, _seg, b, e in (row[:4] for row in t["host"]):
        out[f"CPU {kind}"].setdefault(kind, []).append((b / 1e3, (e - b) / 1e3))
    return out


def draw(run: Run, stage: str):
    fig = style.new_figure(12, 4.4)
    ax = fig.add_subplot()
    t = run.data["timeline"].get(stage)
    tag = run.status_tag()
    heading = f"{stage.capitalize()} timeline — run {run.index}: {run.file.label(run)}" + (f" [{tag}]" if tag else "")
    if t is None:
        style.title(fig, ax, heading, run.context())
        ax.text(0.5, 0.5, f"no {stage} timeline recorded ({run.status})", ha="center", va="center",
                transform=ax.transAxes, color=style.STATUS_TEXT_COLOUR)
        ax.set_axis_off()
        return fig
    clock = ("GPU spans placed on the host clock by calibrated timestamps" if t["clock_calibrated"]
             else "GPU clock not calibrated: GPU spans aligned to the host at each submit (approximate)")
    spans = len(t["gpu_spans"])
    style.title(fig, ax, heading, run.context(),
                f"last measured repetition; {clock}; {spans} GPU spans, {len(t['host'])} host spans")
    serial = 0
    used = []
    for y, (lane, groups) in enumerate(lanes(run, stage).items()):
        for key, ranges in groups.items():
            bucket = key in style.BUCKET_COLOURS
            colour = style.BUCKET_COLOURS[key] if bucket else LANE_COLOURS[key]
            # Outlines in the span's own colour keep microsecond spans visible as hairlines;
            # GPU busy segments get none, or they would paint over the idle gaps between them.
            coll = ax.broken_barh(ranges, (y - 0.38, 0.76), facecolors=colour,
                                  edgecolors=style.EDGE if bucket else colour,
                                  linewidth=0.15 if bucket else 0 if key == "gpu_busy" else 0.7)
            if bucket:
                coll.set_gid(style.bucket_gid(key, serial))
                serial += 1
            if ranges:
                used.append(key)
    if not spans:
        ax.text(0.01, 0, f"no GPU phase spans: profile '{run.config['profile']}'", va="center",
                transform=ax.get_yaxis_transform(), fontsize=8, color=style.STATUS_TEXT_COLOUR)
    ax.set_yticks(range(len(LANES)), LANES)
    ax.invert_yaxis()
    ax.set_xlabel(f"time since the start of the {stage} stage, host clock (ms)")
    # The stage's wall time, where the file records it, so host time after the last GPU span shows.
    ax.set_xlim(0, t["wall_us"] / 1e3 if isinstance(t.get("wall_us"), (int, float)) else None)
    ax.grid(axis="y", visible=False)
    handles = style.bucket_handles([k for k in style.BUCKET_COLOURS if k in used])
    handles += [Patch(facecolor=c, edgecolor=style.EDGE, linewidth=0.5, label=LANE_LABELS[k])
                for k, c in LANE_COLOURS.items() if k in used]
    style.legend_below(fig, handles, ncol=6)
    return fig
