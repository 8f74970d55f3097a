// Prefill attention (attn_prefill) against the float64 reference: a first chunk (pos0 = 0) and
// later chunks (pos0 > 0), C = 1, 5, 33 (more than one query block), GQA ratios 1, 2, 4, head
// dims 64 to 512, and sliding windows at their edges. Tolerance: attention_fixture.h.
#include <gtest/gtest.h>

#include <iostream>

#include "engine/ops/attention_prefill_op.h"
#include "tests/engine/kernels/attention_fixture.h"

namespace pb::test {
namespace {

struct PrefillCase {
  uint32_t n_heads, n_kv_heads, head_dim;
  uint32_t pos0, n_tokens;
  uint32_t window = 0;  // 0 = none
};

void PrintTo(const PrefillCase& c, std::ostream* os) {
  *os << c.n_heads << "/" << c.n_kv_heads << " heads, d" << c.head_dim << ", pos0 " << c.pos0
      << ", C " << c.n_tokens << ", window " << c.window;
}

class AttentionPrefillTest : public GpuTest, public ::testing::WithParamInterface<PrefillCase> {};

TEST_P(AttentionPrefillTest, MatchesTheReference) {
  const PrefillCase& c = GetParam();
  const uint32_t last = c.pos0 + c.n_tokens - 1;
  const AttentionShape shape = attention_shape(c.n_heads, c.n_kv_heads, c.head_dim, last + 4, c.window);
  const uint32_t width = c.n_heads * c.head_dim;
  const uint32_t q_stride = width + 4, o_stride = width + 8;  // padded rows
  // Earliest key any token sees: the first token's window start.
  const uint32_t first = (c.window == 0 || c.pos0 + 1 <= c.window) ? 0 : c.pos0 + 1 - c.window;
  const AttentionData data = random_attention(shape, c.n_tokens, q_stride, first, last,
                                              200 + c.pos0 + c.n_tokens + c.head_dim + c.window);
  const std::vector<float> initial(size_t(c.n_tokens) * o_stride, 7.0f);

  const DeviceCache cache = upload_cache(data);
  Buffer qb = upload_floats(data.q, "q");
  Buffer ob = upload_floats(initial, "o");
  const AttentionPrefillProblem problem{shape, cache.view(), TensorView::whole(qb), TensorView::whole(ob),
                                        c.pos0, c.n_tokens, q_stride, o_stride};
  run_ops(attention_prefill_ops(problem, BindingLimits::of(device().info())), BarrierPolicy::Ledger);
  const auto gpu = download_floats(ob, initial.size());

  std::vector<float> expected = initial;
  ref::attention(reference_dims(shape), data.q, q_stride, data.k, data.v, c.pos0, c.n_tokens, expected,
                 o_stride);
  const double error = attention_error(gpu, expected, initial, 0, c.n_tokens, width, o_stride);
  std::cout << "[ attention prefill max |gpu - ref| = " << error << " ]\n";
  EXPECT_LE(error, kAttentionTolerance);
}

std::vector<PrefillCase> prefill_cases() {
  std::vector<PrefillCase> list;
  for (uint32_t c : {1u, 5u, 33u}) list.push_back({8, 2, 128, 0, c});  // first chunk, ratio 4
  for (uint32_t c : {1u, 5u, 33u}) list.push_back({8, 2, 128, 40, c}); // second chunk
  list.push_back({4, 4, 64, 0, 33});   // ratio 1
  list.push_back({4, 4, 64, 20, 33});
  list.push_back({8, 2, 64, 70, 33});  // ratio 4, more than one key tile of 64
  list.push_back({4, 2, 256, 0, 33});  // ratio 2
  list.push_back({4, 2, 256, 13, 5});
  list.push_back({2, 1, 512, 3, 5});   // Gemma global head dim
  list.push_back({8, 2, 128, 0, 33, 1});    // each token sees only itself
  list.push_back({8, 2, 128, 0, 33, 8});    // window inside the chunk
  list.push_back({8, 2, 128, 40, 33, 16});  // window starts in the earlier chunk
  list.push_back({8, 2, 128, 40, 33, 41});  // first token's window is exactly [0, 40]
  list.push_back({4, 2, 256, 30, 5, 32});
  list.push_back({6, 2, 128, 7, 33});   // ratio 3: 3 heads x 5 tokens per workgroup
  list.push_back({16, 2, 512, 9, 5});   // ratio 8 at d512: part of a GQA group per workgroup
  return list;
}

INSTANTIATE_TEST_SUITE_P(Chunks, AttentionPrefillTest, ::testing::ValuesIn(prefill_cases()));

}  // namespace
}  // namespace pb::test
