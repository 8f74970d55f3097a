// CPU reference of greedy sampling and the top-two record of the fingerprint.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace pb::ref {

inline constexpr uint32_t kNoToken = 0xFFFFFFFFu;  // no candidate (all NaN, vocab 1)

struct Top2 {
  uint32_t index = kNoToken;         // the largest logit, lowest index on ties; NaN never wins
  float value = 0;                   // NaN when index is kNoToken
  uint32_t second_index = kNoToken;  // the largest logit other than `index`, same rules
  float second_value = 0;
};

// One entry per column of `vocab` logits (column c at c * stride).
std::vector<Top2> argmax(std::span<const float> logits, uint32_t vocab, uint32_t ncols,
                         uint32_t stride);

}  // namespace pb::ref
