#include "engine/reference/argmax_ref.h"

#include <cmath>
#include <limits>

namespace pb::ref {
namespace {

// The best element of `row` other than `skip`: increasing indices, so strict > keeps the
// lowest index among equals, and NaN (never >) never wins.
std::pair<uint32_t, float> best_except(const float* row, uint32_t vocab, uint32_t skip) {
  uint32_t best = kNoToken;
  float value = std::numeric_limits<float>::quiet_NaN();
  for (uint32_t i = 0; i < vocab; ++i) {
    if (i == skip || std::isnan(row[i])) continue;
    if (best == kNoToken || row[i] > value) {
      best = i;
      value = row[i];
    }
  }
  return {best, value};
}

}  // namespace

std::vector<Top2> argmax(std::span<const float> logits, uint32_t vocab, uint32_t ncols,
                         uint32_t stride) {
  std::vector<Top2> out(ncols);
  for (uint32_t c = 0; c < ncols; ++c) {
    const float* row = logits.data() + size_t(c) * stride;
    const auto [first, first_value] = best_except(row, vocab, kNoToken);
    const auto [second, second_value] = best_except(row, vocab, first);
    out[c] = {first, first_value, second, second_value};
  }
  return out;
}

}  // namespace pb::ref
