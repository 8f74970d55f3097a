// RoPE and KV write in one dispatch (rope_kv_write_op) against the two dispatches it replaces,
// qk_norm_rope_op then kv_write_op, bit for bit: q and k as floats, both caches as halves, and
// every cache row outside [pos0, pos0 + ncols) untouched. The two-dispatch pair has its own
// references (qk_norm_rope_test, kv_write_test), so equality here carries their tolerances.
// Cases: both rope styles, norm on and off, partial rotary, Gemma's 1 + w, head sizes 64 to
// 512, GQA, several columns of a fused qkv buffer with padding, positions away from zero.
#include <gtest/gtest.h>

#include "engine/ops/rope_kv_write_op.h"
#include "harness/errors.h"
#include "tests/engine/kernels/elementwise_fixture.h"

namespace pb::test {
namespace {

struct FusedCase {
  RopeStyle style;
  bool qk_norm, add_one;
  uint32_t q_heads, kv_heads, head_dim, rope_dims, pos0, ncols;
};

void PrintTo(const FusedCase& c, std::ostream* os) {
  *os << (c.style == RopeStyle::Neox ? "neox" : "normal") << (c.qk_norm ? " norm" : "") << (c.add_one ? " 1+w" : "")
      << " heads=" << c.q_heads << "/" << c.kv_heads << " head_dim=" << c.head_dim << " rope_dims=" << c.rope_dims
      << " pos0=" << c.pos0 << " ncols=" << c.ncols;
}

constexpr uint32_t kMaxCtx = 40;

// One attention layer's buffers: a [ncols][q | k | v | pad] column buffer, the norms, the caches.
struct Layer {
  Buffer qkv, q_norm, k_norm, k_cache, v_cache;
  QkNormRopeProblem rope;
  KvWriteProblem kv;
};

Layer make_layer(const FusedCase& p, const std::vector<float>& columns, const std::vector<float>& norms,
                 const std::vector<uint16_t>& cache) {
  const uint32_t q_width = p.q_heads * p.head_dim, kv_width = p.kv_heads * p.head_dim;
  const uint32_t stride = q_width + 2 * kv_width + 12;
  Layer l{upload_floats(columns, "qkv"),
          upload_floats(std::vector<float>(norms.begin(), norms.begin() + p.head_dim), "q_norm"),
          upload_floats(std::vector<float>(norms.begin() + p.head_dim, norms.end()), "k_norm"),
          upload_vector(cache, "k_cache"), upload_vector(cache, "v_cache"), {}, {}};
  const TensorView x = TensorView::whole(l.qkv);
  const TensorView k = x.slice(uint64_t(q_width) * 4, x.bytes - uint64_t(q_width) * 4);
  const TensorView v = x.slice(uint64_t(q_width + kv_width) * 4, x.bytes - uint64_t(q_width + kv_width) * 4);
  l.rope = QkNormRopeProblem{x, k, TensorView{}, TensorView{}, p.q_heads, p.kv_heads, p.head_dim, p.rope_dims,
                             p.pos0, p.ncols, stride, stride, 1000000.0f, 1e-6f, p.style, p.qk_norm, p.add_one};
  if (p.qk_norm) {
    l.rope.q_norm = TensorView::whole(l.q_norm);
    l.rope.k_norm = TensorView::whole(l.k_norm);
  }
  l.kv = KvWriteProblem{k, v, TensorView::whole(l.k_cache), TensorView::whole(l.v_cache), p.kv_heads, p.head_dim,
                        kMaxCtx, p.pos0, p.ncols, stride, stride};
  return l;
}

class RopeKvWriteTest : public GpuTest, public ::testing::WithParamInterface<FusedCase> {};

TEST_P(RopeKvWriteTest, MatchesRopeThenKvWriteBitForBit) {
  const FusedCase& p = GetParam();
  std::mt19937 rng(53 + p.head_dim + p.pos0 + p.ncols);
  const uint32_t stride = p.q_heads * p.head_dim + 2 * p.kv_heads * p.head_dim + 12;
  const auto columns = random_columns(stride, p.ncols, stride, -3.0f, 3.0f, rng);
  const auto norms = random_columns(2 * p.head_dim, 1, 2 * p.head_dim, -1.5f, 1.5f, rng);
  const size_t cache_elems = size_t(p.kv_heads) * kMaxCtx * p.head_dim;
  std::vector<uint16_t> cache(cache_elems);
  for (size_t i = 0; i < cache_elems; ++i) cache[i] = static_cast<uint16_t>(0x3C00 + i % 977);

  Layer pair = make_layer(p, columns, norms, cache);
  const Op two[] = {qk_norm_rope_op(pair.rope), kv_write_op(pair.kv)};
  run_ops(two);
  Layer fused = make_layer(p, columns, norms, cache);
  const Op one = rope_kv_write_op(fused.rope, fused.kv);
  EXPECT_EQ(std::string(one.kernel->name), "qk_norm_rope_kv");
  run_ops(std::span(&one, 1));

  const auto floats_pair = download_floats(pair.qkv, columns.size());
  const auto floats_fused = download_floats(fused.qkv, columns.size());
  for (size_t at = 0; at < columns.size(); ++at) {
    ASSERT_EQ(bits_of(floats_fused[at]), bits_of(floats_pair[at])) << "q/k/v element " << at;
  }
  for (Buffer Layer::*cache_of : {&Layer::k_cache, &Layer::v_cache}) {
    const auto a = download_vector<uint16_t>(pair.*cache_of, cache_elems);
    const auto b = download_vector<uint16_t>(fused.*cache_of, cache_elems);
    size_t written = 0;
    for (size_t i = 0; i < cache_elems; ++i) {
      ASSERT_EQ(b[i], a[i]) << (cache_of == &Layer::k_cache ? "k" : "v") << " cache element " << i;
      written += b[i] != cache[i];
    }
    // The rows [pos0, pos0 + ncols) of every head were written (a random value that happens to
    // equal the pattern is rare enough not to matter at these sizes).
    EXPECT_GT(written, size_t(p.kv_heads) * p.ncols * p.head_dim * 9 / 10);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Variants, RopeKvWriteTest,
    ::testing::Values(FusedCase{RopeStyle::Normal, false, false, 4, 1, 128, 128, 0, 1},   // Llama, decode
                      FusedCase{RopeStyle::Neox, true, false, 4, 2, 128, 128, 17, 1},     // Qwen3, decode
                      FusedCase{RopeStyle::Neox, true, false, 4, 2, 128, 128, 5, 6},      // Qwen3, prefill
                      FusedCase{RopeStyle::Neox, true, false, 2, 1, 256, 64, 30, 3},      // Qwen3.5 partial
                      FusedCase{RopeStyle::Neox, true, true, 4, 2, 256, 256, 1, 4},       // Gemma sliding
                      FusedCase{RopeStyle::Neox, true, true, 2, 1, 512, 512, 39, 1},      // Gemma global, last row
                      FusedCase{RopeStyle::Normal, true, false, 3, 3, 64, 32, 8, 2}));    // MHA, partial

TEST(RopeKvWriteOps, RefusesHalvesThatDisagree) {
  const FusedCase p{RopeStyle::Neox, true, false, 4, 2, 64, 64, 3, 2};
  const uint32_t stride = 4 * 64 + 2 * 2 * 64 + 12;
  std::mt19937 rng(7);
  const Layer l = make_layer(p, random_columns(stride, p.ncols, stride, -1.0f, 1.0f, rng),
                             std::vector<float>(128, 1.0f), std::vector<uint16_t>(2 * kMaxCtx * 64));
  EXPECT_NO_THROW(rope_kv_write_op(l.rope, l.kv));
  auto refused = [&](auto change) {
    KvWriteProblem kv = l.kv;
    change(kv);
    EXPECT_THROW(rope_kv_write_op(l.rope, kv), UsageError);
  };
  refused([](KvWriteProblem& kv) { kv.pos0 += 1; });
  refused([](KvWriteProblem& kv) { kv.ncols = 1; });
  refused([](KvWriteProblem& kv) { kv.head_dim = 32; });
  refused([](KvWriteProblem& kv) { kv.n_kv_heads = 1; });
  refused([](KvWriteProblem& kv) { kv.k_stride += 4; });
  refused([](KvWriteProblem& kv) { kv.k = kv.k.slice(64 * 4, kv.k.bytes - 64 * 4); });
  refused([](KvWriteProblem& kv) { kv.pos0 = kMaxCtx - 1; });  // differs from the RoPE's too
  // Past the cache: the KV half's own check, with matching positions on both halves.
  QkNormRopeProblem rope = l.rope;
  KvWriteProblem kv = l.kv;
  rope.pos0 = kv.pos0 = kMaxCtx - 1;
  EXPECT_THROW(rope_kv_write_op(rope, kv), UsageError);
  // A cache too small for [n_kv_heads][max_ctx][head_dim].
  kv = l.kv;
  kv.k_cache = kv.k_cache.slice(0, 64);
  EXPECT_THROW(rope_kv_write_op(l.rope, kv), UsageError);
}

}  // namespace
}  // namespace pb::test
