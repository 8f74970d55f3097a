"""A/B charts from a gate verdict (`phasebench gate A B --json`).

Improvements are the gate's own fractions (positive = better, whatever the metric's
direction), drawn in percent with the gate's bootstrap 95% CI and the ±threshold band inside
which a change counts as flat. The summary has one row per matched run (its headline
metric); the detail chart of a run splits its metrics from its phases, and colours phases by
bucket like every other chart."""
from dataclasses import dataclass

from matplotlib.patches import Patch

from . import style
from .phases import bucket_of


@dataclass
class Change:
    name: str
    improvement: float  # fraction, positive = better; None when the gate could not compute it
    ci_low: float
    ci_high: float
    verdict: str
    detail: str  # medians and n, for the label


def metric_changes(gate_run: dict, phases: bool) -> list:
    """The run's metrics (phases=False) or phase metrics (phases=True), headline first."""
    out = []
    for name, m in gate_run["metrics"].items():
        if (".phase." in name) != phases:
            continue
        detail = f"n={m['n_base']} vs {m['n_cand']}"
        out.append(Change(name, m["improvement"], m["ci_low"], m["ci_high"], m["verdict"], detail))
    if phases:  # grouped by stage, then largest gain first: where a change paid off
        return sorted(out, key=lambda c: (phase_of(c.name)[0] != "prefill", -(c.improvement or 0), c.name))
    return sorted(out, key=lambda c: (c.name != gate_run["headline"], c.name))


def context(gate: dict) -> str:
    b, c = gate["base"], gate["candidate"]
    devices = b["device"] if b["device"] == c["device"] else f"{b['device']} vs {c['device']}"
    return (f"base {_commit(b)} ({b['file']}) → candidate {_commit(c)} ({c['file']}) · {devices} · "
            f"threshold ±{100 * gate['threshold']:g}%, α={gate['alpha']:g}")


def _commit(side) -> str:
    return (side.get("git_commit") or "?")[:12]


def run_label(gate: dict, gate_run: dict) -> str:
    """The config values that differ across the gate's runs, else its key."""
    configs = [r["config"] for r in gate["runs"]]
    keys = [k for k in gate_run["config"] if len({repr(c.get(k)) for c in configs}) > 1]
    return ", ".join(f"{k}={gate_run['config'][k]}" for k in keys) or gate_run["key"]


def draw_summary(gate: dict):
    runs = gate["runs"]
    fig = style.new_figure(10, 2.4 + 0.42 * len(runs))
    ax = fig.add_subplot()
    changes = []
    for r in runs:
        m = r["metrics"].get(r["headline"], {})
        changes.append(Change(r["headline"], m.get("improvement"), m.get("ci_low"), m.get("ci_high"),
                              r["verdict"], r.get("reason") or ""))
    _bars(ax, changes, [style.VERDICT_COLOURS.get(c.verdict, "#777777") for c in changes], gate)
    ax.set_yticks(range(len(runs)), [run_label(gate, r) for r in runs])
    headlines = sorted({r["headline"] for r in runs})
    ax.set_xlabel(f"change of {', '.join(headlines)}, positive = better (%)")
    style.title(fig, ax, "A/B verdict per run", context(gate),
                "bar = change of the median; error bar = bootstrap 95% CI; shaded = flat band")
    style.legend_below(fig, _verdict_handles({c.verdict for c in changes}), ncol=6)
    return fig


def phase_of(metric: str):
    """'decode.phase.attn_qkv_ms' -> ('decode', 'attn_qkv')."""
    stage, _, rest = metric.partition(".phase.")
    return stage, rest.removesuffix("_ms")


