#!/usr/bin/python3
"""Writes docs/PERFORMANCE.md from the JSON outputs of scripts/performance.

Reads, from the results folder: kernels.json (phasebench-kernels, Google Benchmark JSON with
repetitions), pipelines.json where the driver reports pipeline statistics (phasebench-kernels
--pipeline-statistics), decode-<model>.json, profile-decode-<model>.json (the same decode with
--profile dispatch), unsafe-decode-<model>.json (the same decode with --barriers none),
prefill-<model>.json, moe-prefill-<model>.json, moe-decode-<model>.json and
moe-decode-int8-fused-<model>.json (a mixture of experts), hybrid-prefill-chunks-int8-<model>.json,
overlapped-hybrid-prefill-chunks-int8-<model>.json (the same submitted in pieces) and
hybrid-decode-int8-fused-<model>.json (Qwen3.5's hybrid; all phasebench result files)
and commands.tsv ("id<TAB>exit status<TAB>command" per command run). Every figure is the median
over the repetitions with its spread (min - max); ratios of two benchmarks take the ratio of
the medians, and the spread from the extremes of both. The decode figures and sections are in
performance_decode.py, the prefill host section in performance_prefill.py, the helpers they share in
performance_common.py.
"""

import argparse
import datetime
import math
import os
import re
import statistics
import sys

from performance_common import load, num, pct, run_of, spread_of
from performance_decode import (barrier_cost_section, decode_details, decode_figures, decode_name, decode_variant,
                                dispatch_cost_section, roofline_share)
from performance_prefill import prefill_host_section

# Dense float16 tensor-core peaks (no sparsity; FP32 accumulation runs at the same rate on these
# parts) from NVIDIA's datasheets, by a substring of the Vulkan device name, most specific first.
# The matmul figures are shares of these; other devices get no share.
MATRIX_PEAK_TFLOPS = [("H200 NVL", 835.0), ("H200", 989.0), ("H100 NVL", 835.0),
                      ("H100 PCIe", 756.0), ("H100", 989.0)]

DMMV_SHAPES = ["ffn_down", "ffn_up"]   # 4096x14336 and 14336x4096 on a GPU
DMMV_FORMATS = ["q4_k", "q8_0"]
MATMUL_ROLES = ["attn", "ffn_down", "ffn_up", "lm_head"]
MATMUL_FORMATS = ["q4_k", "f16"]
Q4_K_BYTES_PER_WEIGHT = 144.0 / 256.0


class Report:
    def __init__(self, results):
        self.results = results
        self.commands = {}  # id -> (exit status, command)
        with open(os.path.join(results, "commands.tsv")) as f:
            for line in f:
                ident, status, command = line.rstrip("\n").split("\t", 2)
                self.commands[ident] = (int(status), command)
        self.kernels = load(os.path.join(results, "kernels.json"))
        self.context = self.kernels["context"]
        self.cpu = self.context.get("device_type") == "cpu"
        self.runs = {}    # benchmark name -> its repetitions (Google Benchmark "iteration" entries)
        self.errors = {}  # benchmark name -> error message
        for b in self.kernels.get("benchmarks", []):
            if b.get("run_type") != "iteration":
                continue
            name = b["name"].removesuffix("/manual_time")
            if b.get("error_occurred"):
                self.errors[name] = b.get("error_message", "failed")
            else:
                self.runs.setdefault(name, []).append(b)
        self.rows = []

    def peak_tflops(self):
        for key, peak in MATRIX_PEAK_TFLOPS:
            if key in self.context.get("device", ""):
                return peak
        return None

    def benchmark(self, pattern):
        """The repetitions of the one benchmark whose name matches, or None."""
        names = [n for n in list(self.runs) + list(self.errors) if re.fullmatch(pattern, n)]
        if len(names) != 1 or names[0] in self.errors:
            return None
        return self.runs[names[0]]

    def add(self, figure, command, median, spread, target="", verdict=None, n=None):
        if verdict is None:
            verdict = "—"
        if self.cpu and target:
            verdict = "CPU device: not a GPU figure"
        self.rows.append((figure, command, median, spread, n, target, verdict))

    def missing(self, figure, command, why):
        status = self.commands.get(command, (None, ""))[0]
        self.rows.append((figure, command, "missing", why + (f" (exit {status})" if status else ""),
                          None, "", "failed"))


def bandwidth_cells(runs):
    """A benchmark's share of the copy bandwidth as the record shows it: (median, its GB/s and
    µs; spread; the median share)."""
    lo, med, hi = spread_of([b["roofline"] for b in runs])
    gbps = statistics.median(b["GB/s"] for b in runs)
    us = statistics.median(b["real_time"] for b in runs)
    return f"{pct(med)} ({num(gbps)} GB/s, {num(us)} µs)", f"{pct(lo)} – {pct(hi)}", med


