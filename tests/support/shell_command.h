// Runs a command line through /bin/sh, as a user's shell would, and collects its exit status
// and standard output. Redirections (`2>&1`, `2>/dev/null`) belong to the caller's command.
#pragma once

#include <string>

namespace pb::test {

struct CommandResult {
  int status;       // the exit status; -1 when the command could not start or was killed
  std::string out;  // what it wrote to stdout
};

CommandResult run_command(const std::string& command);

}  // namespace pb::test
