"""A checked result file and its runs, with what every chart needs to say about them:
labels from the axes that differ, the title context, statistics and their error bars."""
from dataclasses import dataclass
from pathlib import Path

from .result_check import CONFIG_KEYS


class ResultFile:
    def __init__(self, path: Path, data: dict):
        self.path = path
        self.data = data
        self.runs = [Run(self, i, r) for i, r in enumerate(data["runs"])]

    @property
    def stem(self) -> str:
        return self.path.stem

    def varying_axes(self) -> list:
        """Config keys whose value differs between runs, in the schema's order."""
        keys = [k for k in CONFIG_KEYS + ("gguf",) if any(k in r.config for r in self.runs)]
        return [k for k in keys if len({repr(r.config.get(k)) for r in self.runs}) > 1]

    def context(self, runs=None) -> str:
        """Device, model and workload (of `runs`, default all): the line every title carries."""
        d = self.data["device"]
        runs = runs or self.runs
        return f"{_span(runs, model_text)} · {_span(runs, workload_text)} · " \
               f"{d['name']} · {d['driver_info']}"

    def label(self, run) -> str:
        return run.label(self.varying_axes())


class Run:
    def __init__(self, file: ResultFile, index: int, data: dict):
        self.file = file
        self.index = index
        self.data = data
        self.config = data["config"]
        self.status = data["status"]
        self.unsafe = data["unsafe"]

    def context(self) -> str:
        return self.file.context([self])

    def stat(self, metric: str):
        return self.data["summary"].get(metric)

    @property
    def headline(self) -> str:
        return self.data["repetitions"]["headline"]

    @property
    def samples(self) -> list:
        return self.data["samples"]

    def label(self, axes) -> str:
        """`axes` = the ones that vary across the file; with none, the submission shape."""
        keys = axes or ["submit", "prefill", "barriers"]
        return ", ".join(f"{k}={config_value(self.config.get(k))}" for k in keys)

    def status_tag(self) -> str:
        """'' for a clean run; otherwise what a chart must print next to it."""
        tags = []
        if self.status != "ok":
            tags.append(self.status.upper())
        if self.unsafe:
            tags.append("UNSAFE (barriers none)")
        return ", ".join(tags)

    def stage_tokens(self, stage: str) -> int:
        return self.config["prompt_tokens"] if stage == "prefill" else self.config["decode_tokens"]


def config_value(v) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    return "—" if v is None else str(v)


def model_text(run: Run) -> str:
    c = run.config
    return f"{c.get('gguf') or c['model']} ({c['weights']})"


def workload_text(run: Run) -> str:
    c = run.config
    return f"prompt {c['prompt_tokens']}, decode {c['decode_tokens']} tokens"


def _span(runs, text) -> str:
    values = list(dict.fromkeys(text(r) for r in runs))
    return values[0] if len(values) == 1 else " | ".join(values[:3]) + (" | …" if len(values) > 3 else "")


@dataclass
class ErrorBar:
    low: float
    high: float
    kind: str  # "ci": 95% CI of the median; "iqr": quartiles (too few samples for a CI)


def error_bar(stat) -> ErrorBar:
    if stat.get("ci_low") is not None and stat.get("ci_high") is not None:
        return ErrorBar(stat["ci_low"], stat["ci_high"], "ci")
    return ErrorBar(stat["q1"], stat["q3"], "iqr")


def metric_unit(metric: str) -> str:
    if metric.endswith("tok_s"):
        return "tokens/s"
    if metric.endswith("_ms"):
        return "ms"
    if metric.endswith("_gbps"):
        return "GB/s"
    if metric.endswith("_share"):
        return "fraction"
    return "count"


def metric_label(metric: str) -> str:
    """'decode.tok_s' -> 'decode throughput (tokens/s)'."""
    names = {"tok_s": "throughput", "wall_ms": "wall time", "gpu_busy_ms": "GPU busy time",
             "gap_ms": "CPU + submit/wait gap", "ttft_ms": "time to first token",
             "record_ms": "record time", "submit_ms": "submit time", "wait_ms": "wait time"}
    stage, _, rest = metric.rpartition(".")
    name = names.get(rest, rest.removesuffix("_ms"))
    prefix = stage.replace(".phase", " phase").replace(".", " ")
    return f"{prefix + ' ' if prefix else ''}{name} ({metric_unit(metric)})"
