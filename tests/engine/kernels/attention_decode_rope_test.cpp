// Decode attention that does the query token's own q/k norm, RoPE and KV write in its prologue
// (attn_decode_rope) against the dispatches it replaces, rope_kv_write_op then
// attention_decode_ops, on the same projected q, k and v:
//   - the output agrees to kRopeTolerance: the prologue sums a head's squares in another order
//     than qk_norm_rope, so q and k may differ by a float rounding, nothing more;
//   - the cache row at pos holds the same halves, to one f16 unit in the last place (the same
//     rounding again), and every other cache element keeps its bits;
//   - the fused path never reads row pos from the cache: it starts NaN there, as do the rows
//     past pos and before the window, so a stray read poisons the output;
//   - its int8 form (attn_decode_rope_quantize) is the CPU quantizer's of its float output.
// The pair has its own references (rope_kv_write_test, attention_decode_test), so agreement
// here carries their tolerances. Cases: Llama (NORMAL, no norm), Qwen3 (NEOX, norm), Qwen3.5's
// partial rotation, Gemma (1 + w, sliding window, head dims 256 and 512), MHA, GQA 8, pos 0,
// and contexts over several splits (attn_merge after it); past the tuning's workgroup limit the
// builder falls back to the pair itself.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>

#include "engine/ops/attention_decode_op.h"
#include "engine/ops/quantizing_producer.h"
#include "engine/ops/rope_kv_write_op.h"
#include "harness/build_info.h"
#include "harness/errors.h"
#include "tests/engine/kernels/attention_fixture.h"
#include "tests/engine/kernels/elementwise_fixture.h"
#include "tests/engine/kernels/quantized_x_fixture.h"

