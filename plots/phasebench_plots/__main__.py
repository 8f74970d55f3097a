"""Command line: `python3 -m phasebench_plots chart|report FILE... --out DIR`.

`phasebench chart` and `phasebench report` exec this with the same arguments. Exit status
follows phasebench: 0 success, 2 bad input or usage (nothing written), 1 anything else."""
import argparse
import sys
from pathlib import Path

from . import charts, report
from .errors import InputError
from .loader import load_inputs


def parse(argv):
    p = argparse.ArgumentParser(prog="phasebench_plots", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("chart", help="write charts (SVG and PNG) of result, gate or cycle files")
    c.add_argument("files", nargs="+", metavar="FILE")
    c.add_argument("--kind", choices=charts.KINDS, action="append",
                   help="chart kind (repeatable); default: every kind the inputs allow")
    c.add_argument("--stage", choices=charts.STAGES, help="stage of budget, breakdown, timeline charts")
    c.add_argument("--run", type=int, help="run index for breakdown, timeline and A/B detail charts")
    c.add_argument("--metric", help="metric of the sweep chart, e.g. decode.tok_s")
    c.add_argument("--axis", help="config axis of the sweep chart, e.g. chunk_cols")
    c.add_argument("--out", required=True, type=Path, help="folder to write the charts into")
    r = sub.add_parser("report", help="write a static HTML report with every chart")
    r.add_argument("files", nargs="+", metavar="FILE")
    r.add_argument("--out", required=True, type=Path, help="folder for index.html and its charts")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    prog = f"phasebench {args.command}"
    try:
        inputs = load_inputs(args.files)
        if args.command == "report":
            page = report.write_report(inputs, args.out)
            print(f"{prog}: wrote {page}")
            return 0
        opts = charts.Options(kinds=tuple(args.kind or charts.KINDS), explicit=bool(args.kind),
                              stage=args.stage, run=args.run, metric=args.metric, axis=args.axis)
        planned = charts.plan(inputs, opts)
        if not planned:
            raise InputError(None, None, "nothing to chart for these inputs and options")
        for _chart, paths in charts.write(planned, args.out):
            for p in paths:
                print(p)
        return 0
    except InputError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
