// How ops are grouped into command buffers and vkQueueSubmit calls, and where the host waits
// (DESIGN.md, the `submit` axis). Cuts fall at token and layer boundaries that the ops carry.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/op.h"

namespace pb {

enum class SubmitKind {
  PerDispatch,     // one op per command buffer, the host waits after each
  PerLayer,        // one command buffer per (token, layer), the host waits after each
  PerLayerNoWait,  // as per-layer, submitted back to back; the host waits once at the end
  PerToken,        // one per token (one per chunk in batched prefill), the host waits after each
  PerTokenAhead,   // as per-token, but token N+1 is submitted before the host waits for N
  PerPrompt,       // everything in one command buffer and one submit
  Chunk,           // every N dispatches, submitted back to back (no host wait between)
};

struct SubmitShape {
  SubmitKind kind = SubmitKind::PerPrompt;
  uint32_t chunk = 0;  // N for Chunk

  std::string name() const;  // "per-layer", "chunk:64"
  bool waits_after_each() const;
  bool operator==(const SubmitShape&) const = default;
};

// Parses a `submit` value; nullopt when unknown (the caller names the allowed values).
std::optional<SubmitShape> parse_submit_shape(std::string_view text);
inline constexpr std::string_view kSubmitShapeValues =
    "per-dispatch, per-layer, per-layer-nowait, per-token, per-token-ahead, per-prompt, chunk:N";

// Whether and when the host waits for a segment.
enum class HostWait : uint8_t {
  None,  // not at all (it is waited for with a later one)
  After,  // before what follows is submitted (with double buffering, once it is recorded)
  // Once the next segment is submitted, so the queue holds it while the host waits
  // (per-token-ahead: the engine samples on the GPU and the embedding reads the token from GPU
  // memory, so token N+1 needs no host input; the host still sees each token, one token late).
  AfterNextSubmit,
};

// One command buffer and one submit: ops [first, first + count).
struct Segment {
  uint32_t first = 0;
  uint32_t count = 0;
  HostWait wait = HostWait::None;
};

// Cuts an op stream into segments. The last segment always waits (the stage ends there).
std::vector<Segment> plan_segments(std::span<const Op> ops, SubmitShape shape);

}  // namespace pb