def bandwidth_figure(r, one, kernel, role):
    """The NUM_COLS=1 row of a DMMV against the copy bandwidth; returns its shape, None if missing."""
    if not one:
        r.missing(f"{kernel} {role} NUM_COLS=1: share of copy bandwidth", "kernels", "no result")
        return None
    shape = re.search(r":([0-9]+x[0-9]+)/", one[0]["name"]).group(1)
    median, spread, share = bandwidth_cells(one)
    r.add(f"{kernel}, {role} {shape}, NUM_COLS=1: share of copy bandwidth", "kernels", median, spread, "≥ 85%",
          "meets" if share >= 0.85 else "below target", len(one))
    return shape


def dmmv_figures(r):
    for fmt in DMMV_FORMATS:
        for role in DMMV_SHAPES:
            base = rf"dmmv/{fmt}/%s/{role}:[0-9x]+/num_cols:%d"
            one = r.benchmark(base % ("spec", 1))
            shape = bandwidth_figure(r, one, f"DMMV {fmt} spec", role)
            if not shape:
                continue
            ratio_figure(r, f"DMMV {fmt} {role} {shape}: time NUM_COLS=8 / NUM_COLS=1",
                         r.benchmark(base % ("spec", 8)), one, "≤ 1.6×", lambda x: x <= 1.6)
            ratio_figure(r, f"DMMV {fmt} {role} {shape}: time shared:64 (1 column) / spec NUM_COLS=1",
                         r.benchmark(base % ("shared:64", 1)), one, "≥ 1.0× (spec never slower)",
                         lambda x: x >= 1.0)


def read_floor_figure(r, fmt):
    """The read floor at the bytes of `fmt`'s FFN matrix (ffn_up's; ffn_down has as many): the
    fastest grid of the sweep by median, as a row; returns its repetitions, None if none ran."""
    names = [n for n in r.runs if re.fullmatch(rf"read_floor/{fmt}/ffn_up:[0-9x]+/threads:[0-9]+/loads:[0-9]+", n)]
    if not names:
        r.missing(f"read floor at the bytes of the {fmt} FFN matrix", "kernels", "no result")
        return None
    best = min(names, key=lambda n: statistics.median(b["real_time"] for b in r.runs[n]))
    runs = r.runs[best]
    grid = re.search(r"threads:([0-9]+)/loads:([0-9]+)", best)
    mb = statistics.median(b["GB/s"] * b["real_time"] / 1e3 for b in runs)
    median, spread, _ = bandwidth_cells(runs)
    r.add(f"read floor: one dispatch that only reads the {fmt} FFN matrix's {num(mb)} MB (fastest of "
          f"{len(names)} grids: {grid.group(1)} threads x {grid.group(2)} loads): share of copy bandwidth", "kernels",
          median, spread, "(the most any kernel reading these bytes reaches)", None, len(runs))
    return runs


def intdot_figures(r):
    """The integer-dot DMMV (int8 inputs) on the same weights, where the build and device have it."""
    if not any(n.startswith("dmmv_intdot/") for n in list(r.runs) + list(r.errors)):
        r.add("DMMV on int8 inputs (integer dot product)", "kernels", "not available",
              f"integer dot product: {r.context.get('integer_dot_product', 'no (or kernels not compiled in)')}")
        return
    for fmt in DMMV_FORMATS:
        floor = read_floor_figure(r, fmt)
        for role in DMMV_SHAPES:
            base = rf"dmmv_intdot/{fmt}/%s/{role}:[0-9x]+/num_cols:%d"
            one = r.benchmark(base % ("dmmv", 1))
            shape = bandwidth_figure(r, one, f"DMMV {fmt} int8 inputs (integer dot)", role)
            if not shape:
                continue
            ratio_figure(r, f"DMMV {fmt} int8 inputs {role} {shape}, NUM_COLS=1: time / the read floor of its bytes",
                         one, floor, "(1.0× = as fast as reading its weights alone)", lambda x: True)
            ratio_figure(r, f"DMMV {fmt} int8 inputs {role} {shape}: time with its quantize_x / without",
                         r.benchmark(base % ("quantize_dmmv", 1)), one, "(the cost of quantizing an input "
                         "no other projection shares)", lambda x: True)
            ratio_figure(r, f"DMMV {fmt} int8 inputs {role} {shape}: time NUM_COLS=8 / NUM_COLS=1",
                         r.benchmark(base % ("dmmv", 8)), one, "≤ 1.6×", lambda x: x <= 1.6)
            ratio_figure(r, f"DMMV {fmt} int8 inputs {role} {shape}: time NUM_COLS=16 / NUM_COLS=1 (on the "
                         "matrix units where the device has them)", r.benchmark(base % ("dmmv", 16)), one,
                         "(16 columns' cost in single columns)", lambda x: True)
            ratio_figure(r, f"DMMV {fmt} {role} {shape}, NUM_COLS=1: time float inputs (spec) / int8 inputs",
                         r.benchmark(rf"dmmv/{fmt}/spec/{role}:[0-9x]+/num_cols:1"), one,
                         "(speed-up of the integer path)", lambda x: True)


