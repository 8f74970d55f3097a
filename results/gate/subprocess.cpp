#include "results/gate/subprocess.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace pb::gate {
namespace {

// posix_spawn's file actions, owned for the duration of one spawn.
class FileActions {
 public:
  FileActions() { posix_spawn_file_actions_init(&actions_); }
  ~FileActions() { posix_spawn_file_actions_destroy(&actions_); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

}  // namespace

int run_subprocess(const std::vector<std::string>& argv) {
  if (argv.empty()) throw std::runtime_error("run_subprocess: no program given");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  FileActions actions;
  posix_spawn_file_actions_adddup2(actions.get(), STDERR_FILENO, STDOUT_FILENO);
  pid_t pid = 0;
  const bool search = argv[0].find('/') == std::string::npos;
  const int error = search ? posix_spawnp(&pid, args[0], actions.get(), nullptr, args.data(), environ)
                           : posix_spawn(&pid, args[0], actions.get(), nullptr, args.data(), environ);
  if (error != 0) throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(error));

  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("waiting for " + argv[0] + ": " + std::strerror(errno));
  }
  if (WIFSIGNALED(status)) {
    throw std::runtime_error(argv[0] + " was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
                             strsignal(WTERMSIG(status)) + ")");
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace pb::gate
