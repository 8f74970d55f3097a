// Decode attention (attn_decode, attn_merge) against the float64 reference: context lengths
// around the split size (1, 7, S-1, S, S+1, 3S+5, 2000), GQA ratios 1, 2, 4, head dims 64 to
// 512, sliding windows at their edges, and the split and single-op paths against each other.
// Tolerance: attention_fixture.h.
#include <gtest/gtest.h>

#include <iostream>

#include "engine/ops/attention_decode_op.h"
#include "tests/engine/kernels/attention_fixture.h"

namespace pb::test {
namespace {

constexpr uint32_t kLeadQ = 5;  // floats before q and o in their buffers: unaligned views
constexpr uint32_t kLeadO = 9;

struct DecodeCase {
  uint32_t n_heads, n_kv_heads, head_dim;
  uint32_t ctx;         // context length: the query sits at pos = ctx - 1
  uint32_t window = 0;  // 0 = none
  uint32_t split = 256;  // fixed split; 0: the builder's default tuning (split chosen by it)
  bool boost_window_edge = false;  // V at the window's first key far from the rest
  uint32_t heads = 0;  // q heads per workgroup with a fixed split (0: as many of a group as fit)
};

void PrintTo(const DecodeCase& c, std::ostream* os) {
  *os << c.n_heads << "/" << c.n_kv_heads << " heads, d" << c.head_dim << ", ctx " << c.ctx
      << ", window " << c.window << ", split " << c.split << (c.boost_window_edge ? ", edge" : "")
      << ", heads " << c.heads;
}

struct DecodeRun {
  std::vector<float> gpu, expected, initial;
  size_t ops = 0;
};

DecodeRun run_decode(const DecodeCase& c, uint32_t seed) {
  const AttentionShape shape =
      attention_shape(c.n_heads, c.n_kv_heads, c.head_dim, c.ctx + 5, c.window);
  const uint32_t pos = c.ctx - 1;
  const uint32_t width = c.n_heads * c.head_dim;
  const uint32_t first = attention_visible_keys(pos, c.window) == c.ctx ? 0 : pos + 1 - c.window;
  AttentionData data = random_attention(shape, 1, width, first, pos, seed);
  if (c.boost_window_edge) {  // the first visible key must count: make it matter
    for (uint32_t g = 0; g < c.n_kv_heads; ++g) {
      for (uint32_t i = 0; i < c.head_dim; ++i) {
        data.v[(size_t(g) * shape.max_ctx + first) * c.head_dim + i] = float_to_half_bits(4.0f);
      }
    }
  }
  std::vector<float> q(kLeadQ, 0.0f);
  q.insert(q.end(), data.q.begin(), data.q.end());
  DecodeRun run;
  run.initial.assign(kLeadO + width, 7.0f);

  const DeviceCache cache = upload_cache(data);
  Buffer qb = upload_floats(q, "q");
  Buffer ob = upload_floats(run.initial, "o");
  const uint32_t min_split = c.split != 0 ? c.split : AttentionDecodeTuning{}.split;
  const uint64_t scratch_bytes =
      std::max<uint64_t>(16, attention_decode_scratch_bytes(c.n_heads, c.head_dim, shape.max_ctx, min_split));
  Buffer scratch(device(), scratch_bytes, MemoryUse::Device, "scratch");
  const AttentionDecodeProblem problem{shape, cache.view(), TensorView::whole(qb).slice(kLeadQ * 4, width * 4),
                                       TensorView::whole(ob).slice(kLeadO * 4, width * 4),
                                       TensorView::whole(scratch), pos};
  AttentionDecodeTuning tuning;
  if (c.split != 0) {
    tuning.split = c.split;
    tuning.target_workgroups = 0;  // exactly the case's split
    tuning.one_split_max = 0;
    tuning.min_workgroups = 0;     // and the tile the case names, whatever the workgroups
    tuning.heads = c.heads;
  }
  const auto ops = attention_decode_ops(problem, BindingLimits::of(device().info()), tuning);
  run_ops(ops, BarrierPolicy::Ledger);
  run.ops = ops.size();
  run.gpu = download_floats(ob, run.initial.size());

  run.expected = run.initial;
  ref::attention(reference_dims(shape), data.q, width, data.k, data.v, pos, 1,
                 std::span(run.expected).subspan(kLeadO), width);
  return run;
}

class AttentionDecodeTest : public GpuTest, public ::testing::WithParamInterface<DecodeCase> {};

TEST_P(AttentionDecodeTest, MatchesTheReference) {
  const DecodeCase& c = GetParam();
  const DecodeRun run = run_decode(c, 100 + c.ctx + c.head_dim + c.window);
  if (c.split != 0) {
    EXPECT_EQ(run.ops, attention_visible_keys(c.ctx - 1, c.window) > c.split ? 2u : 1u);
  }
  const double error = attention_error(run.gpu, run.expected, run.initial, kLeadO, 1,
                                       c.n_heads * c.head_dim, c.n_heads * c.head_dim);
  std::cout << "[ attention decode max |gpu - ref| = " << error << " ]\n";
  EXPECT_LE(error, kAttentionTolerance);
}

std::vector<DecodeCase> decode_cases() {
  std::vector<DecodeCase> list;
  const uint32_t s = 256;
  for (uint32_t ctx : {1u, 7u, s - 1, s, s + 1, 3 * s + 5, 2000u}) list.push_back({8, 2, 128, ctx});
  list.push_back({4, 4, 64, 7});      // GQA ratio 1
  list.push_back({4, 4, 64, 300});
  list.push_back({4, 2, 256, 1});     // ratio 2
  list.push_back({4, 2, 256, 300});
  list.push_back({2, 1, 512, 5});     // Gemma global head dim
  list.push_back({2, 1, 512, 300});
  list.push_back({8, 2, 128, 300, 1});                // only the query's own key
  list.push_back({8, 2, 128, 300, 100, s, true});     // window inside one split
  list.push_back({8, 2, 128, 700, 300, s, true});     // window over two splits
  list.push_back({8, 2, 128, 50, 100});               // window longer than the context
  list.push_back({8, 2, 128, 100, 100, s, true});     // window exactly the context
  list.push_back({4, 2, 64, 90, 0, 16});              // many short splits
  list.push_back({8, 2, 128, 2000, 0, 0});            // the default tuning
  list.push_back({8, 2, 128, 40, 0, 0});              // the default at a short context: one head a workgroup
  list.push_back({8, 2, 128, 100, 0, 0});             // the default: one split past the smallest
  list.push_back({16, 2, 512, 300, 0, 0});            // the same at d512
  list.push_back({8, 2, 128, 300, 0, s, false, 1});   // one head a workgroup, two splits
  list.push_back({8, 2, 128, 300, 0, s, false, 2});   // half a group
  list.push_back({6, 2, 128, 300});                   // ratio 3: rows not a power of two
  list.push_back({16, 2, 512, 300});                  // ratio 8 at d512: half a GQA group per workgroup
  return list;
}

INSTANTIATE_TEST_SUITE_P(Contexts, AttentionDecodeTest, ::testing::ValuesIn(decode_cases()));

TEST_F(GpuTest, AttentionDecodeSplitAndSingleOpAgree) {
  DecodeCase c{8, 2, 128, 300};
  c.split = 64;  // 5 splits + merge
  const DecodeRun split = run_decode(c, 7);
  c.split = 512;  // one op
  const DecodeRun single = run_decode(c, 7);
  ASSERT_EQ(split.ops, 2u);
  ASSERT_EQ(single.ops, 1u);
  double worst = 0;
  for (size_t i = kLeadO; i < split.gpu.size(); ++i) {
    worst = std::max(worst, std::fabs(double(split.gpu[i]) - double(single.gpu[i])));
  }
  std::cout << "[ attention decode split vs single max diff = " << worst << " ]\n";
  EXPECT_LE(worst, 1e-5);
}

}  // namespace
}  // namespace pb::test
