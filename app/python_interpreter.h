// Finding a Python that can draw the charts, and handing the process over to the plots module.
// Charts are drawn by plots/phasebench_plots (Python + matplotlib); `phasebench chart` and
// `phasebench report` only locate the interpreter and the module, then exec it.
#pragma once

#include <string>
#include <vector>

namespace pb::app {

// The first of `python3` on PATH, /usr/bin/python3 and /usr/local/bin/python3 that can
// `import matplotlib` (a pyenv or venv python3 first on PATH often cannot). Throws, naming the
// package to install and the interpreters tried, when none can.
std::string find_plotting_python();

// The folder that holds the phasebench_plots package: plots/ of the source tree this binary was
// built from, else share/phasebench/plots or plots/ next to the installed binary. Throws naming
// the folders tried.
std::string plots_module_dir();

// Replaces this process with `python -B -c <runner> plots_dir args...`, which runs the package
// as `python3 -m phasebench_plots args...` would; its exit status becomes phasebench's. Throws
// when the exec itself fails.
[[noreturn]] void exec_plots_module(const std::string& python, const std::string& plots_dir,
                                    const std::vector<std::string>& args);

}  // namespace pb::app
