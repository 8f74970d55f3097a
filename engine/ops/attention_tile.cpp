#include "engine/ops/attention_tile.h"

#include <algorithm>
#include <string>

#include "harness/errors.h"

namespace pb {
namespace {

constexpr uint32_t kKeyTiles[] = {64, 32, 16, 8};

// Largest power of two <= n (n >= 1).
uint32_t floor_pow2(uint32_t n) {
  uint32_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// Largest divisor of `ratio` that is <= limit.
uint32_t largest_divisor(uint32_t ratio, uint32_t limit) {
  for (uint32_t d = std::min(ratio, limit); d > 1; --d) {
    if (ratio % d == 0) return d;
  }
  return 1;
}

// Completes a tile with its score parts: the threads / keys threads of one key split into
// row groups of at most 8 rows (register sums per thread) and, for the rest, dims parts.
AttentionTile with_parts(AttentionTile tile, uint32_t head_dim) {
  const uint32_t slots = std::max(tile.threads / tile.keys, 1u);
  uint32_t row_groups = 1;
  while (row_groups * 8 < tile.rows() && row_groups < slots) row_groups *= 2;
  tile.parts = std::min(slots / row_groups, head_dim / 2);
  return tile;
}

bool fits(const AttentionTile& tile, uint32_t head_dim, uint64_t budget) {
  const bool pow2_threads = (tile.threads & (tile.threads - 1)) == 0;
  return pow2_threads && tile.rows() <= tile.threads && tile.threads % tile.keys == 0 &&
         attention_shared_bytes(tile, head_dim) <= budget;
}

[[noreturn]] void no_tile(const char* what, uint32_t ratio, uint32_t head_dim, uint64_t budget) {
  throw UsageError(std::string(what) + ": no tile fits " + std::to_string(budget) +
                   " bytes of shared memory for head_dim " + std::to_string(head_dim) +
                   " and GQA ratio " + std::to_string(ratio));
}

}  // namespace

uint64_t attention_shared_bytes(const AttentionTile& t, uint32_t head_dim) {
  const uint64_t rows = t.rows(), keys = t.keys, d = head_dim;
  return rows * d * 4                  // q_s
         + keys * (d / 2 + 1) * 4      // k_s (one padding word per row)
         + keys * d * 2                // v_s
         + rows * keys * t.parts * 4   // s_s
         + 2ull * t.threads * 4        // row_max_s, row_sum_s
         + 2 * rows * 4;               // m_s
}

AttentionTile decode_tile(uint32_t ratio, uint32_t head_dim, uint32_t threads, uint64_t budget,
                          uint32_t max_heads, uint32_t max_keys) {
  const uint32_t first_heads = max_heads == 0 ? ratio : std::min(ratio, max_heads);
  for (uint32_t heads = first_heads; heads >= 1; --heads) {
    if (ratio % heads != 0) continue;
    for (uint32_t keys : kKeyTiles) {
      if (max_keys != 0 && keys > max_keys) continue;
      const AttentionTile tile = with_parts({heads, 1, keys, 1, threads}, head_dim);
      if (fits(tile, head_dim, budget)) return tile;
    }
  }
  no_tile("attention decode", ratio, head_dim, budget);
}

AttentionTile prefill_tile(uint32_t ratio, uint32_t head_dim, uint32_t threads, uint32_t rows,
                           uint64_t budget) {
  for (uint32_t min_keys : {16u, 8u}) {
    for (uint32_t r = floor_pow2(std::max(rows, 1u)); r >= 1; r /= 2) {
      const uint32_t heads = largest_divisor(ratio, r);
      for (uint32_t keys : kKeyTiles) {
        if (keys < min_keys) continue;
        const AttentionTile tile = with_parts({heads, r / heads, keys, 1, threads}, head_dim);
        if (fits(tile, head_dim, budget)) return tile;
      }
    }
  }
  no_tile("attention prefill", ratio, head_dim, budget);
}

SpecConstants attention_spec(const AttentionTile& tile, uint32_t head_dim) {
  SpecConstants spec;
  spec.set(0, static_cast<int32_t>(head_dim))
      .set(1, static_cast<int32_t>(tile.heads))
      .set(2, static_cast<int32_t>(tile.tokens))
      .set(3, static_cast<int32_t>(tile.keys))
      .set(4, static_cast<int32_t>(tile.threads))
      .set(5, static_cast<int32_t>(tile.parts));
  return spec;
}

}  // namespace pb
