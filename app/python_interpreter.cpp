#include "app/python_interpreter.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace pb::app {
namespace {

namespace fs = std::filesystem;

// The interpreter's own PATH lookup, done here so the probe and the exec use the same file.
std::string python3_on_path() {
  const char* path = std::getenv("PATH");
  if (!path) return {};
  std::stringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / "python3";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

// Runs `python -c "import matplotlib"` with its output discarded; true when it exits 0.
bool can_import_matplotlib(const std::string& python) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<std::string> args{python, "-B", "-c", "import matplotlib"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) return false;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return false;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool holds_plots_package(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "phasebench_plots" / "__main__.py", ec);
}

}  // namespace

std::string find_plotting_python() {
  std::vector<std::string> candidates;
  if (std::string p = python3_on_path(); !p.empty()) candidates.push_back(p);
  for (const char* p : {"/usr/bin/python3", "/usr/local/bin/python3"}) {
    if (::access(p, X_OK) == 0) candidates.push_back(p);
  }
  std::string tried;
  for (const std::string& python : candidates) {
    if (can_import_matplotlib(python)) return python;
    tried += (tried.empty() ? "" : ", ") + python;
  }
  throw std::runtime_error(
      "charts need a python3 that can import matplotlib, and " +
      (tried.empty() ? std::string("no python3 was found") : "none could (tried " + tried + ")") +
      "; install it with `apt-get install python3-matplotlib` (or run scripts/setup)");
}

std::string plots_module_dir() {
  std::vector<fs::path> candidates;
#ifdef PHASEBENCH_PLOTS_DIR
  candidates.emplace_back(PHASEBENCH_PLOTS_DIR);
#endif
  // The build compiles this file by its absolute path, so __FILE__ names the source tree the
  // binary came from: app/python_interpreter.cpp -> plots/ beside app/.
  if (const fs::path source(__FILE__); source.is_absolute()) {
    candidates.push_back(source.parent_path().parent_path() / "plots");
  }
  std::error_code ec;
  if (const fs::path exe = fs::read_symlink("/proc/self/exe", ec); !ec) {
    candidates.push_back(exe.parent_path().parent_path() / "share" / "phasebench" / "plots");
    candidates.push_back(exe.parent_path() / "plots");
  }
  std::string tried;
  for (const fs::path& dir : candidates) {
    if (holds_plots_package(dir)) return dir.string();
    tried += (tried.empty() ? "" : ", ") + dir.string();
  }
  throw std::runtime_error("cannot find the phasebench_plots package (looked in " + tried +
                           "); run phasebench from its build tree or install plots/ beside it");
}

void exec_plots_module(const std::string& python, const std::string& plots_dir,
                       const std::vector<std::string>& args) {
  // -B: no __pycache__ written into the source tree. The runner puts plots_dir first on
  // sys.path and runs the package as __main__, so sys.argv[1:] are exactly `args`.
  std::vector<std::string> full{python, "-B", "-c",
                                "import runpy, sys\n"
                                "sys.path.insert(0, sys.argv.pop(1))\n"
                                "runpy.run_module('phasebench_plots', run_name='__main__', alter_sys=True)\n",
                                plots_dir};
  full.insert(full.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : full) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  ::execv(python.c_str(), argv.data());
  throw std::runtime_error("cannot run " + python + ": " + std::strerror(errno));
}

}  // namespace pb::app
