// `phasebench gate BASE CAND [--metric M] [--threshold 1%] [--alpha 0.05] [--seed N] [--json]`:
// the A/B verdict of every run the two result files share. Exit 0 when nothing regressed, 1 on
// a regression, an incorrect or a failed run, 2 on bad input.
#include <iostream>
#include <memory>

#include "app/commands.h"
#include "results/gate/gate.h"
#include "results/gate/gate_json.h"
#include "results/gate/gate_markdown.h"

namespace pb::app {
namespace {

struct GateCommand {
  std::string base, cand;
  gate::GateFlags flags;
  bool json = false;
  bool brief = false;
};

int gate_command(const GateCommand& o) {
  const gate::GateReport report = gate::gate_files(o.base, o.cand, o.flags.options());
  print_gate_report(report, o.json, o.brief);
  return gate::exit_status(report);
}

}  // namespace

void add_gate_flags(CLI::App& command, gate::GateFlags& flags) {
  command.add_option("--metric", flags.metric,
                     "Metric each run's verdict comes from (default: the run's headline, e.g. decode.tok_s)");
  command.add_option("--threshold", flags.threshold, "Smallest change that matters: 1% or 0.01")->capture_default_str();
  command.add_option("--alpha", flags.alpha, "Significance level of the Mann-Whitney test")->capture_default_str();
  command.add_option("--seed", flags.seed, "Bootstrap seed (same files and seed, same report)")->capture_default_str();
  command
      .add_option("--ignore-axis", flags.ignored_axes,
                  "Leave this config key out when pairing runs, e.g. submit for the two files of "
                  "`ab --a-set submit=... --b-set submit=...` (repeatable)")
      ->allow_extra_args(false);  // one value per flag, so a positional after it is not swallowed
}

void print_gate_report(const gate::GateReport& report, bool json, bool brief) {
  if (json) {
    // The markdown shows warnings in its header; JSON keeps stdout clean, so they go to stderr.
    for (const auto& w : report.warnings) std::cerr << "phasebench: warning: " << w << "\n";
    std::cout << gate::to_json(report).dump(2) << "\n";
  } else {
    gate::write_markdown(std::cout, report, {.every_metric = !brief});
  }
}

void add_gate_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<GateCommand>();
  auto* cmd = app.add_subcommand("gate", "A/B verdict of the runs two result files share (base vs candidate)");
  cmd->add_option("base", o->base, "Base result file")->required();
  cmd->add_option("candidate", o->cand, "Candidate result file")->required();
  add_gate_flags(*cmd, o->flags);
  cmd->add_flag("--json", o->json, "Print the report as JSON (schema phasebench.gate/1)");
  cmd->add_flag("--brief", o->brief, "Markdown: only the run table, not every metric of every run");
  cmd->callback([o, &action] { action = [o] { return gate_command(*o); }; });
}

}  // namespace pb::app
