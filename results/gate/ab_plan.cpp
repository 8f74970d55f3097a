#include "results/gate/ab_plan.h"

#include "harness/errors.h"

namespace pb::gate {
namespace {

std::string axis_of(const std::string& set, const std::string& flag) {
  const auto eq = set.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == set.size()) {
    throw UsageError(flag + " \"" + set + "\": expected axis=value, e.g. submit=per-prompt");
  }
  return set.substr(0, eq);
}

void check_sets(const std::vector<std::string>& common, const AbSide& side) {
  std::set<std::string> seen;
  for (const auto& s : common) {
    if (!seen.insert(axis_of(s, "--set")).second) throw UsageError("--set " + s + ": that axis is set twice");
  }
  std::set<std::string> own;
  const std::string flag = "--" + side.name + "-set";
  for (const auto& s : side.sets) {
    const std::string axis = axis_of(s, flag);
    if (!own.insert(axis).second) throw UsageError(flag + " " + s + ": that axis is set twice");
    if (seen.count(axis)) throw UsageError(flag + " " + s + ": --set gives " + axis + " to both sides already");
  }
}

}  // namespace

void validate(const AbPlan& plan) {
  if (plan.rounds < 1) throw UsageError("--rounds must be at least 1, got " + std::to_string(plan.rounds));
  if (plan.repetitions < 0) throw UsageError("--repetitions must be positive");
  for (const AbSide* side : {&plan.a, &plan.b}) {
    if (side->binary.empty()) throw UsageError("--" + side->name + ": the binary path is empty");
    check_sets(plan.common_sets, *side);
  }
}

std::vector<SweepInvocation> interleaved_invocations(const AbPlan& plan) {
  std::vector<SweepInvocation> order;
  for (int round = 1; round <= plan.rounds; ++round) {
    const bool a_first = round % 2 == 1;
    for (const AbSide* side : {a_first ? &plan.a : &plan.b, a_first ? &plan.b : &plan.a}) {
      SweepInvocation inv{side, round, plan.out_dir / (side->name + "-round" + std::to_string(round) + ".json"), {}};
      inv.argv = {side->binary, "sweep", plan.scenario.string()};
      for (const auto* sets : {&plan.common_sets, &side->sets}) {
        for (const auto& s : *sets) {
          inv.argv.push_back("--set");
          inv.argv.push_back(s);
        }
      }
      if (plan.repetitions > 0) inv.argv.insert(inv.argv.end(), {"--repetitions", std::to_string(plan.repetitions)});
      if (plan.warmup >= 0) inv.argv.insert(inv.argv.end(), {"--warmup", std::to_string(plan.warmup)});
      if (!plan.device.empty()) inv.argv.insert(inv.argv.end(), {"--device", plan.device});
      if (!plan.bandwidth) inv.argv.push_back("--no-bandwidth");
      inv.argv.insert(inv.argv.end(), {"--out", inv.out.string()});
      order.push_back(std::move(inv));
    }
  }
  return order;
}

std::set<std::string> override_axes(const AbPlan& plan) {
  std::set<std::string> axes;
  for (const AbSide* side : {&plan.a, &plan.b}) {
    for (const auto& s : side->sets) axes.insert(s.substr(0, s.find('=')));
  }
  return axes;
}

std::filesystem::path merged_path(const AbPlan& plan, const AbSide& side) {
  return plan.out_dir / (side.name + ".json");
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& arg : argv) {
    const bool plain =
        !arg.empty() &&
        arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./:,+%@") ==
            std::string::npos;
    std::string quoted = "'";
    for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += (line.empty() ? "" : " ") + (plain ? arg : quoted + "'");
  }
  return line;
}

}  // namespace pb::gate