# The fused kernels of decode's norm and GLU placements against the plain integer-dot DMMV on the
# same weights (dmmv_intdot_bench.cpp): (kind, role, what it adds).
FUSED_FIGURES = (
    ("norm", "attn", "writing the next RMSNorm's int8 input (norm_placement producer)"),
    ("norm", "ffn_down", "writing the next RMSNorm's int8 input (norm_placement producer)"),
    ("rms", "attn", "dividing by a deferred norm's RMS (its reader)"),
    ("glu", "ffn_gate_up", "applying the GLU to a deferred norm's gate and up, act's int8 form written "
                           "(glu_placement producer)"),
)


def fused_figures(r):
    """What each fused kernel's epilogue or prologue costs its projection (Q4_K, one column)."""
    if not any(re.match(r"dmmv_intdot/q4_k/(norm|rms|glu)/", n) for n in list(r.runs) + list(r.errors)):
        return  # no integer-dot path: intdot_figures says so
    for kind, role, what in FUSED_FIGURES:
        fused = r.benchmark(rf"dmmv_intdot/q4_k/{kind}/{role}:[0-9x]+/num_cols:1")
        plain = r.benchmark(rf"dmmv_intdot/q4_k/dmmv/{role}:[0-9x]+/num_cols:1")
        figure = f"DMMV q4_k int8 inputs {role}, NUM_COLS=1: time {what} / the plain projection"
        if fused:
            shape = re.search(r":([0-9]+x[0-9]+)/", fused[0]["name"]).group(1)
            figure = figure.replace(f"{role},", f"{role} {shape},", 1)
        ratio_figure(r, figure, fused, plain, "(what the fusion costs the projection; the dispatch it "
                     "removes is in the decode cost table)", lambda x: True)


def ratio_figure(r, figure, numerator, denominator, target, ok):
    if not numerator or not denominator:
        r.missing(figure, "kernels", "no result")
        return
    a = [b["real_time"] for b in numerator]
    b = [b["real_time"] for b in denominator]
    ratio = statistics.median(a) / statistics.median(b)
    r.add(figure, "kernels", f"{ratio:.3f}×", f"{min(a) / max(b):.3f} – {max(a) / min(b):.3f}×", target,
          ("meets" if ok(ratio) else "below target") if target.startswith(("≤", "≥")) else None,
          min(len(a), len(b)))


def matmul_figures(r):
    peak = r.peak_tflops()
    # choose_matmul offers the coopmat kernel for every format or for none.
    coopmat = any(re.match(r"matmul/[a-z0-9_]+/coopmat/", n) for n in list(r.runs) + list(r.errors))
    if not coopmat:
        r.add("matmul with cooperative matrix, 512 tokens", "kernels", "not available",
              f"cooperative matrix: {r.context.get('cooperative_matrix')}")
    for fmt in MATMUL_FORMATS:
        for role in MATMUL_ROLES:
            for variant in ("scalar", "coopmat") if coopmat else ("scalar",):
                runs = r.benchmark(rf"matmul/{fmt}/{variant}/{role}:[0-9x]+/tokens:512")
                if not runs:
                    r.missing(f"matmul {fmt} {variant}, {role}, 512 tokens: TFLOP/s", "kernels", "no result")
                    continue
                shape = re.search(r":([0-9]+x[0-9]+)/", runs[0]["name"]).group(1)
                lo, med, hi = spread_of([b["GFLOP/s"] / 1000 for b in runs])
                share = f", {pct(med / peak)} of the {peak:.0f} TFLOP/s f16 peak" if peak else ""
                target, verdict = "", None
                if variant == "coopmat":
                    target, verdict = "≥ 100 (H100/H200)", "meets" if med >= 100 else "below target"
                r.add(f"matmul {fmt} {variant}, {role} {shape}, 512 tokens: TFLOP/s", "kernels",
                      f"{num(med)}{share}", f"{num(lo)} – {num(hi)}", target, verdict, len(runs))


def prefill_figure(r, ident):
    # prefill-chunks-<model>: the same prompt in the default chunks of 32 tokens, where the
    # coopmat matmul splits K across workgroups and takes its narrow tiles; no target.
    chunked = ident.startswith("prefill-chunks-")
    model = ident.removeprefix("prefill-chunks-").removeprefix("prefill-").removesuffix("-no-coopmat")
    run, why = run_of(r, ident)
    chunks = "chunks of 32 tokens, the default" if chunked else "one chunk"
    figure = f"prefill {model} q4_k, 512 tokens through matmul ({chunks}): TFLOP/s = 2 x parameters x 512 / GPU time"
    if run and "prefill.gpu_busy_ms" not in run["summary"]:
        run, why = None, "the run has no GPU time (it took no timestamps: --profile off)"
    if not run:
        r.missing(figure, ident, why)
        return
    busy = run["summary"]["prefill.gpu_busy_ms"]
    tokens = run["config"]["prompt_tokens"]
    # Parameters from the bytes one token reads: all Q4_K but the norms (float32, under 0.1%).
    params = run["model"]["weight_bytes_per_token"] / Q4_K_BYTES_PER_WEIGHT
    tflops = lambda ms: 2.0 * params * tokens / (ms * 1e-3) / 1e12
    allowed = run["config"].get("coopmat", True)
    coop = r.context.get("cooperative_matrix", "") if allowed else "off (--no-coopmat)"
    target = "≥ 100 with coopmat (H100/H200)" if allowed else "(the scalar matmul, for comparison)"
    verdict = ("meets" if tflops(busy["median"]) >= 100 else "below target") if allowed else ""
    if chunked:
        target, verdict = "(the default chunk, for comparison)", ""
    r.add(figure + f" (cooperative matrix: {coop})", ident, num(tflops(busy["median"])),
          f"{num(tflops(busy['max']))} – {num(tflops(busy['min']))}", target, verdict, busy["n"])


