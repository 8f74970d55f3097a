// Validates a JSON file against one of phasebench's JSON Schema files with Python's jsonschema
// (Debian's python3-jsonschema): every result file a test writes goes through it.
#pragma once

#include <string>

namespace pb::test {

// Empty when `file` satisfies `schema` (a path relative to the source tree, e.g.
// "results/schema/result.schema.json"); otherwise the validator's message. A missing validator
// is reported as a failure too, naming the package to install: a test never skips it.
std::string schema_errors(const std::string& file, const std::string& schema);

// The source tree, for scenario and schema files.
std::string source_path(const std::string& relative);

}  // namespace pb::test
