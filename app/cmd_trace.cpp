// `phasebench trace RESULT [--run I] --out trace.json`
#include <iostream>
#include <memory>

#include "app/commands.h"
#include "harness/errors.h"
#include "harness/trace_export.h"
#include "results/result_file.h"

namespace pb::app {
namespace {

struct TraceCommand {
  std::string result;
  int run = -1;  // position in the file; -1 = the first run with a timeline
  std::string out = "trace.json";
};

int trace_command(const TraceCommand& o) {
  const ResultFile file = ResultFile::load(o.result);
  const auto& runs = file.runs();
  if (runs.empty()) throw UsageError(o.result + ": /runs is empty; nothing to trace");
  size_t chosen = 0;
  if (o.run >= 0) {
    if (static_cast<size_t>(o.run) >= runs.size()) {
      throw UsageError("--run " + std::to_string(o.run) + ": " + o.result + " has runs 0.." +
                       std::to_string(runs.size() - 1));
    }
    chosen = static_cast<size_t>(o.run);
  } else {
    while (chosen + 1 < runs.size() && runs[chosen].value("timeline", nlohmann::json::object()).empty()) ++chosen;
  }
  const nlohmann::json trace = chrome_trace(runs[chosen], file.document()["device"]);
  write_file_atomically(o.out, trace.dump());
  std::cout << "wrote " << o.out << " (" << trace["traceEvents"].size() << " events, run " << chosen
            << "); open it in https://ui.perfetto.dev\n";
  return 0;
}

}  // namespace

void add_trace_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<TraceCommand>();
  auto* cmd = app.add_subcommand("trace", "Write a Chrome/Perfetto trace of a run's timeline");
  cmd->add_option("result", o->result, "Result file")->required();
  cmd->add_option("--run", o->run, "Run position in the file (default: the first with a timeline)");
  cmd->add_option("--out", o->out, "Trace file")->capture_default_str();
  cmd->callback([o, &action] { action = [o] { return trace_command(*o); }; });
}

}  // namespace pb::app
