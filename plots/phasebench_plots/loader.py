"""Reads and checks the three kinds of input the charts take.

- result files (`phasebench.result/1`, results/schema/result.schema.json),
- gate verdicts (`phasebench gate A B --json`, schema `phasebench.gate/1`),
- cycle histories (`phasebench cycles --format json`, an array of cycles).

Every file is read and checked before any chart is drawn, so a bad file leaves no partial
output. The checks cover the fields the charts and the report read, not the whole schema
(the C++ writer is tested against the JSON Schema); each failure names the file and field.
"""
import json
from dataclasses import dataclass, field
from pathlib import Path

from .errors import InputError
from .json_fields import NUMBER, Fields
from .result_check import check_result
from .runs import ResultFile

RESULT_SCHEMA = "phasebench.result/1"
GATE_SCHEMA = "phasebench.gate/1"
VERDICTS = ("win", "regression", "flat", "inconclusive", "incorrect", "unsafe")


@dataclass
class GateFile:
    path: Path
    data: dict


@dataclass
class CycleFile:
    path: Path
    cycles: list


@dataclass
class Inputs:
    results: list = field(default_factory=list)
    gates: list = field(default_factory=list)
    cycles: list = field(default_factory=list)


def load_inputs(paths) -> Inputs:
    """Loads every file, sorted by kind; raises InputError on the first bad one."""
    inputs = Inputs()
    for p in paths:
        path = Path(p)
        data = read_json(path)
        if isinstance(data, list):
            inputs.cycles.append(CycleFile(path, check_cycles(path, data)))
            continue
        top = Fields(path, data)
        schema = top.get("schema", (str,))
        family = schema.split("/")[0]
        if family == RESULT_SCHEMA.split("/")[0]:
            expect_version(path, schema, RESULT_SCHEMA)
            check_result(top)
            inputs.results.append(ResultFile(path, data))
        elif family == GATE_SCHEMA.split("/")[0]:
            expect_version(path, schema, GATE_SCHEMA)
            check_gate(top)
            inputs.gates.append(GateFile(path, data))
        else:
            raise InputError(path, "schema",
                             f"'{schema}' is not a phasebench input; expected {RESULT_SCHEMA}, "
                             f"{GATE_SCHEMA}, or an array from `phasebench cycles --format json`")
    return inputs


def _ends_inside_a_value(text):
    """True when the text stops inside a string or an unclosed object or array: a file cut short,
    wherever the parser happened to notice it (a cut inside a number fails before the end)."""
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
    return in_string or depth > 0


def read_json(path: Path):
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(path, None, "no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(path, None, f"cannot read: {e}") from None
    if not text.strip():
        raise InputError(path, None, "the file is empty")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        truncated = e.pos >= len(text.rstrip()) or _ends_inside_a_value(text)
        what = "truncated JSON (it ends early)" if truncated else "malformed JSON"
        raise InputError(path, None, f"{what}: {e.msg} at line {e.lineno} column {e.colno}") from None


def expect_version(path, schema, expected):
    if schema != expected:
        raise InputError(path, "schema", f"is '{schema}', but these charts read '{expected}'; "
                         "chart it with the phasebench build that wrote it, or rerun the sweep")


def check_gate(top: Fields):
    for side in ("base", "candidate"):
        s = top.child(side)
        for key in ("file", "device", "git_commit"):
            s.get(key, (str,), nullable=True)
    top.get("threshold", NUMBER)
    top.get("alpha", NUMBER)
    runs = top.child("runs", (list,))
    for _, run in runs.items():
        run.get("key", (str,))
        run.child("config")
        verdict = run.get("verdict", (str,))
        if verdict not in VERDICTS:
            run.fail("verdict", f"'{verdict}' is not one of {', '.join(VERDICTS)}")
        run.get("reason", (str,), nullable=True)
        run.get("headline", (str,))
        for _, m in run.child("metrics").items():
            for key in ("base_median", "cand_median", "ratio", "improvement", "ci_low", "ci_high",
                        "p_value"):
                m.get(key, NUMBER, nullable=True)
            m.get("verdict", (str,))
            m.get("higher_is_better", (bool,))
            m.get("n_base", (int,))
            m.get("n_cand", (int,))


def check_cycles(path, data):
    if not data:
        raise InputError(path, None, "the cycle history is empty (no cycles recorded yet)")
    for _, c in Fields(path, data).items():
        c.get("cycle", (int,))
        c.get("change", (str,))
        c.get("metric", (str,))
        for key in ("base_value", "cand_value", "delta", "ci_low", "ci_high", "best_so_far"):
            c.get(key, NUMBER, nullable=True)
        c.get("verdict", (str,))
        c.get("kept", (bool,))
    return data
