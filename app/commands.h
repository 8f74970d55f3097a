// Each subcommand registers its options on the CLI and sets the action main() runs. Actions
// return the exit status; errors are thrown and mapped to statuses in main().
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace pb::app {

using Action = std::function<int()>;

void add_devices_command(CLI::App& app, Action& action);
void add_run_command(CLI::App& app, Action& action);

}  // namespace pb::app
