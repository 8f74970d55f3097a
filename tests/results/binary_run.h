// Runs the phasebench binary through a shell, as a user would, and collects its exit status
// and output.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace pb::test {

struct BinaryResult {
  int status;
  std::string out;  // stdout, or stdout and stderr together with merge_stderr
};

inline BinaryResult run_binary(const std::string& args, bool merge_stderr = true) {
  const std::string command = std::string(PHASEBENCH_BINARY) + " " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null");
  BinaryResult r{-1, ""};
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.out.append(buffer.data(), n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

// Validates a JSON file against a schema of the source tree with Python's jsonschema; returns
// "" when valid, else its message.
inline std::string schema_errors(const std::string& json_path, const std::string& schema) {
  const std::string command =
      "/usr/bin/python3 -c 'import json, sys, jsonschema; "
      "jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))' " +
      std::string(PHASEBENCH_SOURCE_DIR) + "/results/schema/" + schema + " " + json_path + " 2>&1";
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return "cannot run python3";
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  return pclose(pipe) == 0 ? "" : out;
}

}  // namespace pb::test