def moe_figures(r, details):
    """A mixture of experts' prefill and decode (moe-prefill-<model>, moe-decode-<model>), and
    Qwen3.5's hybrid prefill in chunks, per prompt and in pieces, and decode
    (hybrid-prefill-chunks-int8-<model>, overlapped-hybrid-prefill-chunks-int8-<model>,
    hybrid-decode-int8-fused-<model>): tokens/s, median and spread. Each decode also gets its share
    of the roofline (no target: the issue's are for dense decode) and a row in `details`."""
    kinds = (("moe-prefill-", "prefill", "512 tokens through matmul (one chunk; the experts' tiled matmul on "
                                        "the matrix units where the device has them, else the expert DMMV)"),
             ("hybrid-prefill-chunks-int8-", "prefill", "Qwen3.5's hybrid, 512 tokens through matmul in the default "
                                                        "chunks of 32, int8 DMMV inputs (the experts on the "
                                                        "integer-dot DMMV: gate and up where an expert serves at "
                                                        "most 2 of a chunk's assignments, down at most 1)"),
             ("overlapped-hybrid-prefill-chunks-int8-", "prefill",
              "Qwen3.5's hybrid, the same prompt and chunks as above, submitted every 512 dispatches "
              "(`--submit chunk:512`: the host records each piece while the GPU runs the ones before)"),
             ("moe-decode-int8-fused-", "decode", "int8 DMMV inputs, the norms and the SwiGLU in their producers "
                                                  "(the experts' gate, up and SwiGLU in one dispatch)"),
             ("hybrid-decode-int8-fused-", "decode", "Qwen3.5's hybrid of Gated DeltaNet and gated attention, int8 "
                                                     "DMMV inputs, the norms and the SwiGLUs in their producers, the "
                                                     "shared expert's gate in its down projection"),
             ("moe-decode-", "decode", "float DMMV inputs"))
    for ident in r.commands:
        for prefix, phase, what in kinds:
            if not ident.startswith(prefix):
                continue
            figure = (f"{phase} {ident.removeprefix(prefix)} q4_k (mixture of experts), {what}: tokens/s "
                      "(in brackets, of GPU busy time alone)")
            run, why = run_of(r, ident)
            if not run:
                r.missing(figure, ident, why)
                continue
            s = run["summary"][f"{phase}.tok_s"]
            # tokens/s counts wall time, so the host's recording and submitting move it too; the
            # same tokens over the GPU's busy time say which of the two a spread comes from.
            tokens = run["samples"][-1][phase]["tokens"]
            busy = run["summary"].get(f"{phase}.gpu_busy_ms")  # none without timestamps (--profile off)
            gpu = lambda ms: tokens / (ms * 1e-3)
            median, spread = num(s["median"]), f"{num(s['min'])} – {num(s['max'])}"
            if busy:
                median += f" (GPU {num(gpu(busy['median']))})"
                spread += f" (GPU {num(gpu(busy['max']))} – {num(gpu(busy['min']))})"
            r.add(figure, ident, median, spread, n=s["n"])
            if phase == "decode":
                name = decode_name(f"{ident.removeprefix(prefix)} (mixture of experts)", run["config"])
                share = roofline_share(run)
                if share:
                    r.add(f"{phase} {ident.removeprefix(prefix)} q4_k (mixture of experts), {what}: share of the "
                          "roofline (copy bandwidth / the weight bytes a token reads: the experts it chooses and "
                          "every layer's other weights)", ident, pct(share[0]), f"{pct(share[1])} – {pct(share[2])}",
                          n=s["n"])
                details.append(decode_details(name, run))
            break  # the int8 decode's prefix starts with the float one's


def pipeline_section(r):
    """The driver's statistics of the DMMV pipelines (pipelines.json), or why there are none."""
    out = ["", "## Pipelines: what the driver compiled", ""]
    path = os.path.join(r.results, "pipelines.json")
    if not os.path.exists(path):
        return out + ["The driver reports no pipeline statistics (VK_KHR_pipeline_executable_properties), "
                      "so registers and local memory per kernel are not recorded here."]
    rows, keys = [], []
    for b in load(path).get("benchmarks", []):
        if b.get("run_type") != "iteration" or b.get("error_occurred"):
            continue
        by_label = {}
        for k, v in b.items():
            if "." in k and not k.startswith(("real_", "cpu_")):
                label, stat = k.split(".", 1)
                by_label.setdefault(label, {})[stat] = v
                if stat not in keys:
                    keys.append(stat)
        for label, stats in by_label.items():
            rows.append((b["name"].removesuffix("/manual_time"), label, stats))
    out += ["As `phasebench-kernels --pipeline-statistics` reports them (the driver's own names; "
            "[`pipelines`](#commands)): what specialization removes shows in `spec` against `shared:64`, "
            "the same weights and one column. On NVIDIA's driver 580 `local_memory_size` reads 2^36 "
            "(68719476736) plus the local memory in bytes.", "",
            "| benchmark | pipeline | " + " | ".join(keys) + " |", "|---|---|" + "---|" * len(keys)]
    for name, label, stats in rows:
        out.append(f"| {name} | {label} | " + " | ".join(f"{stats[k]:.0f}" if k in stats else "" for k in keys) + " |")
    return out


