// Runs another program (a phasebench binary for `ab`) and waits for it, without a shell, so
// paths and axis values need no quoting.
#pragma once

#include <string>
#include <vector>

namespace pb::gate {

// Runs argv[0] (a path, or a name looked up in PATH) with argv[1..]. The child's stdout is
// sent to this process's stderr, so that our stdout stays the report (`ab --json` prints only
// JSON); its stderr is shared. Returns the child's exit status. Throws std::runtime_error when
// the program cannot be started or dies from a signal.
int run_subprocess(const std::vector<std::string>& argv);

}  // namespace pb::gate
