#include "harness/submit_shape.h"

#include <charconv>

namespace pb {

std::string SubmitShape::name() const {
  switch (kind) {
    case SubmitKind::PerDispatch: return "per-dispatch";
    case SubmitKind::PerLayer: return "per-layer";
    case SubmitKind::PerLayerNoWait: return "per-layer-nowait";
    case SubmitKind::PerToken: return "per-token";
    case SubmitKind::PerTokenAhead: return "per-token-ahead";
    case SubmitKind::PerPrompt: return "per-prompt";
    case SubmitKind::Chunk: return "chunk:" + std::to_string(chunk);
  }
  return "?";
}

bool SubmitShape::waits_after_each() const {
  return kind == SubmitKind::PerDispatch || kind == SubmitKind::PerLayer ||
         kind == SubmitKind::PerToken || kind == SubmitKind::PerTokenAhead;
}

std::optional<SubmitShape> parse_submit_shape(std::string_view text) {
  if (text == "per-dispatch") return SubmitShape{SubmitKind::PerDispatch};
  if (text == "per-layer") return SubmitShape{SubmitKind::PerLayer};
  if (text == "per-layer-nowait") return SubmitShape{SubmitKind::PerLayerNoWait};
  if (text == "per-token") return SubmitShape{SubmitKind::PerToken};
  if (text == "per-token-ahead") return SubmitShape{SubmitKind::PerTokenAhead};
  if (text == "per-prompt") return SubmitShape{SubmitKind::PerPrompt};
  if (text.starts_with("chunk:")) {
    const auto digits = text.substr(6);
    uint32_t n = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec == std::errc() && end == digits.data() + digits.size() && n > 0) {
      return SubmitShape{SubmitKind::Chunk, n};
    }
  }
  return std::nullopt;
}

std::vector<Segment> plan_segments(std::span<const Op> ops, SubmitShape shape) {
  std::vector<Segment> segments;
  if (ops.empty()) return segments;
  const HostWait wait = shape.kind == SubmitKind::PerTokenAhead ? HostWait::AfterNextSubmit
                        : shape.waits_after_each()                 ? HostWait::After
                                                                   : HostWait::None;
  auto cut_before = [&](size_t i) {
    const Op& a = ops[i - 1];
    const Op& b = ops[i];
    switch (shape.kind) {
      case SubmitKind::PerDispatch: return true;
      case SubmitKind::PerLayer:
      case SubmitKind::PerLayerNoWait: return a.token != b.token || a.layer != b.layer;
      case SubmitKind::PerToken:
      case SubmitKind::PerTokenAhead: return a.token != b.token;
      case SubmitKind::PerPrompt: return false;
      case SubmitKind::Chunk: return i % shape.chunk == 0;
    }
    return false;
  };
  Segment current{0, 1, wait};
  for (size_t i = 1; i < ops.size(); ++i) {
    if (cut_before(i)) {
      segments.push_back(current);
      current = Segment{static_cast<uint32_t>(i), 0, wait};
    }
    ++current.count;
  }
  if (current.wait == HostWait::None) current.wait = HostWait::After;
  segments.push_back(current);
  return segments;
}

}  // namespace pb
