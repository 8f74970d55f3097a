// Runs the phasebench binary through a shell, as a user would, and collects its exit status
// and output.
#pragma once

#include <string>

#include "tests/support/schema_check.h"
#include "tests/support/shell_command.h"

namespace pb::test {

using BinaryResult = CommandResult;  // out: stdout, or stdout and stderr together with merge_stderr

inline BinaryResult run_binary(const std::string& args, bool merge_stderr = true) {
  return run_command(std::string(PHASEBENCH_BINARY) + " " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null"));
}

}  // namespace pb::test
