"""The static HTML report: one page, index.html, with its charts alongside in charts/.

It needs no network and no script: inline CSS, PNG images that link to their SVGs, plain
tables. Sections follow the inputs: per result file its build/device/host info, the run
table, budgets and sweeps, then per run its tables, breakdowns and timelines; then A/B
verdicts and cycle histories."""
from datetime import datetime, timezone
from html import escape
from pathlib import Path

from . import charts, report_tables as tables
from .loader import Inputs

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px auto;
       max-width: 1320px; color: #222; line-height: 1.35; }
h1 { font-size: 22px; } h2 { font-size: 18px; border-bottom: 2px solid #ddd; margin-top: 36px; }
h3 { font-size: 15px; margin-top: 26px; }
table { border-collapse: collapse; margin: 8px 0 14px; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
table.info td:first-child { white-space: nowrap; }
figure { margin: 10px 0 22px; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 12px; color: #555; }
.ok { color: #1a7f37; font-weight: 600; } .bad { color: #b2182b; font-weight: 700; }
.v-win { color: #1a9850; font-weight: 600; } .v-regression, .v-incorrect { color: #d73027; font-weight: 600; }
.note { font-size: 12px; color: #555; }
nav a { margin-right: 12px; }
"""


def write_report(inputs: Inputs, out_dir: Path) -> Path:
    planned = charts.plan(inputs, charts.Options())
    # Charts are overwritten, never deleted: --out may be a folder that holds other files.
    written = {id(c): paths for c, paths in charts.write(planned, out_dir / "charts")}
    figures = [(c, written[id(c)]) for c in planned]
    body = [f"<h1>phasebench report</h1><p class='note'>written {_now()} from "
            + ", ".join(escape(str(p)) for p in _paths(inputs)) + "</p>"]
    for f in inputs.results:
        body.append(_result_section(f, figures))
    for g in inputs.gates:
        body.append(f"<h2>A/B gate: {escape(g.path.name)}</h2>" + tables.gate_table(g.data)
                    + _figures(figures, source=g))
    for c in inputs.cycles:
        body.append(f"<h2>Optimization cycles: {escape(c.path.name)}</h2>"
                    + _figures(figures, source=c) + tables.cycles_table(c.cycles))
    page = out_dir / "index.html"
    page.write_text("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
                    "<title>phasebench report</title>"
                    f"<style>{CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n",
                    encoding="utf-8")
    return page


def _result_section(f, figures) -> str:
    parts = [f"<h2>{escape(f.path.name)} — {escape(f.context())}</h2>", tables.info_table(f),
             "<h3>Runs</h3>", tables.runs_table(f),
             "<p class='note'>median [95% CI of the median]; below 6 repetitions no CI exists and the "
             "interquartile range is shown instead. Runs that are not ok stay in every chart, hatched "
             "and labelled.</p>",
             _figures(figures, source=f, kinds=("budget", "sweep"))]
    for r in f.runs:
        parts.append(f"<h3 id='{tables.anchor(r)}'>Run {r.index}: {escape(f.label(r))}</h3>")
        parts.append(tables.run_detail_tables(r))
        parts.append(_figures(figures, run=r))
    return "\n".join(parts)


def _figures(figures, source=None, run=None, kinds=None) -> str:
    out = []
    for chart, paths in figures:
        if (source is not None and chart.source is not source) or (run is not None and chart.run is not run):
            continue
        if kinds is not None and chart.kind not in kinds:
            continue
        if run is None and chart.run is not None:
            continue
        png = next(p for p in paths if p.suffix == ".png")
        svg = next((p for p in paths if p.suffix == ".svg"), png)
        out.append(f"<figure><a href='charts/{escape(svg.name)}'><img src='charts/{escape(png.name)}' "
                   f"alt='{escape(chart.caption)}'></a><figcaption>{escape(chart.caption)} "
                   f"(<a href='charts/{escape(svg.name)}'>SVG</a>)</figcaption></figure>")
    return "\n".join(out)


def _paths(inputs: Inputs) -> list:
    return [x.path for x in inputs.results + inputs.gates + inputs.cycles]


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
