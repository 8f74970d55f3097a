// `phasebench ab SCENARIO (--a PATH --b PATH | --a-set axis=value... --b-set axis=value...)
// --rounds N [--repetitions R] [--out DIR] [gate flags]`: sweeps the scenario with build A and
// build B (or two configs of this build) interleaved A B, B A, A B ... so that drift cancels,
// merges each side's rounds and gates A (base) against B (candidate).
//
// Matching: with --a-set/--b-set the two sides' configs differ in the overridden axes by
// design, so runs are paired by their config with those axes removed (every axis named in
// --a-set or --b-set, on both sides). --a and --b default to this binary, so the two forms
// can be combined; with neither, it is an A/A run, which measures the noise floor.
#include <cctype>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "app/commands.h"
#include "harness/errors.h"
#include "results/gate/ab_plan.h"
#include "results/gate/gate.h"
#include "results/gate/gate_json.h"
#include "results/gate/result_merge.h"
#include "results/gate/subprocess.h"

namespace pb::app {
namespace {

namespace fs = std::filesystem;

struct AbCommand {
  gate::AbPlan plan;
  std::string out;
  gate::GateFlags flags;
  bool json = false;
  bool brief = false;
};

std::string this_binary() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find this phasebench binary (/proc/self/exe): " + ec.message());
  return self.string();
}

// Runs one sweep. A sweep that exits 1 has still written its file (a failed or incorrect run
// is recorded in it, and the gate reports it); 2 means it rejected its input.
void run_sweep_round(const gate::SweepInvocation& inv, int rounds) {
  std::cerr << "ab: round " << inv.round << "/" << rounds << ", " << static_cast<char>(std::toupper(inv.side->name[0]))
            << ": " << gate::command_line(inv.argv) << std::endl;
  fs::remove(inv.out);  // never merge a stale file from an earlier ab in the same folder
  const int status = gate::run_subprocess(inv.argv);
  if (status == 2) {
    throw UsageError("side " + inv.side->name +
                     " rejected the sweep (exit 2; its message is above): " + gate::command_line(inv.argv));
  }
  if (status != 0 && (status != 1 || !fs::exists(inv.out))) {
    throw std::runtime_error("side " + inv.side->name + ", round " + std::to_string(inv.round) + ": the sweep exited " +
                             std::to_string(status) + " without a result file: " + gate::command_line(inv.argv));
  }
}

int ab_command(AbCommand& o) {
  gate::AbPlan& plan = o.plan;
  if (plan.a.binary.empty()) plan.a.binary = this_binary();
  if (plan.b.binary.empty()) plan.b.binary = this_binary();
  plan.out_dir = o.out.empty() ? fs::path("results") / ("ab-" + plan.scenario.stem().string()) : fs::path(o.out);
  gate::validate(plan);
  gate::GateOptions options = o.flags.options();  // bad gate flags fail before minutes of sweeps
  options.ignored_keys.merge(gate::override_axes(plan));
  if (!fs::is_regular_file(plan.scenario)) throw UsageError(plan.scenario.string() + ": no such scenario file");
  fs::create_directories(plan.out_dir);

  std::map<std::string, std::vector<gate::RoundFile>> rounds;  // each side's files in round order
  for (const auto& inv : gate::interleaved_invocations(plan)) {
    run_sweep_round(inv, plan.rounds);
    rounds[inv.side->name].push_back({inv.out.string(), ResultFile::load(inv.out)});
  }
  const gate::AbSide* sides[] = {&plan.a, &plan.b};
  std::vector<ResultFile> merged;
  for (const auto* side : sides) {
    merged.push_back(gate::merge_rounds(rounds[side->name]));
    merged.back().save(gate::merged_path(plan, *side));
  }
  const auto report = gate::gate_results(merged[0], gate::merged_path(plan, plan.a).string(), merged[1],
                                         gate::merged_path(plan, plan.b).string(), options);
  write_file_atomically(plan.out_dir / "gate.json", gate::to_json(report).dump(2));
  std::cerr << "ab: merged results " << gate::merged_path(plan, plan.a).string() << " and "
            << gate::merged_path(plan, plan.b).string() << "; gate report " << (plan.out_dir / "gate.json").string()
            << std::endl;
  print_gate_report(report, o.json, o.brief);
  return gate::exit_status(report);
}

}  // namespace

void add_ab_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<AbCommand>();
  o->plan.a.name = "a";
  o->plan.b.name = "b";
  auto* cmd = app.add_subcommand("ab", "Interleaved A/B sweeps of two builds or two configs, then the gate");
  cmd->add_option("scenario", o->plan.scenario, "Scenario file (JSON)")->required();
  cmd->add_option("--a", o->plan.a.binary, "Build A (the base): a phasebench binary (default: this one)");
  cmd->add_option("--b", o->plan.b.binary, "Build B (the candidate): a phasebench binary (default: this one)");
  cmd->add_option("--a-set", o->plan.a.sets, "Override for side A only: axis=value (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--b-set", o->plan.b.sets, "Override for side B only: axis=value (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--set", o->plan.common_sets, "Override for both sides: axis=value (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--rounds", o->plan.rounds, "Rounds; each runs both sides once, alternating which goes first")
      ->required();
  cmd->add_option("--repetitions", o->plan.repetitions, "Measured repetitions per run per round");
  cmd->add_option("--warmup", o->plan.warmup, "Warm-up repetitions per run per round");
  cmd->add_option("--device", o->plan.device, "Device index or name substring, for both sides");
  cmd->add_flag("--bandwidth", o->plan.bandwidth,
                "Measure the copy bandwidth (roofline) in every sweep; off, since the verdict does not use it");
  cmd->add_option("--out", o->out,
                  "Folder for the round files, a.json, b.json and gate.json "
                  "(default results/ab-<scenario>)");
  add_gate_flags(*cmd, o->flags);
  cmd->add_flag("--json", o->json, "Print the gate report as JSON (schema phasebench.gate/1)");
  cmd->add_flag("--brief", o->brief, "Markdown: only the run table, not every metric of every run");
  cmd->callback([o, &action] { action = [o] { return ab_command(*o); }; });
}

}  // namespace pb::app