def steadiness(c):
    """What phasebench-kernels measured about its own run (kernels/bench/steadiness.h)."""
    if "copy_bandwidth_end_gbps" not in c:
        return "not stated (a phasebench-kernels older than its steadiness check)"
    return (f"copy bandwidth {c.get('copy_bandwidth_gbps')} GB/s at the start and "
            f"{c['copy_bandwidth_end_gbps']} GB/s at the end; the widest spread of one benchmark's repetitions "
            f"(slowest over fastest): {c.get('repetition_spread_widest')}; "
            f"{c.get('repetition_spread_over_limit')} benchmark(s) over {c.get('repetition_spread_limit')}")


def device_bandwidths(r):
    """The copy bandwidth as each run of the record measured it, in the order they ran: the
    kernel run's at its start and end, then each `phasebench run`'s at its start and (where its
    result file holds it) at its end. (label, GB/s)."""
    measured = []
    for key, label in (("copy_bandwidth_gbps", "kernels, start"), ("copy_bandwidth_end_gbps", "kernels, end")):
        try:
            measured.append((label, float(r.context[key])))
        except (KeyError, ValueError):
            pass
    for ident in r.commands:
        path = os.path.join(r.results, ident + ".json")
        if ident in ("kernels", "pipelines") or not os.path.exists(path):
            continue
        device = load(path).get("device", {})
        for key, label in (("copy_bandwidth_gbps", ident), ("copy_bandwidth_end_gbps", ident + ", end")):
            gbps = device.get(key)
            if isinstance(gbps, (int, float)) and gbps > 0:
                measured.append((label, float(gbps)))
    return measured


def bandwidth_across_runs(r, limit=0.05):
    """The header's line on whether the device stayed as it was from the first run to the last."""
    measured = device_bandwidths(r)
    if len(measured) < 2:
        return "measured fewer than twice"
    lowest = min(measured, key=lambda m: m[1])
    highest = max(measured, key=lambda m: m[1])
    apart = highest[1] / lowest[1] - 1
    text = (f"measured {len(measured)} times (the kernel run's start and end, then each `phasebench run`'s "
            f"start and end): {num(lowest[1])} – {num(highest[1])} GB/s, {pct(apart)} apart")
    if apart > limit:
        text += (f"; **more than {pct(limit)}: the device changed during the record (lowest at `{lowest[0]}`, "
                 f"highest at `{highest[0]}`), so its figures may not compare with each other**")
    return text


def markdown(r, details, models, invocation):
    c = r.context
    out = ["# Performance record", "",
           f"Written by `{invocation}` from the JSON outputs of that run; do not edit by hand. "
           "Rerun it when a kernel changes (`scripts/performance --device D`). Medians over the "
           "repetitions, spread = min – max; kernel times are GPU time from timestamp queries.", ""]
    if r.cpu:
        out += ["> **These figures are from the CPU device (lavapipe), not a GPU.** The kernel benchmarks "
                "ran their small shapes (" + c.get("shapes_note", "") + ") and the models are the tiny "
                "presets (" + ", ".join(models) + "); the targets are GPU targets and do not apply. "
                "They were taken on a machine whose 2 cores other builds were sharing, so they are noisy; "
                "they show that the pipeline runs end to end, not how fast the kernels are. "
                "The GPU figures come from the lead's run of this script on the H100/H200.", ""]
    out += ["| | |", "|---|---|",
            f"| device | {c.get('device')} ({c.get('device_type')}) |",
            f"| driver | {c.get('driver')} (version {c.get('driver_version')}), Vulkan {c.get('vulkan_api')} |",
            f"| copy bandwidth (roofline) | {c.get('copy_bandwidth_gbps')} GB/s: {c.get('copy_bandwidth_detail')} |",
            f"| steadiness of the kernel run | {steadiness(c)} |",
            f"| copy bandwidth across the record's runs | {bandwidth_across_runs(r)} |",
            f"| cooperative matrix | {c.get('cooperative_matrix')} |",
            f"| phasebench | {c.get('phasebench_commit')} ({c.get('phasebench_build')}) |",
            f"| kernel inputs | {c.get('rotation')} |",
            f"| date | {c.get('date', datetime.date.today().isoformat())} |", ""]
    out += ["## Figures", "",
            "| Figure | Device | Driver | Command | Median | Spread (min – max) | n | Target | Verdict |",
            "|---|---|---|---|---|---|---|---|---|"]
    for figure, command, median, spread, n, target, verdict in r.rows:
        out.append(f"| {figure} | {c.get('device')} | {c.get('driver')} | [`{command}`](#commands) | {median} | "
                   f"{spread} | {n if n else ''} | {target} | {verdict} |")
    out += ["", "End-to-end prefill runs twice: with the matmul the engine chooses (cooperative matrix where "
            "the device and build have it) and with `--no-coopmat` (the scalar tiled matmul); the matmul rows "
            "compare the two kernels per shape at the same 512 tokens.",
            "", "## Decode: what stands between the figure and the roofline (per token)", "",
            "| model | weight bytes read | dispatches | barriers | submits | host waits | GPU busy ms | wall ms | CPU + submit gap ms |",
            "|---|---|---|---|---|---|---|---|---|"]
    for model, pt, ms, wbytes in details:
        out.append(f"| {model} | {wbytes / 1e6:.1f} MB | {pt['dispatches']:.1f} | {pt['barrier_commands']:.1f} | "
                   f"{pt['submits']:.1f} | {pt['host_waits']:.1f} | {ms.get('gpu_busy', math.nan):.3f} | "
                   f"{ms.get('wall', math.nan):.3f} | {ms.get('gap', math.nan):.3f} |")
    out += barrier_cost_section(r)
    out += dispatch_cost_section(r)
    out += prefill_host_section(r)
    out += pipeline_section(r)
    out += ["", "## Commands", "", "Run from the repository root by `scripts/performance`; the exit status in brackets.", ""]
    for ident, (status, command) in r.commands.items():
        out.append(f"- `{ident}` [{status}]: `{command}`")
    return "\n".join(out + USAGE)


