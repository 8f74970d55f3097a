// Shared pieces of the MoE kernel tests (moe_topk, moe_dmmv, moe_block): the routing buffer,
// random routes, stacked expert weights in any format with their dequantized values, and the
// poisoning of experts no token selected.
#pragma once

#include <algorithm>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "engine/ops/moe_routing_ops.h"
#include "engine/quant/quantize.h"
#include "engine/reference/moe_ref.h"
#include "tests/engine/kernels/elementwise_fixture.h"

namespace pb::test {

// A device buffer holding the routing views for up to max_cols tokens (on the heap: the
// views point at it, so it must not move).
struct RoutingBuffers {
  std::unique_ptr<Buffer> buffer;
  MoeRouting routing;
};

inline RoutingBuffers make_routing(const MoeShape& shape, uint32_t max_cols) {
  const uint64_t alignment = device().info().min_storage_buffer_offset_alignment;
  auto b = std::make_unique<Buffer>(device(), moe_routing_bytes(shape, max_cols, alignment),
                                    MemoryUse::Device, "routing");
  // A sentinel everywhere, so entries a kernel should leave alone can be checked.
  transfer().upload_from<uint32_t>(*b, 0, std::vector<uint32_t>(b->size() / 4, 0xDEADBEEFu));
  const MoeRouting routing = moe_routing_in(TensorView::whole(*b), shape, max_cols, alignment);
  return {std::move(b), routing};
}

inline std::vector<uint32_t> download_u32(const TensorView& view, size_t count) {
  return transfer().download_as<uint32_t>(*view.buffer, view.offset, count);
}

inline void upload_u32(const TensorView& view, const std::vector<uint32_t>& values) {
  transfer().upload_from<uint32_t>(*view.buffer, view.offset, values);
}

// Per token, K distinct experts drawn from the first `pool` experts (pool <= E): a small pool
// makes tokens share experts.
inline std::vector<uint32_t> random_routes(uint32_t ncols, uint32_t top_k, uint32_t pool,
                                           std::mt19937& rng) {
  std::vector<uint32_t> route, ids(pool);
  for (uint32_t t = 0; t < ncols; ++t) {
    std::iota(ids.begin(), ids.end(), 0u);
    std::shuffle(ids.begin(), ids.end(), rng);
    route.insert(route.end(), ids.begin(), ids.begin() + top_k);
  }
  return route;
}

// E stacked rows × cols matrices, quantized, and their exact dequantized values.
struct StackedExperts {
  std::vector<uint8_t> bytes;      // [E][rows] rows of row_bytes(format, cols)
  std::vector<float> dequantized;  // [E][rows][cols]
};

inline StackedExperts random_experts(WeightFormat format, uint32_t experts, uint32_t rows,
                                     uint32_t cols, float scale, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, scale);
  const uint64_t rb = row_bytes(format, cols);
  const size_t total_rows = size_t(experts) * rows;
  StackedExperts m{std::vector<uint8_t>(rb * total_rows), std::vector<float>(total_rows * cols)};
  std::vector<float> row(cols);
  for (size_t r = 0; r < total_rows; ++r) {
    for (auto& v : row) v = normal(rng);
    quantize_row(format, row, std::span(m.bytes).subspan(r * rb, rb));
    dequantize_row(format, std::span(m.bytes).subspan(r * rb, rb),
                   std::span(m.dequantized).subspan(r * cols, cols));
  }
  return m;
}

// Every byte of the experts no route selects set to 0xFF: in every format that makes each of
// their weights (f32, f16) or block scales (q8_0, q4_k, q6_k) NaN, so a kernel that reads
// one of their rows turns its output NaN. Returns how many experts were poisoned.
inline uint32_t poison_unselected(std::vector<uint8_t>& bytes, uint32_t experts,
                                  const std::vector<uint32_t>& routes) {
  const size_t expert_bytes = bytes.size() / experts;
  std::vector<bool> used(experts, false);
  for (uint32_t e : routes) used[e] = true;
  uint32_t poisoned = 0;
  for (uint32_t e = 0; e < experts; ++e) {
    if (used[e]) continue;
    std::fill_n(bytes.begin() + e * expert_bytes, expert_bytes, uint8_t{0xFF});
    ++poisoned;
  }
  return poisoned;
}

// The work list in `rb` against the reference grouping of `routes` (moe_group, or the routing
// kernels that write it themselves).
inline void expect_reference_work_list(const MoeShape& shape, uint32_t ncols, const std::vector<uint32_t>& routes,
                                       RoutingBuffers& rb) {
  const ref::MoeWorkList expected = ref::moe_group(routes, shape.n_experts);
  const uint32_t capacity = moe_item_capacity(shape, ncols);
  const auto counter = download_u32(rb.routing.counter, 1);
  const auto items = download_u32(rb.routing.items, size_t(capacity) * 4);
  const auto assignments = download_u32(rb.routing.assignments, routes.size());
  ASSERT_EQ(counter[0], expected.items.size());
  for (size_t i = 0; i < capacity; ++i) {
    for (size_t f = 0; f < 4; ++f) {
      const uint32_t want = i < expected.items.size() ? expected.items[i][f] : 0xDEADBEEFu;
      ASSERT_EQ(items[i * 4 + f], want) << "item " << i << " field " << f;
    }
  }
  EXPECT_EQ(assignments, expected.assignments);
}

}  // namespace pb::test
