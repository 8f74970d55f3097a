// `phasebench chart FILE... [--kind K] [--stage S] [--run I] [--metric M] [--axis A] --out DIR`
// and `phasebench report FILE... --out DIR`: the flags are checked here, then the process is
// handed over to the Python plots module (plots/phasebench_plots), which reads the files,
// draws with matplotlib and exits 0, or 2 with the file and field at fault.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/commands.h"
#include "app/python_interpreter.h"

namespace pb::app {
namespace {

struct ChartCommand {
  std::vector<std::string> files;
  std::string kind, stage, metric, axis, out;
  std::optional<int> run;
};

[[noreturn]] void hand_over(const std::vector<std::string>& args) {
  // Both are looked up before the exec so that a missing matplotlib is reported by phasebench.
  const std::string python = find_plotting_python();
  exec_plots_module(python, plots_module_dir(), args);
}

int chart_command(const ChartCommand& o) {
  std::vector<std::string> args{"chart"};
  args.insert(args.end(), o.files.begin(), o.files.end());
  const std::pair<const char*, const std::string*> flags[] = {
      {"--kind", &o.kind}, {"--stage", &o.stage}, {"--metric", &o.metric}, {"--axis", &o.axis}};
  for (const auto& [flag, value] : flags) {
    if (!value->empty()) args.insert(args.end(), {flag, *value});
  }
  if (o.run) args.insert(args.end(), {"--run", std::to_string(*o.run)});
  args.insert(args.end(), {"--out", o.out});
  hand_over(args);
}

int report_command(const ChartCommand& o) {
  std::vector<std::string> args{"report"};
  args.insert(args.end(), o.files.begin(), o.files.end());
  args.insert(args.end(), {"--out", o.out});
  hand_over(args);
}

}  // namespace

void add_chart_commands(CLI::App& app, Action& action) {
  auto o = std::make_shared<ChartCommand>();
  auto* chart = app.add_subcommand(
      "chart", "Charts (SVG and PNG) of result files, gate verdicts (gate --json) or cycle histories");
  chart->add_option("FILE", o->files, "Result, gate or cycles JSON files")->required();
  chart->add_option("--kind", o->kind, "Chart kind; default: every kind the inputs allow")
      ->check(CLI::IsMember({"budget", "breakdown", "sweep", "ab", "timeline", "cycles"}));
  chart->add_option("--stage", o->stage, "Stage of budget, breakdown and timeline charts; default both")
      ->check(CLI::IsMember({"prefill", "decode"}));
  chart->add_option("--run", o->run, "Run index for breakdown, timeline and A/B detail charts")
      ->check(CLI::NonNegativeNumber);
  chart->add_option("--metric", o->metric, "Metric of the sweep chart, e.g. decode.tok_s");
  chart->add_option("--axis", o->axis, "Config axis of the sweep chart, e.g. chunk_cols");
  chart->add_option("--out", o->out, "Folder to write the charts into")->required();
  chart->callback([o, &action] { action = [o] { return chart_command(*o); }; });

  auto* report = app.add_subcommand(
      "report", "A static HTML report (index.html, no network needed) with every chart and table");
  report->add_option("FILE", o->files, "Result, gate or cycles JSON files")->required();
  report->add_option("--out", o->out, "Folder for index.html and its charts")->required();
  report->callback([o, &action] { action = [o] { return report_command(*o); }; });
}

}  // namespace pb::app
