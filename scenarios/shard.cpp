#include "scenarios/shard.h"

#include <charconv>

#include "harness/errors.h"

namespace pb {

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  Shard s;
  auto number = [&](std::string_view part, uint32_t& out) {
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), out);
    return ec == std::errc() && end == part.data() + part.size();
  };
  if (slash == std::string::npos || !number(std::string_view(text).substr(0, slash), s.k) ||
      !number(std::string_view(text).substr(slash + 1), s.n) || s.n == 0 || s.k == 0 || s.k > s.n) {
    throw UsageError("--shard " + text + ": expected K/N with 1 <= K <= N, e.g. --shard 2/4");
  }
  return s;
}

}  // namespace pb
