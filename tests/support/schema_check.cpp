#include "tests/support/schema_check.h"

#include "tests/support/shell_command.h"

namespace pb::test {
namespace {

// The first interpreter that can import jsonschema (PATH's python3 may be a pyenv build that
// sees none of Debian's packages).
std::string python_with_jsonschema() {
  for (const char* candidate : {"python3", "/usr/bin/python3", "/usr/local/bin/python3"}) {
    if (run_command(std::string(candidate) + " -c 'import jsonschema' 2>&1").status == 0) return candidate;
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
  const CommandResult r =
      run_command(python + " -c \"" + script + "\" '" + source_path(schema) + "' '" + file + "' 2>&1");
  return r.status == 0 ? std::string() : (r.out.empty() ? "validation failed" : r.out);
}

}  // namespace pb::test
