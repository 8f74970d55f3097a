"""The record's decode figures and sections (scripts/performance_report.py): tokens/s and roofline
share per decode run, what each kind of dispatch costs (profile-decode-<model>.json), and what
the barriers cost (unsafe-decode-<model>.json against its twin with the ledger's barriers)."""

import math

from performance_common import num, pct, run_of, spread_of


# Decode runs are named decode-[int8-[fused-]]MODEL: float inputs, int8 inputs, and int8 inputs
# with the norms and gated units applied by the projections before them (norm_placement and
# glu_placement: producer).
DECODE_VARIANTS = ("decode-int8-fused-", "decode-int8-", "decode-")


def decode_variant(ident):
    """(model, variant index in DECODE_VARIANTS' reverse order: 0 float, 1 int8, 2 int8 fused)."""
    for i, prefix in enumerate(DECODE_VARIANTS):
        if ident.startswith(prefix):
            return ident.removeprefix(prefix), len(DECODE_VARIANTS) - 1 - i
    raise ValueError(f"not a decode run: {ident}")


def decode_name(model, config):
    """The model and what its decode ran on, from the run's config."""
    name = f"{model} q4_k"
    if config.get("dmmv_activations") == "int8":
        name += ", int8 DMMV inputs"
        moved = [what for key, what in (("norm_placement", "norms"), ("glu_placement", "gated units"))
                 if config.get(key) == "producer"]
        if moved:
            name += ", " + " and ".join(moved) + " in the producers"
    return name


def decode_figures(r, idents, details):
    for ident in idents:
        model, variant = decode_variant(ident)
        fused = "producer" if variant == 2 else "dispatch"
        name = decode_name(model, {"dmmv_activations": "int8" if variant else "float", "norm_placement": fused,
                                   "glu_placement": fused})
        run, why = run_of(r, ident)
        if not run:
            r.missing(f"decode {name}: tok/s and roofline share", ident, why)
            continue
        tok = run["summary"]["decode.tok_s"]
        r.add(f"decode {name}: tokens/s", ident, num(tok["median"]),
              f"{num(tok['min'])} – {num(tok['max'])}", n=tok["n"])
        share = roofline_share(run)
        if share:
            r.add(f"decode {name}: share of the roofline (copy bandwidth / weight bytes per token)",
                  ident, pct(share[0]), f"{pct(share[1])} – {pct(share[2])}",
                  "≥ 50% (then 80%)", "meets" if share[0] >= 0.5 else "below target", tok["n"])
        details.append(decode_details(name, run))


def roofline_share(run):
    """A decode run's share of the roofline (derived from its median tokens/s) and the spread its
    tokens/s give it, or None where the run measured no copy bandwidth."""
    tok = run["summary"]["decode.tok_s"]
    share = run["derived"].get("decode_roofline_share")
    if not share:
        return None
    scale = share / tok["median"]
    return share, tok["min"] * scale, tok["max"] * scale


def decode_details(name, run):
    """A row of the record's table of what stands between a decode and the roofline: per token,
    the run's counters and its median wall, GPU busy and gap times, and the weight bytes read."""
    per_token = run["derived"]["counters_per_token"]["decode"]
    tokens = run["samples"][-1]["decode"]["tokens"] or 1
    ms = {k: run["summary"][f"decode.{k}_ms"]["median"] / tokens for k in ("wall", "gpu_busy", "gap")
          if f"decode.{k}_ms" in run["summary"]}
    return name, per_token, ms, run["model"]["weight_bytes_per_token"]


def section_head(r, title, prefix):
    """A record section's heading, and the runs whose result files are named prefix<model>."""
    return ["", f"## {title}", ""], [i for i in r.commands if i.startswith(prefix)]


