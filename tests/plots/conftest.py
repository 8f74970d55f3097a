"""Fixtures of the plots tests.

Result files come from the real binary (`phasebench run` on tiny-dense, made once per session)
and are joined into one multi-run file the way a sweep writes it. Gate and cycle JSON are small
fixtures of exactly the shapes `phasebench gate A B --json` and `phasebench cycles --format
json` print, built from the measured runs so the numbers are plausible.

CTest passes the binaries as `--phasebench=$<TARGET_FILE:phasebench>` and
`--phasebench-kernels=$<TARGET_FILE:phasebench-kernels>`.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PLOTS = REPO / "plots"
sys.path.insert(0, str(PLOTS))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from support import cycles_json, gate_json, join_runs, run_plots  # noqa: E402

# Four runs: two submit shapes at two prompt lengths; one with n >= 6 so a CI exists, one with
# profiling off so the unprofiled paths are drawn too.
RUNS = [
    ["--submit", "per-layer", "--prompt", "8", "--repetitions", "6"],
    ["--submit", "per-prompt", "--prompt", "8", "--repetitions", "3", "--no-bandwidth"],
    ["--submit", "per-layer", "--prompt", "16", "--repetitions", "3", "--no-bandwidth"],
    ["--submit", "per-prompt", "--prompt", "16", "--repetitions", "3", "--profile", "off",
     "--no-bandwidth"],
]


def pytest_addoption(parser):
    parser.addoption("--phasebench", help="the phasebench binary whose result files are charted")
    parser.addoption("--phasebench-kernels", help="the kernel benchmarks whose figures the record reports")


def given_binary(request, option: str) -> Path:
    """The binary passed as `option` (--phasebench, --phasebench-kernels); fails the test without it."""
    path = request.config.getoption(option)
    if not path or not Path(path).is_file():
        pytest.fail(f"pass the {option[2:]} binary with {option}=PATH (ctest does)")
    return Path(path)


@pytest.fixture(scope="session")
def binary(request) -> Path:
    return given_binary(request, "--phasebench")


@pytest.fixture(scope="session")
def kernels_binary(request) -> Path:
    return given_binary(request, "--phasebench-kernels")


@pytest.fixture(scope="session")
def inputs_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("inputs")


@pytest.fixture(scope="session")
def sweep_file(binary, inputs_dir) -> Path:
    """A multi-run result file from four real runs; each run file is checked against the schema."""
    import jsonschema

    schema = json.loads((REPO / "results/schema/result.schema.json").read_text())
    files = []
    for i, flags in enumerate(RUNS):
        out = inputs_dir / f"run{i}.json"
        cmd = [str(binary), "run", "--model", "tiny-dense", "--decode", "4", *flags, "--out", str(out)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}"
        data = json.loads(out.read_text())
        jsonschema.validate(data, schema)
        files.append(data)
    path = inputs_dir / "sweep.json"
    path.write_text(json.dumps(join_runs(files)))
    return path


@pytest.fixture(scope="session")
def sweep_data(sweep_file) -> dict:
    return json.loads(sweep_file.read_text())


@pytest.fixture(scope="session")
def gate_file(sweep_data, inputs_dir) -> Path:
    path = inputs_dir / "gate.json"
    path.write_text(json.dumps(gate_json(sweep_data)))
    return path


@pytest.fixture(scope="session")
def cycles_file(inputs_dir) -> Path:
    path = inputs_dir / "cycles.json"
    path.write_text(json.dumps(cycles_json()))
    return path


@pytest.fixture(scope="session")
def all_charts(sweep_file, gate_file, cycles_file, tmp_path_factory) -> Path:
    """Every chart kind of the three inputs, written once by the Python module."""
    out = tmp_path_factory.mktemp("charts")
    proc = run_plots("chart", sweep_file, gate_file, cycles_file, "--out", out)
    assert proc.returncode == 0, proc.stderr
    return out
