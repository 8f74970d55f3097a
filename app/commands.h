// Each subcommand registers its options on the CLI and sets the action main() runs. Actions
// return the exit status; errors are thrown and mapped to statuses in main().
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace pb::gate {
struct GateFlags;
struct GateReport;
}  // namespace pb::gate

namespace pb::app {

using Action = std::function<int()>;

void add_devices_command(CLI::App& app, Action& action);
void add_run_command(CLI::App& app, Action& action);
void add_sweep_commands(CLI::App& app, Action& action);
void add_trace_command(CLI::App& app, Action& action);
void add_gate_command(CLI::App& app, Action& action);
void add_ab_command(CLI::App& app, Action& action);
void add_cycle_commands(CLI::App& app, Action& action);  // cycle record, cycles, history
void add_chart_commands(CLI::App& app, Action& action);  // chart, report (plots/ in Python)
void add_gguf_commands(CLI::App& app, Action& action);   // gguf-info, export-gguf
// The gate flags `gate`, `ab` and `cycle record` share, and how they print a report.
void add_gate_flags(CLI::App& command, gate::GateFlags& flags);
void print_gate_report(const gate::GateReport& report, bool json, bool brief);

}  // namespace pb::app
