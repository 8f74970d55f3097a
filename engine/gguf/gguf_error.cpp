#include "engine/gguf/gguf_error.h"

#include <cstdio>
#include <utility>

namespace pb::gguf {
namespace {

// "<file>: <section>, at byte <offset>: <detail>", leaving out the parts that are unknown.
std::string format_message(const std::string& file, const std::string& section,
                           std::optional<uint64_t> offset, const std::string& detail) {
  std::string msg = file.empty() ? std::string("GGUF") : file;
  msg += ": ";
  if (!section.empty()) msg += section;
  if (offset) {
    msg += section.empty() ? "at byte " : ", at byte ";
    msg += std::to_string(*offset);
  }
  if (!section.empty() || offset) msg += ": ";
  msg += detail;
  return msg;
}

constexpr size_t kMaxQuotedBytes = 96;

}  // namespace

std::string quote_name(std::string_view name) {
  std::string out = "\"";
  for (size_t i = 0; i < name.size() && i < kMaxQuotedBytes; ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  if (name.size() > kMaxQuotedBytes) out += "... (" + std::to_string(name.size()) + " bytes)";
  return out;
}

GgufError::GgufError(std::string file, std::string section, std::optional<uint64_t> offset,
                     std::string detail)
    : pb::UsageError(format_message(file, section, offset, detail)),
      file_(std::move(file)),
      section_(std::move(section)),
      offset_(offset),
      detail_(std::move(detail)) {}

}  // namespace pb::gguf
