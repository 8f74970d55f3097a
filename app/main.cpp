// phasebench: one binary, subcommands. Exit status: 0 success, 1 a failed check (regression,
// incorrect output, failed run), 2 bad input or usage.
#include <exception>
#include <iostream>

#include "app/commands.h"
#include "harness/errors.h"
#include "harness/vk_check.h"

int main(int argc, char** argv) {
  CLI::App app{"phasebench: benchmarks the kernels and submission shape of a Vulkan LLM engine"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "phasebench 0.1.0");
  pb::app::Action action;
  pb::app::add_devices_command(app, action);
  pb::app::add_run_command(app, action);
  pb::app::add_sweep_commands(app, action);
  pb::app::add_trace_command(app, action);
  pb::app::add_gate_command(app, action);
  pb::app::add_ab_command(app, action);
  pb::app::add_cycle_commands(app, action);
  pb::app::add_chart_commands(app, action);
  pb::app::add_gguf_commands(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    return status == 0 ? 0 : 2;
  }
  try {
    return action ? action() : 0;
  } catch (const pb::UsageError& e) {
    std::cerr << "phasebench: " << e.what() << "\n";
    return 2;
  } catch (const pb::CheckFailure& e) {
    std::cerr << "phasebench: check failed: " << e.what() << "\n";
    return 1;
  } catch (const pb::VulkanError& e) {
    std::cerr << "phasebench: Vulkan error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "phasebench: " << e.what() << "\n";
    return 1;
  }
}
