// The one error type of the GGUF layer. A malformed or hostile file is bad input, so it is a
// pb::UsageError (exit status 2); the message says where the problem is precisely enough to
// find it with a hex dump: file, section, byte offset, what was expected and what was found.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "harness/errors.h"

namespace pb::gguf {

class GgufError : public pb::UsageError {
 public:
  // `file` is the path (or a label such as "<memory>"); `section` says which part of the file,
  // e.g. `header`, `metadata key "general.alignment"`, `tensor info 3 "output.weight"`;
  // `offset` is the absolute byte offset where the problem was found, when there is one.
  GgufError(std::string file, std::string section, std::optional<uint64_t> offset,
            std::string detail);

  const std::string& file() const { return file_; }
  const std::string& section() const { return section_; }
  std::optional<uint64_t> offset() const { return offset_; }
  const std::string& detail() const { return detail_; }

 private:
  std::string file_;
  std::string section_;
  std::optional<uint64_t> offset_;
  std::string detail_;
};

// `"name"` for a message: control and non-ASCII bytes escaped, names over 96 bytes cut short,
// so that a hostile key or tensor name cannot garble or flood an error message.
std::string quote_name(std::string_view name);

}  // namespace pb::gguf