def draw_run(gate: dict, index: int):
    r = gate["runs"][index]
    metrics, phases = metric_changes(r, False), metric_changes(r, True)
    fig = style.new_figure(13, 2.8 + 0.3 * max(len(metrics), len(phases), 1))
    axes = fig.subplots(1, 2, squeeze=False)[0]
    _bars(axes[0], metrics, [style.VERDICT_COLOURS.get(c.verdict, "#777777") for c in metrics], gate)
    axes[0].set_yticks(range(len(metrics)), [c.name for c in metrics])
    axes[0].set_xlabel("change of the median, positive = better (%)")
    buckets = [bucket_of(phase_of(c.name)[1]) for c in phases]
    patches = _bars(axes[1], phases, [style.BUCKET_COLOURS[b] for b in buckets], gate)
    for serial, (b, p) in enumerate(zip(buckets, patches)):
        if p is not None:
            p.set_gid(style.bucket_gid(b, serial))
    axes[1].set_yticks(range(len(phases)), ["{1} ({0})".format(*phase_of(c.name)) for c in phases])
    axes[1].set_xlabel("GPU time per phase: change of the median, positive = faster (%)")
    rows = max(len(metrics), len(phases), 1)
    for ax in axes:  # same row pitch in both panels, first row on top
        ax.set_ylim(rows - 0.5, -0.5)
    if not phases:
        axes[1].text(0.5, 0.5, "no phase metrics in this gate run", ha="center", va="center",
                     transform=axes[1].transAxes)
    style.title(fig, axes[0], f"A/B — {run_label(gate, r)}: {r['verdict']}", context(gate),
                (r.get("reason") or "") + "; error bar = bootstrap 95% CI; shaded = flat band")
    handles = _verdict_handles({c.verdict for c in metrics}) + style.bucket_handles(dict.fromkeys(buckets))
    style.legend_below(fig, handles, ncol=6)
    return fig


def _bars(ax, changes, colours, gate) -> list:
    """Horizontal bars in percent with CI whiskers and a label carrying the numbers; returns
    the patches. The axis spans every change and the flat band, and CIs up to ±100%: a wider
    CI (a few noisy samples) is cut at the edge, its bounds still written in the label."""
    band = 100 * gate["threshold"]
    values = [100 * c.improvement for c in changes if c.improvement is not None]
    bounds = [100 * b for c in changes for b in (c.ci_low, c.ci_high) if b is not None]
    lo = min([-2 * band] + values + [max(b, -100) for b in bounds])
    hi = max([2 * band] + values + [min(b, 100) for b in bounds])
    ax.set_xlim(lo - 0.05 * (hi - lo), hi + 0.6 * (hi - lo))
    ax.axvspan(-band, band, color="#ececec", zorder=0)
    ax.axvline(0, color="black", linewidth=0.8)
    patches = []
    for y, (c, colour) in enumerate(zip(changes, colours)):
        if c.improvement is None:
            ax.text(0, y, f"  n/a: {c.verdict} {c.detail}", va="center", fontsize=7.5)
            patches.append(None)
            continue
        v = 100 * c.improvement
        rect = ax.barh(y, v, height=0.6, color=colour, edgecolor=style.EDGE, linewidth=0.4)
        patches.append(rect.patches[0])
        edge, label = v, f"{v:+.1f}%"
        if c.ci_low is not None and c.ci_high is not None:
            low, high = 100 * c.ci_low, 100 * c.ci_high
            shown_low, shown_high = max(low, lo), min(high, hi)  # cut at the window, marked by arrows
            ax.errorbar(v, y, xerr=[[v - shown_low], [shown_high - v]], fmt="none", ecolor="black",
                        elinewidth=1, capsize=0 if high > hi else 3)
            for cut, end, marker in ((low < lo, shown_low, "<"), (high > hi, shown_high, ">")):
                if cut:
                    ax.plot([end], [y], marker=marker, color="black", markersize=4)
            edge, label = shown_high, f"{v:+.1f}% [{low:+.1f}, {high:+.1f}]"
        label += f" {c.verdict}" + (f" · {c.detail}" if len(c.detail) < 40 else "")
        ax.annotate(label, (max(edge, 0), y), textcoords="offset points", xytext=(5, 0),
                    va="center", fontsize=7.5)
    ax.set_xticks([t for t in ax.get_xticks() if lo <= t <= hi])  # none under the labels
    ax.set_ylim(len(changes) - 0.5, -0.5)  # first row on top; rows without a bar keep their room
    ax.grid(axis="y", visible=False)
    return patches


def _verdict_handles(verdicts) -> list:
    order = [v for v in style.VERDICT_COLOURS if v in verdicts]
    return [Patch(facecolor=style.VERDICT_COLOURS[v], edgecolor=style.EDGE, linewidth=0.5, label=v)
            for v in order] + [Patch(facecolor="#ececec", label="flat band (±threshold)")]