def dispatch_cost_section(r):
    """Per token, each phase's dispatches and GPU time in the decode with a timestamp around
    every dispatch (profile-decode-<model>.json), against the same decode without them."""
    out, idents = section_head(r, "Decode: the measured cost of each kind of dispatch (per token)", "profile-decode-")
    if not idents:
        return out + ["No profiled decode ran."]
    out += ["The same decode as the figures above with `--profile dispatch` (a timestamp between "
            "every two dispatches), in a run of its own: the figures above carry timestamps only at "
            "each submit's start and end (`--profile submit`). Per phase: dispatches per token (from "
            "the last repetition's timeline), GPU time per token (median over the repetitions, min – max) and per dispatch, and its "
            "share of the profiled GPU busy time. With barriers only where the hazard ledger finds "
            "a dependency, dispatches that overlap on the GPU each count their own span.", ""]
    for ident in idents:
        model = ident.removeprefix("profile-decode-")
        run, why = run_of(r, ident)
        if not run:
            out += [f"**{model}**: missing, {why} ([`{ident}`](#commands)).", ""]
            continue
        name = decode_name(model, run["config"])
        tokens = run["samples"][-1]["decode"]["tokens"] or 1
        ops, order = {}, []
        for span in run["timeline"]["decode"]["gpu_spans"]:
            if span[0] not in ops:
                order.append(span[0])
            ops[span[0]] = ops.get(span[0], 0) + span[6]
        # Spans are [phase, segment, layer, token, start, end, dispatches]: the timeline's tokens.
        timeline_tokens = len({span[3] for span in run["timeline"]["decode"]["gpu_spans"]}) or 1
        busy = run["summary"]["decode.gpu_busy_ms"]
        out += [f"**{name}** ([`{ident}`](#commands), {busy['n']} repetitions of {tokens} tokens):", "",
                "| phase | dispatches | GPU µs | min – max | µs per dispatch | share |",
                "|---|---|---|---|---|---|"]
        for phase in order:
            stat = run["summary"].get(f"decode.phase.{phase}_ms")
            if not stat:
                continue
            per_token = ops[phase] / timeline_tokens
            us = stat["median"] * 1e3 / tokens
            out.append(f"| {phase} | {per_token:.2f} | {us:.1f} | {stat['min'] * 1e3 / tokens:.1f} – "
                       f"{stat['max'] * 1e3 / tokens:.1f} | {us / per_token:.2f} | "
                       f"{pct(stat['median'] / busy['median'])} |")
        total = sum(ops.values()) / timeline_tokens
        out.append(f"| all | {total:.2f} | {busy['median'] * 1e3 / tokens:.1f} | {busy['min'] * 1e3 / tokens:.1f} – "
                   f"{busy['max'] * 1e3 / tokens:.1f} | {busy['median'] * 1e3 / tokens / total:.2f} | 100% |")
        plain, _ = run_of(r, safe_twin(run, model))
        if plain:
            base = per_token_ms(plain)
            prof = busy["median"] / tokens
            out += ["", f"What the timestamps cost: GPU busy {prof:.3f} ms per token with one between every two "
                        f"dispatches, against {base:.3f} ms with one at each submit's start and end "
                        f"({100 * (prof / base - 1):+.1f}%). Each waits for all the work before it, which "
                        "also keeps dispatches the ledger leaves unordered from overlapping."]
        out.append("")
    return out


def safe_twin(run, model):
    """The result file of the figure run that `run` repeats with other barriers or timestamps:
    the same DMMV inputs and placements."""
    int8 = run["config"].get("dmmv_activations") == "int8"
    fused = int8 and run["config"].get("norm_placement") == "producer"
    return ("decode-int8-fused-" if fused else "decode-int8-" if int8 else "decode-") + model


def per_token_ms(run):
    """A decode run's GPU busy time per token, ms (median over its repetitions)."""
    return run["summary"]["decode.gpu_busy_ms"]["median"] / (run["samples"][-1]["decode"]["tokens"] or 1)


def barrier_cost_section(r):
    """Per token, the fastest decode's GPU busy time with the hazard ledger's barriers against the
    same decode with none (unsafe-decode-<model>.json): what the waits between dependent
    dispatches cost, and how fast the same dispatches stream the weights without them."""
    out, idents = section_head(r, "Decode: what the barriers cost (per token)", "unsafe-decode-")
    if not idents:
        return out + ["No decode without barriers ran."]
    out += ["The fastest decode above run again with `--barriers none`: nothing orders a dispatch after "
            "the one whose output it reads, so it may start early and its tokens may be wrong (the result "
            "file marks the run unsafe, and such runs never gate). It is not a figure: it says how much of "
            "the distance to the roofline is the waits at the barriers (each drains the GPU before the next "
            "dispatch starts) and how fast the same dispatches stream the weights without them. GPU busy "
            "time per token, medians.", "",
            "| model | barriers | GPU busy ms, ledger barriers | GPU busy ms, none (unsafe) | the waits, ms | "
            "µs per barrier | weights streamed without barriers |",
            "|---|---|---|---|---|---|---|"]
    copy = r.context.get("copy_bandwidth_gbps")
    for ident in idents:
        model = ident.removeprefix("unsafe-decode-")
        run, why = run_of(r, ident)
        if not run:
            out.append(f"| {model} | missing: {why} ([`{ident}`](#commands)) | | | | | |")
            continue
        name = decode_name(model, run["config"])
        safe, why = run_of(r, safe_twin(run, model))
        if not safe:
            out.append(f"| {name} | missing: its run with barriers: {why} | | | | | |")
            continue
        barriers = safe["derived"]["counters_per_token"]["decode"]["barrier_commands"]
        with_ms, without_ms = per_token_ms(safe), per_token_ms(run)
        waits = with_ms - without_ms
        gbps = run["model"]["weight_bytes_per_token"] / (without_ms * 1e-3) / 1e9
        share = f", {pct(gbps / float(copy))} of the copy bandwidth" if copy else ""
        out.append(f"| {name} ([`{ident}`](#commands)) | {barriers:.1f} | {with_ms:.3f} | {without_ms:.3f} | "
                   f"{waits:.3f} | {waits * 1e3 / barriers if barriers else math.nan:.2f} | {num(gbps)} GB/s{share} |")
    floor = r.benchmark(r"dispatch_floor/fill_zero:64")
    if floor:
        lo, med, hi = spread_of([b["real_time"] for b in floor])
        out += ["", f"An empty dispatch behind a barrier takes {num(med)} µs here ({num(lo)} – {num(hi)}, "
                    f"`dispatch_floor/fill_zero:64` in [`kernels`](#commands), median of {len(floor)}): that much of "
                    "each wait is there even when the dispatches on either side do nothing. The rest is theirs: "
                    "the last workgroups of one draining, and the first loads of the next waiting for memory."]
    return out
