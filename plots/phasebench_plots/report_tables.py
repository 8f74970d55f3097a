"""HTML tables of the report: build/device/host info, runs with median ± spread, counters per
token, gate verdicts and cycles. Everything shown is escaped; nothing is fetched."""
from html import escape

from .runs import ResultFile, Run, config_value, metric_label

MAIN_METRICS = ("prefill.tok_s", "decode.tok_s", "ttft_ms", "prefill.wall_ms", "prefill.gpu_busy_ms",
                "prefill.gap_ms", "decode.wall_ms", "decode.gpu_busy_ms", "decode.gap_ms")
COUNTERS = ("submits", "command_buffers", "host_waits", "dispatches", "barrier_commands",
            "memory_barriers", "buffer_barriers", "descriptor_writes", "pipeline_binds", "timestamps")


def stat_text(stat) -> str:
    """'21.7 [20.1, 23.4] n=8' with a 95% CI of the median; quartiles, marked, below 6."""
    if not stat:
        return "—"
    if stat.get("ci_low") is not None and stat.get("ci_high") is not None:
        return f"{stat['median']:.4g} [{stat['ci_low']:.4g}, {stat['ci_high']:.4g}] n={stat['n']}"
    return f"{stat['median']:.4g} (IQR {stat['q1']:.4g}–{stat['q3']:.4g}; no CI, n={stat['n']})"


def table(header, rows, cls="") -> str:
    head = "".join(f"<th>{escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>\n" for row in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>\n{body}</tbody></table>'


def info_table(f: ResultFile) -> str:
    d, t, h = f.data["device"], f.data["tool"], f.data["host"]
    rows = [
        ("build", f"phasebench {t['version']} · {t['build_type']} · commit {t['git_commit']}"),
        ("compiler / shaders", f"{t.get('compiler', '?')} · glslang {t.get('glslang', '?')} · "
                               f"cooperative-matrix shaders {_yes(t.get('coopmat_shaders'))} · "
                               f"integer-dot shaders {_yes(t.get('intdot_shaders'))}"),
        ("device", f"{d['name']} ({d.get('type', '?')}, vendor {d.get('vendor', '?')})"),
        ("driver", f"{d['driver_name']} · {d['driver_info']} · Vulkan {d['api_version']}"),
        ("subgroup / timestamps", f"subgroup {d.get('subgroup_size', '?')} "
                                  f"({d.get('min_subgroup_size', '?')}–{d.get('max_subgroup_size', '?')}) · "
                                  f"timestamp period {d.get('timestamp_period_ns', '?')} ns, "
                                  f"{d.get('timestamp_valid_bits', '?')} valid bits"),
        ("copy bandwidth", "not measured" if d["copy_bandwidth_gbps"] is None
         else f"{d['copy_bandwidth_gbps']:.3g} GB/s"),
        ("host", f"{h['os']} · {h['kernel']} · {h['cpu']} · {h.get('cores', '?')} cores"),
        ("driver environment", ", ".join(f"{k}={v}" for k, v in sorted(h["env"].items())) or "none set"),
        ("scenario", f"{f.data['scenario']['name']}: {f.data['scenario'].get('description', '')}"),
        ("created", f.data.get("created", "?")),
    ]
    return table(("", ""), [(f"<b>{escape(k)}</b>", escape(str(v))) for k, v in rows], "info")


def _yes(v) -> str:
    return "?" if v is None else config_value(v) if isinstance(v, bool) else str(v)


def runs_table(f: ResultFile) -> str:
    """One row per run: the axes that vary, status, and the main metrics; ★ marks the
    headline metric the runs' stopping rule converged on."""
    axes = f.varying_axes() or ["submit", "prefill", "barriers"]
    headlines = {r.headline for r in f.runs}
    metrics = ["prefill.tok_s", "decode.tok_s", "ttft_ms", "prefill.gap_ms", "decode.gap_ms"]
    metrics += sorted(headlines - set(metrics))
    header = ["run", *axes, "status"] + [metric_label(m) + (" ★" if m in headlines else "") for m in metrics]
    rows = [[f'<a href="#{anchor(r)}">{r.index}</a>', *[escape(config_value(r.config.get(a))) for a in axes],
             status_cell(r), *[escape(stat_text(r.stat(m))) for m in metrics]] for r in f.runs]
    return table(header, rows, "runs")


def run_detail_tables(r: Run) -> str:
    metrics = [(escape(m), escape(metric_label(m)), escape(stat_text(r.stat(m))))
               for m in MAIN_METRICS if r.stat(m)]
    reps = r.data["repetitions"]
    facts = [("status", status_cell(r)),
             ("repetitions", escape(f"{reps.get('warmup', '?')} warm-up + {reps['measured']} measured, "
                                    f"stopped: {reps['stop_reason']}")),
             ("config", escape(", ".join(f"{k}={config_value(v)}" for k, v in r.config.items())))]
    fp = r.data.get("fingerprint")
    if fp:
        facts.append(("output tokens", escape(" ".join(map(str, fp["tokens"][:24])))))
    html = table(("", ""), [(f"<b>{k}</b>", v) for k, v in facts], "info")
    html += table(("metric", "meaning", "median [95% CI] or (IQR)"), metrics, "metrics")
    cpt = r.data["derived"].get("counters_per_token") or {}
    if cpt:
        stages = [s for s in ("prefill", "decode") if s in cpt]
        rows = [[escape(c)] + [f"{cpt[s].get(c, 0):.4g}" for s in stages]
                for c in COUNTERS if any(c in cpt[s] for s in stages)]
        html += table(["counter per token"] + stages, rows, "counters")
    return html


def status_cell(r: Run) -> str:
    tag = r.status_tag()
    if not tag:
        return '<span class="ok">ok</span>'
    why = r.data.get("error") or r.data.get("incorrect_reason") or ""
    return f'<span class="bad">{escape(tag)}</span>' + (f" {escape(why)}" if why else "")


def anchor(r: Run) -> str:
    return f"{r.file.stem}-run{r.index}"


def gate_table(gate: dict) -> str:
    rows = []
    for r in gate["runs"]:
        m = r["metrics"].get(r["headline"], {})
        imp = m.get("improvement")
        ci = (f"[{100 * m['ci_low']:+.2f}%, {100 * m['ci_high']:+.2f}%]"
              if m.get("ci_low") is not None and m.get("ci_high") is not None else "—")
        rows.append([escape(r["key"]), f'<span class="v-{escape(r["verdict"])}">{escape(r["verdict"])}</span>',
                     escape(r["headline"]), "—" if imp is None else f"{100 * imp:+.2f}%", ci,
                     escape(r.get("reason") or "")])
    return table(("run", "verdict", "headline", "change", "95% CI", "reason"), rows, "gate")


def cycles_table(cycles: list) -> str:
    def pct(v):
        return "—" if v is None else f"{100 * v:+.2f}%"

    rows = [[str(c["cycle"]), escape(c["change"]), escape(c["metric"]), pct(c["delta"]),
             f"[{pct(c['ci_low'])}, {pct(c['ci_high'])}]",
             f'<span class="v-{escape(c["verdict"])}">{escape(c["verdict"])}</span>',
             "yes" if c["kept"] else "no",
             "—" if c["best_so_far"] is None else f"{c['best_so_far']:.4g}"] for c in cycles]
    return table(("cycle", "change", "metric", "delta", "95% CI", "verdict", "kept", "best so far"), rows, "cycles")