# How to read and rerun the kernel benchmarks: the same on every device, so kept here verbatim.
USAGE = """
## phasebench-kernels

`build/kernels/bench/phasebench-kernels [--device D] [--validate] [--cache cold|hot] [--pipeline-statistics] [Google Benchmark flags]`
runs one benchmark per kernel x format x variant x shape, named so that `--benchmark_filter`
(a regular expression) picks any slice:

| family | names |
|---|---|
| DMMV | `dmmv/{f16,q8_0,q4_k,q6_k}/{spec,shared:32,shared:64}/{attn,ffn_down,ffn_up,lm_head}:RxC/num_cols:{1,2,4,...,64}` (shared:32 up to 32), `dmmv_tuning/FMT/ROLE:RxC/num_cols:N/threads:T/rows:R/unroll:U/columns:{unrolled,rolled}` the spec kernel under each candidate shape and column loop |
| DMMV, int8 inputs | `dmmv_intdot/{q8_0,q4_k,q6_k}/{dmmv,quantize_dmmv}/ROLE:RxC/num_cols:{1,2,4,8,16}` (`quantize_dmmv` includes the input's quantize_x), `dmmv_intdot/FMT/dmmv/ffn_gate_up:28672x4096/num_cols:1` (gate and up stacked, one dispatch), the fused kernels of decode's placements at one column: `dmmv_intdot/FMT/norm/{attn,ffn_down}:RxC` (the residual projection that writes the next norm's int8 input), `dmmv_intdot/FMT/rms/ROLE:RxC` (a projection of that input, dividing by its RMS) `dmmv_intdot/FMT/glu/ffn_gate_up:28672x4096` (gate and up of such an input, applying the GLU) and `dmmv_intdot/FMT/gated/{attn,ffn_down}:RxC` (the projection that scales its output by a sigmoid gate and adds it into y: Qwen3.5's shared expert's down), `dmmv_intdot_tuning/FMT/ROLE:RxC/num_cols:{1,2,4,8,16}/threads:T/rows:R/unroll:U` and the same with `/chunk:C` (Q4_K: 16-weight chunks, sub-blocks of 32 and 64-weight chunks; Q8_0: whole blocks of 32; without it, the default for the width) (where the device and build have integer dot products); `dmmv` is the engine's choice, `dot` the integer-dot kernel and `matrix` the cooperative-matrix one (`dmmv_coopmat_q8_0`, `dmmv_coopmat_q4_k`) at every width, `dmmv_coopmat_tuning/FMT/ROLE:RxC/num_cols:N/subgroups:S/rows:R/step:K` its shapes (where the device has 16x16x16 f16 cooperative matrices); `int8mat` the int8 matrix kernel (`dmmv_int8mat_q8_0`, `dmmv_int8mat_q4_k`) at 8 and 16 columns, `dmmv_int8mat_tuning/FMT/ROLE:RxC/num_cols:N/subgroups:S/rows:R/step:B` its shapes (where the device has 16x8x32 int8 cooperative matrices; on rows of more than 8192 inputs each also with `/splits:{1,2,4,8}`, K split across that many workgroups, the `_split` kernels) |
| matmul | `matmul/{f16,q8_0,q4_k,q6_k}/{scalar,coopmat}/ROLE:RxC/tokens:{128,512}` (coopmat where the device and build have it, also at `tokens:32`, each as the engine runs it: K split across workgroups where the tiles are few), `matmul/FMT/coopmat_unsplit/ROLE:RxC/tokens:{32,128}` the same without the split, `matmul_coopmat_tuning/FMT/ROLE:RxC/tokens:N/bm:M/bn:N/bk:K/wm:A/wn:B/stages:S` the cooperative-matrix kernel under each candidate tiling that fits the device, `matmul_split_reduce_glu/n:F/splits:8/cols:32` and `matmul_split_reduce_gated/n:H/splits:4/cols:32` (a split's reduction applying the gated unit, or a shared expert's sigmoid gate and residual add) |
| attention | `attn_decode/h32kv8d128/ctx:{64,512,4096,32768}`, `attn_decode_rope/h32kv8d128/ctx:{64,512,4096,32768}` (the same with the token's own q/k norm, RoPE and KV write in the dispatch, as decode runs it), `attn_decode_rope_tuning/h32kv8d128/ctx:C/heads:H/threads:T/keys:K/split:S` (that kernel under each candidate tile that fits: q heads per workgroup, threads, keys per tile, and the smallest split, which short contexts keep here), `attn_prefill/h32kv8d128/tokens:512` |
| attention, int8 decode | `attn_decode_quantize/h32kv8d128/ctx:C`, `attn_decode_rope_quantize/h32kv8d128/ctx:C` (the forms whose last dispatch also writes the output's int8 blocks for the o-projection; where the build has them) |
| element-wise | `rmsnorm/n:4096/cols:{1,512}`, `qk_norm_rope/h32kv8d128/cols:{1,512}`, `qk_norm_rope_kv/h32kv8d128/cols:{1,512}` (with the KV write), `kv_write/h32kv8d128/cols:{1,512}` (the KV write alone), `glu/n:14336/cols:{1,512}`, `rmsnorm_quantize/n:4096/cols:{1,512}` and `glu_quantize/n:14336/cols:{1,512}` (also writing the int8 form; where the build has them), `add/n:4096/cols:{1,512}` (the residual add), `sigmoid_mul/n:4096/cols:{1,512}` (the attention output gate), `argmax/vocab:151936/cols:1`, `argmax_slices/vocab:151936/cols:1` |
| embedding | `embed/{q4_k,f16}/vocab:151936/n:4096/cols:{1,512}`, `embed_norm/{q4_k,f16}/vocab:151936/n:4096/cols:1` (the decode form that also writes the first norm's int8 input); each invocation reads rows of its own |
| mixture of experts | qwen3-30b-a3b's: `moe_topk/e:128/top:8/tokens:{1,32,64,128}`, `moe_group/...`, `moe_topk_group/e:128/top:8/tokens:1` (a decode token's routing and work list in one dispatch), `moe_topk_chunk_group/e:128/top:8/tokens:{32,64,128}` (a prefill chunk's, its last workgroup grouping the routes), `moe_acc/n:2048/...`, `moe_acc_norm/n:2048/top:8/tokens:1` (decode's, writing the next norm), `moe_dmmv/{f16,q8_0,q4_k,q6_k}/{gate:128x768x2048,down:128x2048x768}/top:8/tokens:{1,32,64,128}` (each invocation routes its own tokens over its own weight copy; the bytes count the experts chosen), `moe_dmmv_intdot/{q8_0,q4_k,q6_k}/...` (on int8 inputs), `moe_dmmv_intdot_glu/FMT/gate:128x768x2048/top:8/tokens:1` (decode's routing, gate, up and SwiGLU in one dispatch), `moe_dmmv_intdot_acc_norm/FMT/down:128x2048x768/top:8/tokens:1` (decode's down adding the experts into the residual and writing the next norm), `moe_matmul/FMT/{scalar,coopmat}/ROLE:ExRxC/top:8/tokens:{32,64,128}` (the experts' tiled matmul; coopmat where the device has it), `moe_dmmv_tuning/FMT/ROLE:ExRxC/top:8/tokens:N/threads:T/rows:R/num_cols:P`, `moe_dmmv_intdot_tuning/FMT/ROLE:ExRxC/top:8/tokens:N/threads:T/rows:R/unroll:U/num_cols:P` (at passes of one also with `/lanes:L`: row teams of L invocations, R rows each), `moe_dmmv_intdot_acc_norm_tuning/FMT/down:ExRxC/top:8/tokens:1/threads:T/rows:R/unroll:U` (and with `/lanes:L`) and `moe_matmul_coopmat_tuning/FMT/ROLE:ExRxC/top:8/tokens:N/bm:M/wm:A/bk:K/stages:S` |
| Gated DeltaNet | qwen35-35b-a3b's: `ssm_conv/hk16hv32dk128dv128k4/tokens:{1,64}`, `ssm_delta/hk16hv32dk128dv128/tokens:{1,64}`, `ssm_conv_delta/hk16hv32dk128dv128k4/tokens:{1,64}` (the two in one dispatch, as decode runs them), `ssm_conv_delta_gnorm/hk16hv32dk128dv128k4/tokens:1` (and the output norm writing its int8 blocks, as an int8 decode runs them), `ssm_gnorm/hk16hv32dk128dv128/tokens:{1,64}`, `ssm_gnorm_quantize/hk16hv32dk128dv128/tokens:{1,64}` |
| dispatch floor | `dispatch_floor/fill_zero:64` (one pipeline back to back), `dispatch_floor/fill_zero+add:64` (two alternating): what a dispatch behind a global barrier costs before any work |
| read floor | `read_floor/{q4_k,q8_0}/ROLE:RxC/threads:{32,...,512}/loads:{1,2,4,8,16}`: one dispatch that only reads as many bytes as that weight matrix (Q4_K: every role and `ffn_gate_up`; Q8_0: `ffn_up`), in T invocations per workgroup with L 16-byte loads each in flight; the most a kernel of those bytes can reach |
| sequences | `sequence/A+B` (two neighbours of the int8 decode stream, alternating), `sequence/int8_decode_layer` (a dense layer's ten dispatches in the engine's order) `sequence/int8_decode_layer_stacked` (gate and up as one dispatch) and `sequence/int8_decode_layer_rope_in_attention` (and the RoPE inside the attention: the engine's decode layer), built from the benchmarks above: set against the sum of their parts, what a dispatch costs after another kernel rather than after itself |

Shapes are rows x cols = outputs x inputs of the 8B presets (4096x4096, 4096x14336, 14336x4096,
the LM head 151936x4096); the experts' are E x rows x cols. On the CPU device the same names carry small shapes (the context's
`shapes` is `cpu-small` and every entry's label says so). Google Benchmark appends
`/manual_time` to every name.

- **Time** is GPU time from timestamp queries (`UseManualTime`): each timed command buffer holds
  back-to-back invocations, one per rotation copy of the inputs (a global barrier after each
  dispatch, as the engine's default schedule), and the reported time is per invocation. The
  copies total at least 512 MiB on a GPU so that no last-level cache holds the weights;
  `--cache hot` reads one copy instead, so inputs that fit stay cache-resident (the context's
  `rotation` says which). Weights, activations and KV cache are synthetic and non-zero,
  generated on the device.
- **Counters** come from each kernel's bytes and FLOPs model (kernels/bench/kernel_cost.h):
  `GB/s`, `GFLOP/s`, `bytes_per_second`, and `roofline` = achieved GB/s / the copy bandwidth
  measured at start (in the context, with device, driver and phasebench commit). `copies` is the
  rotation depth. With `--pipeline-statistics` (where the driver has
  VK_KHR_pipeline_executable_properties) every pipeline of a benchmark adds the driver's figures
  as counters `LABEL.STATISTIC`: on NVIDIA `register_count`, `local_memory_size`,
  `shared_memory_size`, `stack_size` and `binary_size`; other drivers name their own (RADV's
  include VGPRs, SGPRs and their spills).
- **Flags**: `--benchmark_filter`, `--benchmark_repetitions`, `--benchmark_min_time` (seconds),
  `--benchmark_format=json`, `--benchmark_out=F` and the rest work as in Google Benchmark;
  `--device D`, `--validate`, `--cache` and `--pipeline-statistics` are phasebench's. Exit status 0, 1 when a benchmark failed (its
  `error_message` says why), 2 for bad usage. The warning that the library "was built as DEBUG"
  is about Debian's libbenchmark, not the kernels, and does not affect GPU time.
- **Comparing two builds**: the JSON is Google Benchmark's own, so its compare tool works on it.
  From the Google Benchmark sources (`git clone https://github.com/google/benchmark`, then
  `pip install -r benchmark/tools/requirements.txt`):
  `benchmark/tools/compare.py benchmarks A.json B.json` for two runs, or
  `benchmark/tools/compare.py filters kernels.json 'num_cols:1/' 'num_cols:8/'` within one.
  Run with `--benchmark_repetitions=5` or more so it can test the difference (Mann-Whitney U).
""".splitlines()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", required=True, help="folder scripts/performance wrote")
    parser.add_argument("--out", required=True, help="markdown file to write")
    parser.add_argument("--invocation", default="scripts/performance", help="the command that ran it")
    args = parser.parse_args()
    try:
        r = Report(args.results)
    except (OSError, ValueError, KeyError) as e:
        print(f"performance_report: cannot read the results in {args.results}: {e}", file=sys.stderr)
        return 2
    # Per model, the float run, then the int8-input ones.
    decode_runs = sorted((i for i in r.commands if i.startswith("decode-")), key=decode_variant)
    models = sorted({decode_variant(i)[0] for i in decode_runs})
    details = []
    dmmv_figures(r)
    intdot_figures(r)
    fused_figures(r)
    decode_figures(r, decode_runs, details)
    for ident in r.commands:
        if ident.startswith("prefill-"):
            prefill_figure(r, ident)
    moe_figures(r, details)
    matmul_figures(r)
    with open(args.out, "w") as f:
        f.write(markdown(r, details, models, args.invocation))
    return 0


if __name__ == "__main__":
    sys.exit(main())
