#include "tests/support/shell_command.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>

namespace pb::test {

CommandResult run_command(const std::string& command) {
  CommandResult result{-1, ""};
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) {
    result.out = "cannot start: " + command;
    return result;
  }
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.out.append(buffer.data(), n);
  const int raw = pclose(pipe);
  result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return result;
}

}  // namespace pb::test
