// The schedule of an interleaved A/B comparison (`phasebench ab`): which sweep runs when, with
// which binary, overrides and output file.
//
// Why interleave: clocks, temperature and background load drift over minutes, and a drift that
// lands on one side looks exactly like a real difference. Rounds alternate A B, B A, A B, ...
// so each side runs first as often as second and a linear drift cancels in the merged samples.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace pb::gate {

struct AbSide {
  std::string name;               // "a" (the base) or "b" (the candidate)
  std::string binary;             // the phasebench executable that runs this side
  std::vector<std::string> sets;  // "axis=value" overrides for this side only
};

struct AbPlan {
  std::filesystem::path scenario;  // the scenario file both sides sweep
  AbSide a, b;
  std::vector<std::string> common_sets;  // "axis=value" overrides for both sides
  int rounds = 0;                        // >= 1: each round runs both sides once
  int repetitions = 0;                   // --repetitions per sweep; 0 = the scenario's rule
  int warmup = -1;                       // --warmup per sweep; < 0 = the scenario's
  std::string device;                    // --device; empty = the default device
  // Whether each sweep measures the device's copy bandwidth (the roofline). Off by default: the
  // probe costs about a second per sweep, twice per round, and plays no part in the verdict.
  bool bandwidth = false;
  std::filesystem::path out_dir;  // where the round files and the merged files go
};

struct SweepInvocation {
  const AbSide* side;             // into the plan
  int round;                      // 1-based
  std::filesystem::path out;      // <out_dir>/<side>-round<round>.json
  std::vector<std::string> argv;  // binary, "sweep", scenario, flags
};

// Throws UsageError for rounds < 1, an override that is not "axis=value", an axis given twice
// for one side, or an empty binary.
void validate(const AbPlan& plan);

// Every sweep in the order to run them: round 1 A then B, round 2 B then A, and so on.
std::vector<SweepInvocation> interleaved_invocations(const AbPlan& plan);

// The axes the two sides override (--a-set ∪ --b-set): the gate matches runs without them.
std::set<std::string> override_axes(const AbPlan& plan);

// "a.json"/"b.json" in the out folder: each side's rounds merged.
std::filesystem::path merged_path(const AbPlan& plan, const AbSide& side);

// The argv as one line a user can paste into a shell.
std::string command_line(const std::vector<std::string>& argv);

}  // namespace pb::gate
