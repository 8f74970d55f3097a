"""Checks the fields of a `phasebench.result/1` file that the charts and the report read."""
from .json_fields import NUMBER, Fields

STATUSES = ("ok", "incorrect", "failed")
CONFIG_KEYS = ("model", "weights", "prompt_tokens", "decode_tokens", "seed", "submit", "prefill",
               "num_cols", "chunk_cols", "barriers", "double_buffer", "skip_dead_work",
               "descriptors", "profile", "subgroup")
STAGES = ("prefill", "decode")
HOST_KINDS = ("record", "submit", "wait")


def check_result(top: Fields):
    tool = top.child("tool")
    for key in ("version", "git_commit", "build_type"):
        tool.get(key, (str,))
    device = top.child("device")
    for key in ("name", "driver_name", "driver_info", "api_version"):
        device.get(key, (str,))
    device.get("copy_bandwidth_gbps", NUMBER, nullable=True)
    host = top.child("host")
    for key in ("os", "kernel", "cpu"):
        host.get(key, (str,))
    host.child("env")
    top.child("scenario").get("name", (str,))
    runs = top.child("runs", (list,))
    if not runs.value:
        runs.fail(None, "has no runs")
    for _, run in runs.items():
        check_run(run)


def check_run(run: Fields):
    config = run.child("config")
    for key in CONFIG_KEYS:
        config.get(key, (str, int, bool))
    config.get("prompt_tokens", (int,))
    config.get("decode_tokens", (int,))
    status = run.get("status", (str,))
    if status not in STATUSES:
        run.fail("status", f"'{status}' is not one of {', '.join(STATUSES)}")
    run.get("error", (str,), nullable=True)
    run.get("unsafe", (bool,))
    reps = run.child("repetitions")
    reps.get("headline", (str,))
    reps.get("measured", (int,))
    reps.get("stop_reason", (str,))
    for _, sample in run.child("samples", (list,)).items():
        check_sample(sample)
    for _, stat in run.child("summary").items():
        check_stat(stat)
    derived = run.child("derived")
    cpt = derived.child("counters_per_token", optional=True)
    if cpt is not None:
        for name in list(cpt.value):
            stage = cpt.child(name)
            for key in stage.value:
                stage.get(key, NUMBER)
    timeline = run.child("timeline")
    for stage in STAGES:
        t = timeline.child(stage, optional=True)
        if t is not None:
            check_timeline(t)


def check_sample(sample: Fields):
    metrics = sample.child("metrics")
    for key in metrics.value:
        metrics.get(key, NUMBER)
    for name in STAGES:
        stage = sample.child(name)
        stage.get("tokens", (int,))
        for key in ("wall_ms", "record_ms", "submit_ms", "wait_ms"):
            stage.get(key, NUMBER)
        stage.get("gpu_busy_ms", NUMBER, nullable=True)
        phases = stage.child("phases_ms", nullable=True)
        if phases is not None:
            for key in phases.value:
                phases.get(key, NUMBER)
        counters = stage.child("counters")
        for key in counters.value:
            counters.get(key, NUMBER)


def check_stat(stat: Fields):
    stat.get("n", (int,))
    for key in ("median", "min", "max", "q1", "q3"):
        stat.get(key, NUMBER)
    for key in ("ci_low", "ci_high"):
        stat.get(key, NUMBER, nullable=True)


def check_timeline(t: Fields):
    if t.get("units", (str,)) != "us":
        t.fail("units", "expected 'us'")
    t.get("clock_calibrated", (bool,))
    host = t.child("host", (list,))
    _check_rows(host, (str, int, NUMBER, NUMBER), "[kind, segment, begin_us, end_us]")
    for i, row in enumerate(host.value):
        if row[0] not in HOST_KINDS:
            host.fail(i, f"span kind '{row[0]}' is not one of {', '.join(HOST_KINDS)}")
    _check_rows(t.child("gpu_segments", (list,)), (int, NUMBER, NUMBER), "[segment, begin_us, end_us]")
    _check_rows(t.child("gpu_spans", (list,)), (str, int, int, int, NUMBER, NUMBER, int),
                "[phase, segment, layer, token, begin_us, end_us, ops]")


def _check_rows(rows: Fields, types, shape):
    """Rows are positional arrays; checked in a tight loop because a timeline can hold 10^5."""
    for i, row in enumerate(rows.value):
        ok = isinstance(row, list) and len(row) >= len(types) and all(
            isinstance(v, t if isinstance(t, tuple) else (t,)) and not isinstance(v, bool)
            for v, t in zip(row, types))
        if not ok:
            rows.fail(i, f"expected {shape}, found {row!r:.80}")
