"""plots/phasebench_plots/phases.py mirrors harness/phase.{h,cpp}: same phase names in the
same order, same buckets, same bucket of every phase. Parsed from the C++ so drift fails here."""
import re
from pathlib import Path

from phasebench_plots import phases

HARNESS = Path(__file__).resolve().parents[2] / "harness"


def _string_array(source, name):
    body = re.search(name + r"\s*=\s*\{(.*?)\};", source, re.S).group(1)
    return tuple(re.findall(r'"([a-z_]+)"', body))


def _snake(camel):
    return re.sub(r"(?<!^)([A-Z])", r"_\1", camel).lower()


def test_names_and_order_match_the_harness():
    cpp = (HARNESS / "phase.cpp").read_text()
    assert _string_array(cpp, "kPhaseNames") == phases.PHASES
    assert _string_array(cpp, "kBucketNames") == phases.BUCKETS


def test_every_phase_falls_in_the_same_bucket():
    header = (HARNESS / "phase.h").read_text()
    enum = re.search(r"enum class Phase[^{]*\{(.*?)\};", header, re.S).group(1)
    members = [m for m in re.findall(r"\b([A-Z][A-Za-z]*)\b", enum) if m != "Count"]
    name_of = dict(zip(members, phases.PHASES))
    bucket_enum = re.search(r"enum class Bucket[^{]*\{(.*?)\};", header, re.S).group(1)
    bucket_members = [m for m in re.findall(r"\b([A-Z][A-Za-z]*)\b", bucket_enum) if m != "Count"]
    bucket_name = dict(zip(bucket_members, phases.BUCKETS))
    switch = re.search(r"Bucket bucket_of\(Phase phase\)\s*\{(.*?)\n\}", (HARNESS / "phase.cpp").read_text(), re.S).group(1)
    mapping, pending = {}, []
    for token, value in re.findall(r"(case Phase::|return Bucket::)(\w+)", switch):
        if token.startswith("case"):
            pending.append(value)
        else:
            for p in pending:
                mapping[p] = value
            pending = []
    mapping.pop("Count", None)
    assert set(mapping) == set(members)
    for member, bucket in mapping.items():
        assert phases.bucket_of(name_of[member]) == bucket_name[bucket], member
    assert [_snake(m) for m in members] == list(phases.PHASES)
