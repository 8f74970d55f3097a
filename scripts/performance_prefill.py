"""The record's section on prefill's host side (scripts/performance_report.py): per prefill run,
the host's time recording the prompt's command buffers set against the GPU's busy time, and the
part of the wall time in which the GPU was not busy."""

from performance_common import run_of

# The record's prefill runs, by the start of their result files' names.
PREFILL_RUNS = ("prefill-", "moe-prefill-", "hybrid-prefill-", "overlapped-hybrid-prefill-")


def prefill_host_section(r):
    """One row per prefill run: its submit shape, dispatches and submits per prompt, and the
    medians of its host recording, GPU busy, wall and wall − GPU busy times."""
    out = ["", "## Prefill: the host's recording against the GPU's work (per prompt)", ""]
    idents = [i for i in r.commands if i.startswith(PREFILL_RUNS)]
    if not idents:
        return out + ["No prefill ran."]
    out += ["Every prefill run above records the prompt's command buffers on the host. Under `--submit "
            "per-prompt` the GPU starts once the whole prompt is recorded, so the recording adds to the "
            "wall time, which tokens/s counts. `chunk:N` submits every N dispatches back to back: the host "
            "records each piece while the GPU runs the ones before it, and only the first piece's recording "
            "and the submits stay outside the GPU's time. Medians over the repetitions; the last column is "
            "the wall time less the GPU's busy time, per repetition.", "",
            "| run | submit | dispatches | submits | host recording ms | GPU busy ms | wall ms | wall − GPU busy, ms |",
            "|---|---|---|---|---|---|---|---|"]
    for ident in idents:
        run, why = run_of(r, ident)
        if not run:
            out.append(f"| [`{ident}`](#commands) | missing: {why} | | | | | | |")
            continue
        s = run["summary"]
        tokens = run["samples"][-1]["prefill"]["tokens"]
        per_token = run["derived"]["counters_per_token"]["prefill"]
        record, wall = s["prefill.record_ms"]["median"], s["prefill.wall_ms"]["median"]
        if "prefill.gap_ms" in s:
            gap = s["prefill.gap_ms"]["median"]
            busy, gap_cell = f"{s['prefill.gpu_busy_ms']['median']:.2f}", f"{gap:.2f} ({gap / wall:.1%})"
        else:  # GPU busy, and so the gap, needs timestamps: a run with --profile off has neither
            busy, gap_cell = "—", "—"
        out.append(f"| [`{ident}`](#commands) | {run['config']['submit']} | {per_token['dispatches'] * tokens:.0f} | "
                   f"{per_token['submits'] * tokens:.0f} | {record:.2f} | {busy} | {wall:.2f} | {gap_cell} |")
    return out
