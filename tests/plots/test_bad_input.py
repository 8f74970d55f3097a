"""Bad input gives a clear error naming the file and the field, exit status 2, and no chart,
both from the module and through `phasebench chart` / `phasebench report`."""
import json
import subprocess

import pytest
from support import run_plots


def other_version(data, text):
    data["schema"] = "phasebench.result/2"
    return json.dumps(data), "field 'schema'", "phasebench.result/2"


def truncated(data, text):
    return text[: len(text) // 2], "truncated JSON", "line 1"


def missing_field(data, text):
    del data["runs"][2]["samples"][1]["decode"]["wall_ms"]
    return json.dumps(data), "runs[2].samples[1].decode.wall_ms", "missing"


def wrong_type(data, text):
    data["runs"][0]["summary"]["decode.tok_s"]["median"] = "fast"
    return json.dumps(data), "runs[0].summary.decode.tok_s.median", "expected a number"


def empty(data, text):
    return "", "", "empty"


CASES = [other_version, truncated, missing_field, wrong_type, empty]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__ for c in CASES])
@pytest.mark.parametrize("entry", ["module", "phasebench"])
def test_bad_result_file(case, entry, binary, sweep_file, tmp_path):
    text = sweep_file.read_text()
    bad_text, field, detail = case(json.loads(text), text)
    bad = tmp_path / "bad.json"
    bad.write_text(bad_text)
    out = tmp_path / "out"
    for command in ("chart", "report"):
        args = [command, sweep_file, bad, "--out", out]  # a good file first: still nothing written
        proc = (run_plots(*args) if entry == "module" else
                subprocess.run([binary, *args], capture_output=True, text=True, timeout=600))
        assert proc.returncode == 2, proc.stderr
        assert str(bad) in proc.stderr and field in proc.stderr and detail in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr
        assert not out.exists(), f"{command} wrote {list(out.rglob('*'))}"


def test_gate_of_another_version(gate_file, tmp_path):
    data = json.loads(gate_file.read_text())
    data["schema"] = "phasebench.gate/9"
    bad = tmp_path / "gate.json"
    bad.write_text(json.dumps(data))
    proc = run_plots("chart", bad, "--out", tmp_path / "out")
    assert proc.returncode == 2 and "phasebench.gate/9" in proc.stderr and str(bad) in proc.stderr
    assert not (tmp_path / "out").exists()


def test_missing_file_and_bad_option(sweep_file, tmp_path):
    proc = run_plots("chart", tmp_path / "nope.json", "--out", tmp_path / "out")
    assert proc.returncode == 2 and "nope.json" in proc.stderr and "no such file" in proc.stderr
    proc = run_plots("chart", sweep_file, "--kind", "breakdown", "--run", "99", "--out", tmp_path / "out")
    assert proc.returncode == 2 and "--run 99" in proc.stderr
    proc = run_plots("chart", sweep_file, "--kind", "ab", "--out", tmp_path / "out")
    assert proc.returncode == 2 and "gate" in proc.stderr
    proc = run_plots("chart", sweep_file, "--kind", "sweep", "--metric", "decode.nope", "--out", tmp_path / "out")
    assert proc.returncode == 2 and "decode.nope" in proc.stderr
    assert not (tmp_path / "out").exists()
