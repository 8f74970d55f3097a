#include "tests/support/schema_check.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>

namespace pb::test {
namespace {

std::string run(const std::string& command, int* status) {
  std::string output;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) {
    *status = -1;
    return "cannot start: " + command;
  }
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) output.append(buffer.data(), n);
  const int raw = pclose(pipe);
  *status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return output;
}

// The first interpreter that can import jsonschema (PATH's python3 may be a pyenv build that
// sees none of Debian's packages).
std::string python_with_jsonschema() {
  for (const char* candidate : {"python3", "/usr/bin/python3", "/usr/local/bin/python3"}) {
    int status = 0;
    run(std::string(candidate) + " -c 'import jsonschema'", &status);
    if (status == 0) return candidate;
  }
  return {};
}

}  // namespace

std::string source_path(const std::string& relative) {
  return std::string(PHASEBENCH_SOURCE_DIR) + "/" + relative;
}

std::string schema_errors(const std::string& file, const std::string& schema) {
  static const std::string python = python_with_jsonschema();
  if (python.empty()) {
    return "no Python with jsonschema found (tried python3, /usr/bin/python3, "
           "/usr/local/bin/python3); install python3-jsonschema (scripts/setup --tests)";
  }
  const std::string script =
      "import json, sys, jsonschema; "
      "s = json.load(open(sys.argv[1])); d = json.load(open(sys.argv[2])); "
      "errors = sorted(jsonschema.Draft202012Validator(s).iter_errors(d), key=lambda e: list(e.path)); "
      "[print('/' + '/'.join(map(str, e.path)) + ': ' + e.message[:300]) for e in errors[:5]]; "
      "sys.exit(1 if errors else 0)";
  int status = 0;
  const std::string output =
      run(python + " -c \"" + script + "\" '" + source_path(schema) + "' '" + file + "'", &status);
  return status == 0 ? std::string() : (output.empty() ? "validation failed" : output);
}

}  // namespace pb::test