namespace pb::test {
namespace {

// Outputs of magnitude <= 2 (V in [-1, 1], the token's own v in [-2, 2]) from q and k that may
// differ by a rounding of their norm; lavapipe's worst is printed by each case.
constexpr double kRopeTolerance = 2e-5;

struct RopeCase {
  RopeStyle style;
  bool qk_norm, add_one;
  uint32_t n_heads, n_kv_heads, head_dim, rope_dims;
  uint32_t ctx;         // the query sits at pos = ctx - 1
  uint32_t window = 0;  // 0 = none
  uint32_t split = 0;   // fixed split (0: one split covers the context)
  uint32_t heads = 0;   // q heads per workgroup (0: as many of a GQA group as fit)
};

void PrintTo(const RopeCase& c, std::ostream* os) {
  *os << (c.style == RopeStyle::Neox ? "neox" : "normal") << (c.qk_norm ? " norm" : "") << (c.add_one ? " 1+w" : "")
      << " heads=" << c.n_heads << "/" << c.n_kv_heads << " d=" << c.head_dim << " rope_dims=" << c.rope_dims
      << " ctx=" << c.ctx << " window=" << c.window << " split=" << c.split << " heads=" << c.heads;
}

// One attention layer of one decode token: the projected [q | k | v | pad] column, the norms,
// the f16 caches, the output and the split scratch, and the problems over them.
struct Layer {
  Buffer qkv, q_norm, k_norm, k_cache, v_cache, o, scratch;
  QkNormRopeProblem rope;
  KvWriteProblem kv;
  AttentionDecodeProblem attention;
  AttentionDecodeTuning tuning;
};

constexpr uint32_t kPad = 12;

uint32_t column_floats(const RopeCase& c) { return (c.n_heads + 2 * c.n_kv_heads) * c.head_dim + kPad; }

Layer make_layer(const RopeCase& c, const std::vector<float>& column, const std::vector<float>& norms,
                 const AttentionData& cache) {
  const uint32_t q_width = c.n_heads * c.head_dim, kv_width = c.n_kv_heads * c.head_dim;
  const AttentionShape shape = attention_shape(c.n_heads, c.n_kv_heads, c.head_dim, c.ctx + 3, c.window);
  const uint32_t pos = c.ctx - 1;
  AttentionDecodeTuning tuning;
  tuning.split = c.split != 0 ? c.split : 4096;
  tuning.target_workgroups = 0;
  tuning.one_split_max = 0;
  tuning.min_workgroups = 0;  // the tile the case names, whatever the workgroups
  tuning.heads = c.heads;
  const uint64_t scratch_bytes =
      std::max<uint64_t>(16, attention_decode_scratch_bytes(c.n_heads, c.head_dim, shape.max_ctx, tuning.split));
  Layer l{upload_floats(column, "qkv"),
          upload_floats(std::vector<float>(norms.begin(), norms.begin() + c.head_dim), "q_norm"),
          upload_floats(std::vector<float>(norms.begin() + c.head_dim, norms.end()), "k_norm"),
          upload_halves(cache.k, "k_cache"),
          upload_halves(cache.v, "v_cache"),
          upload_floats(std::vector<float>(q_width, kPadding), "o"),
          Buffer(device(), scratch_bytes, MemoryUse::Device, "scratch"),
          {}, {}, {}, tuning};
  const TensorView x = TensorView::whole(l.qkv);
  const TensorView q = x.slice(0, uint64_t(q_width) * 4);
  const TensorView k = x.slice(uint64_t(q_width) * 4, uint64_t(kv_width) * 4);
  const TensorView v = x.slice(uint64_t(q_width + kv_width) * 4, uint64_t(kv_width) * 4);
  const uint32_t stride = column_floats(c);
  l.rope = QkNormRopeProblem{q,   k,   TensorView{}, TensorView{},  c.n_heads, c.n_kv_heads, c.head_dim, c.rope_dims,
                             pos, 1,   stride,       stride,        500000.0f, 1e-6f,        c.style,    c.qk_norm,
                             c.add_one};
  if (c.qk_norm) {
    l.rope.q_norm = TensorView::whole(l.q_norm);
    l.rope.k_norm = TensorView::whole(l.k_norm);
  }
  const KvCacheView caches{TensorView::whole(l.k_cache), TensorView::whole(l.v_cache)};
  l.kv = KvWriteProblem{k, v, caches.k, caches.v, c.n_kv_heads, c.head_dim, shape.max_ctx, pos, 1, stride, stride};
  l.attention = AttentionDecodeProblem{shape, caches, q, TensorView::whole(l.o), TensorView::whole(l.scratch), pos};
  return l;
}

struct Inputs {
  std::vector<float> column, norms;
  AttentionData cache;  // row pos and everything the query may not see: NaN
};

Inputs make_inputs(const RopeCase& c) {
  std::mt19937 rng(71 + c.head_dim + c.ctx + c.window);
  const AttentionShape shape = attention_shape(c.n_heads, c.n_kv_heads, c.head_dim, c.ctx + 3, c.window);
  const uint32_t pos = c.ctx - 1;
  const uint32_t first = pos + 1 - attention_visible_keys(pos, c.window);
  Inputs in;
  in.column = random_columns(column_floats(c) - kPad, 1, column_floats(c), -2.0f, 2.0f, rng);
  in.norms = random_columns(2 * c.head_dim, 1, 2 * c.head_dim, -1.5f, 1.5f, rng);
  // Readable rows [first, pos - 1]; none at pos 0 (an empty range: lo > hi).
  in.cache = pos == 0 ? random_attention(shape, 1, 1, 1, 0, 5) : random_attention(shape, 1, 1, first, pos - 1, 5);
  return in;
}

bool is_nan_half(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x03ff) != 0; }

// Distance in units in the last place between two finite halves of the same sign (else large).
int half_ulps(uint16_t a, uint16_t b) {
  if ((a ^ b) & 0x8000) return (a & 0x7fff) == 0 && (b & 0x7fff) == 0 ? 0 : 1 << 16;
  return std::abs(int(a & 0x7fff) - int(b & 0x7fff));
}

// Runs the dispatches the prologue replaces on `pair` (rope_kv_write_op, then the attention)
// and returns them.
std::vector<Op> run_the_pair(Layer& pair, const BindingLimits& limits) {
  std::vector<Op> ops{rope_kv_write_op(pair.rope, pair.kv)};
  for (const Op& op : attention_decode_ops(pair.attention, limits, pair.tuning)) ops.push_back(op);
  run_ops(ops, BarrierPolicy::Ledger);
  return ops;
}

// A layer over the same inputs whose attention problem carries the token's RoPE.
Layer layer_with_rope(const RopeCase& c, const Inputs& in) {
  Layer l = make_layer(c, in.column, in.norms, in.cache);
  l.attention.rope = AttentionDecodeRope{l.rope, l.kv.v};
  return l;
}

class AttentionDecodeRopeTest : public GpuTest, public ::testing::WithParamInterface<RopeCase> {};

TEST_P(AttentionDecodeRopeTest, MatchesRopeKvWriteThenAttention) {
  const RopeCase& c = GetParam();
  const Inputs in = make_inputs(c);
  const BindingLimits limits = BindingLimits::of(device().info());

  Layer pair = make_layer(c, in.column, in.norms, in.cache);
  const std::vector<Op> pair_ops = run_the_pair(pair, limits);
  Layer fused = layer_with_rope(c, in);
  const std::vector<Op> fused_ops = attention_decode_ops(fused.attention, limits, fused.tuning);
  ASSERT_EQ(fused_ops.size(), pair_ops.size() - 1) << "the same attention ops, without the RoPE's";
  EXPECT_EQ(std::string(fused_ops[0].kernel->name), "attn_decode_rope");
  EXPECT_EQ(fused_ops.size() > 1, c.split != 0 && attention_visible_keys(c.ctx - 1, c.window) > c.split);
  run_ops(fused_ops, BarrierPolicy::Ledger);

  const uint32_t width = c.n_heads * c.head_dim;
  const auto o_pair = download_floats(pair.o, width), o_fused = download_floats(fused.o, width);
  double worst = 0;
  for (uint32_t i = 0; i < width; ++i) {
    ASSERT_TRUE(std::isfinite(o_fused[i])) << "output " << i << ": a NaN cache row was read";
    worst = std::max(worst, std::fabs(double(o_fused[i]) - double(o_pair[i])));
  }
  std::cout << "[ attention decode with RoPE: max |fused - pair| = " << worst << " ]\n";
  record_worst("worst_output_difference", worst);
  EXPECT_LE(worst, kRopeTolerance);

  const uint32_t max_ctx = c.ctx + 3, pos = c.ctx - 1;
  const size_t elems = size_t(c.n_kv_heads) * max_ctx * c.head_dim;
  for (Buffer Layer::*cache_of : {&Layer::k_cache, &Layer::v_cache}) {
    const char* name = cache_of == &Layer::k_cache ? "k" : "v";
    const auto& initial = cache_of == &Layer::k_cache ? in.cache.k : in.cache.v;
    const auto a = download_vector<uint16_t>(pair.*cache_of, elems);
    const auto b = download_vector<uint16_t>(fused.*cache_of, elems);
    int worst_ulps = 0;
    for (size_t i = 0; i < elems; ++i) {
      if ((i / c.head_dim) % max_ctx != pos) {
        ASSERT_EQ(b[i], initial[i]) << name << " cache element " << i << " outside row pos was written";
        continue;
      }
      ASSERT_FALSE(is_nan_half(b[i])) << name << " cache element " << i << " of row pos was not written";
      worst_ulps = std::max(worst_ulps, half_ulps(a[i], b[i]));
    }
    EXPECT_LE(worst_ulps, 1) << name << " cache row pos: the fused halves differ from rope_kv_write's";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Variants, AttentionDecodeRopeTest,
    ::testing::Values(RopeCase{RopeStyle::Normal, false, false, 8, 2, 128, 128, 9},         // Llama
                      RopeCase{RopeStyle::Neox, true, false, 8, 2, 128, 128, 17},           // Qwen3
                      RopeCase{RopeStyle::Neox, true, false, 8, 2, 128, 128, 1},            // pos 0: own key only
                      RopeCase{RopeStyle::Neox, true, false, 8, 2, 128, 128, 200, 0, 64},   // 4 splits + merge
                      RopeCase{RopeStyle::Neox, true, false, 4, 2, 256, 64, 30},            // Qwen3.5 partial
                      RopeCase{RopeStyle::Neox, true, true, 4, 2, 256, 256, 150, 100, 64},  // Gemma sliding
                      RopeCase{RopeStyle::Neox, true, true, 2, 1, 512, 512, 40},            // Gemma global
                      RopeCase{RopeStyle::Normal, false, false, 4, 4, 64, 64, 70, 0, 16},   // MHA, 5 splits
                      RopeCase{RopeStyle::Normal, true, false, 16, 2, 64, 32, 12},          // GQA 8, partial
                      RopeCase{RopeStyle::Neox, true, false, 8, 2, 128, 128, 17, 0, 0, 1},  // one head a workgroup
                      RopeCase{RopeStyle::Neox, true, false, 8, 2, 128, 128, 200, 0, 64, 2},  // half a group, splits
                      RopeCase{RopeStyle::Normal, true, false, 16, 2, 64, 32, 12, 0, 0, 1}));  // 8 writers' row

TEST_F(GpuTest, AttentionDecodeRopeQuantizesWhatItWrites) {
  if (!build_info().has_intdot_shaders) GTEST_SKIP() << "the build has no integer-dot kernels";
  for (const RopeCase c : {RopeCase{RopeStyle::Neox, true, false, 8, 2, 128, 128, 33},
                           RopeCase{RopeStyle::Normal, false, false, 4, 1, 64, 64, 5}}) {
    const Inputs in = make_inputs(c);
    Layer l = layer_with_rope(c, in);
    const uint32_t width = c.n_heads * c.head_dim;
    QuantizedBuffer quantized(width, 1);
    const std::vector<Op> ops = attention_decode_quantize_ops(l.attention, quantized.view, quantized.limits, l.tuning);
    ASSERT_EQ(ops.size(), 1u);
    EXPECT_EQ(std::string(ops[0].kernel->name), "attn_decode_rope_quantize");
    run_ops(ops, BarrierPolicy::Ledger);
    expect_cpu_quantization(quantized.download(), quantized.view, download_floats(l.o, width), width, 1, width);
  }
}

// Past tuning.rope_max_workgroups the builder emits the pair itself: the same ops as the pair,
// so the same bits, with the int8 twin on the attention that ends the stream.
TEST_F(GpuTest, AttentionDecodeRopePastTheWorkgroupLimitRunsTheRopeFirst) {
  const RopeCase c{RopeStyle::Neox, true, false, 8, 2, 128, 128, 40, 0, 16};  // 3 splits
  const Inputs in = make_inputs(c);
  const BindingLimits limits = BindingLimits::of(device().info());
  Layer pair = make_layer(c, in.column, in.norms, in.cache);
  const std::vector<Op> pair_ops = run_the_pair(pair, limits);
  Layer limited = layer_with_rope(c, in);
  limited.tuning.rope_max_workgroups = 2;  // 3 splits of 1 group: past it
  const std::vector<Op> ops = attention_decode_ops(limited.attention, limits, limited.tuning);
  ASSERT_EQ(ops.size(), pair_ops.size());
  for (size_t i = 0; i < ops.size(); ++i) EXPECT_EQ(ops[i].kernel->name, pair_ops[i].kernel->name) << "op " << i;
  EXPECT_EQ(ops[0].phase, Phase::AttnRope);
  run_ops(ops, BarrierPolicy::Ledger);
  const uint32_t width = c.n_heads * c.head_dim;
  const auto a = download_floats(pair.o, width), b = download_floats(limited.o, width);
  for (uint32_t i = 0; i < width; ++i) ASSERT_EQ(bits_of(b[i]), bits_of(a[i])) << "output " << i;

  if (!build_info().has_intdot_shaders) return;
  limited.tuning.split = 4096;  // one split: attn_decode ends the stream and quantizes
  limited.tuning.rope_max_workgroups = 0;
  QuantizedBuffer quantized(width, 1);
  const std::vector<Op> q_ops = attention_decode_quantize_ops(limited.attention, quantized.view, limits, limited.tuning);
  ASSERT_EQ(q_ops.size(), 2u);
  EXPECT_EQ(q_ops[0].kernel->name, "qk_norm_rope_kv");
  EXPECT_EQ(q_ops[1].kernel->name, "attn_decode_quantize");
}

TEST(AttentionDecodeRopeOps, RefusesARopeThatIsNotTheToken) {
  const RopeCase c{RopeStyle::Neox, true, false, 4, 2, 64, 64, 10};
  const Inputs in = make_inputs(c);
  const Layer l = make_layer(c, in.column, in.norms, in.cache);
  const BindingLimits limits = BindingLimits::of(device().info());
  auto with = [&](auto change) {
    AttentionDecodeProblem p = l.attention;
    p.rope = AttentionDecodeRope{l.rope, l.kv.v};
    change(*p.rope);
    return p;
  };
  EXPECT_NO_THROW(attention_decode_ops(with([](AttentionDecodeRope&) {}), limits, l.tuning));
  const auto refused = [&](auto change) { EXPECT_THROW(attention_decode_ops(with(change), limits, l.tuning), UsageError); };
  refused([](AttentionDecodeRope& r) { r.qk.pos0 += 1; });
  refused([](AttentionDecodeRope& r) { r.qk.ncols = 2; });
  refused([](AttentionDecodeRope& r) { r.qk.n_q_heads = 2; });
  refused([](AttentionDecodeRope& r) { r.qk.n_k_heads = 1; });
  refused([](AttentionDecodeRope& r) { r.qk.q = r.qk.q.slice(4, r.qk.q.bytes - 4); });
  refused([](AttentionDecodeRope& r) { r.qk.rope_dims = 3; });                    // qk_norm_rope_op's check
  refused([](AttentionDecodeRope& r) { r.v = r.v.slice(0, 64); });                // shorter than a kv row set
}

}  // namespace
}  // namespace pb::test
