"""Cycle history (`phasebench cycles --format json`): the gated metric per optimization cycle
with the best-so-far line, and below it each cycle's change with its 95% CI.

A cycle's `delta`, `ci_low` and `ci_high` are the gate's improvement fractions (positive =
better, results/history/cycle_outcome.h). Flat and negative cycles are marked by colour and
marker shape, so the chart still reads in greyscale; cycles that were not kept are hollow."""
import textwrap

from matplotlib.lines import Line2D

from . import style
from .runs import metric_label

MARKER = {"win": "^", "regression": "v", "flat": "o", "inconclusive": "D", "incorrect": "X",
          "unsafe": "s"}


def draw(cycles: list, source: str):
    metrics = list(dict.fromkeys(c["metric"] for c in cycles))
    fig = style.new_figure(max(8.0, 0.55 * len(cycles) + 4), 7.2)
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[3, 2])
    xs = [c["cycle"] for c in cycles]
    best = [(c["cycle"], c["best_so_far"]) for c in cycles if c["best_so_far"] is not None]
    if best:
        top.step([b[0] for b in best], [b[1] for b in best], where="post", color="#1a9850",
                 linewidth=1.6, label="best so far (kept)")
    for c in cycles:
        colour = style.VERDICT_COLOURS.get(c["verdict"], "#777777")
        marker = MARKER.get(c["verdict"], "o")
        if c["base_value"] is not None and c["cand_value"] is not None:
            top.plot([c["cycle"]] * 2, [c["base_value"], c["cand_value"]], color="#bbbbbb", linewidth=1)
            top.plot([c["cycle"]], [c["base_value"]], marker="_", color="#555555", markersize=10)
        if c["cand_value"] is not None:
            top.plot([c["cycle"]], [c["cand_value"]], marker=marker, markersize=8, linestyle="none",
                     markerfacecolor=colour if c["kept"] else "white", markeredgecolor=colour,
                     markeredgewidth=1.5)
        if c["delta"] is None:
            bottom.annotate("n/a", (c["cycle"], 0), ha="center", fontsize=7)
            continue
        d = 100 * c["delta"]
        bottom.bar(c["cycle"], d, width=0.6, color=colour, edgecolor=style.EDGE, linewidth=0.4,
                   hatch=None if c["kept"] else "//")
        end = d  # the label goes past the whisker, never on it
        if c["ci_low"] is not None and c["ci_high"] is not None:
            bottom.errorbar(c["cycle"], d, yerr=[[d - 100 * c["ci_low"]], [100 * c["ci_high"] - d]],
                            fmt="none", ecolor="black", elinewidth=1, capsize=3)
            end = max(d, 100 * c["ci_high"]) if d >= 0 else min(d, 100 * c["ci_low"])
        bottom.annotate(c["verdict"], (c["cycle"], end), textcoords="offset points",
                        xytext=(0, 3 if d >= 0 else -3), va="bottom" if d >= 0 else "top",
                        ha="center", fontsize=7)
    bottom.margins(y=0.18)
    bottom.axhline(0, color="black", linewidth=0.8)
    top.set_ylabel(metric_label(metrics[0]) if len(metrics) == 1 else "metric value (see legend)")
    bottom.set_ylabel("change vs base, positive = better (%)")
    bottom.set_xlabel("optimization cycle (change)")
    bottom.set_xticks(xs, [f"{c['cycle']}\n" + "\n".join(textwrap.wrap(c["change"], 18)[:3]) for c in cycles],
                      fontsize=7)
    style.title(fig, top, "Optimization cycles: " + ", ".join(metrics),
                f"{source} · {len(cycles)} cycles, {sum(c['kept'] for c in cycles)} kept",
                "marker = candidate median, dash = base median; hollow marker and hatched bar: not kept; "
                "error bar = gate's 95% CI of the change")
    handles = [Line2D([], [], color="#1a9850", linewidth=1.6, label="best so far")]
    for v in dict.fromkeys(c["verdict"] for c in cycles):
        handles.append(Line2D([], [], marker=MARKER.get(v, "o"), linestyle="none", markersize=7,
                              color=style.VERDICT_COLOURS.get(v, "#777777"), label=v))
    handles.append(Line2D([], [], marker="o", linestyle="none", markerfacecolor="white",
                          markeredgecolor="#555555", label="not kept"))
    style.legend_below(fig, handles, ncol=7)
    return fig
