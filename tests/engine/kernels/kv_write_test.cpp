// KV-cache append against the reference: several head counts and head sizes, one and several
// columns at positions that are not aligned to anything, padded k/v strides, k and v as parts
// of one fused qkv buffer, and every cache row outside [pos0, pos0 + ncols) left untouched.
// Tolerance: at most 1 f16 ulp from round-to-nearest-even (SPIR-V leaves the rounding of a
// float -> f16 conversion to the implementation; lavapipe rounds to nearest even, so the test
// also counts exact matches and expects them all there).
#include <gtest/gtest.h>

#include <cstdlib>

#include "engine/ops/kv_write_op.h"
#include "engine/quant/f16.h"
#include "engine/reference/kv_write_ref.h"
#include "harness/errors.h"
#include "tests/engine/kernels/elementwise_fixture.h"

namespace pb::test {
namespace {

struct KvWriteCase {
  uint32_t n_kv_heads, head_dim, max_ctx, pos0, ncols;
};

void PrintTo(const KvWriteCase& c, std::ostream* os) {
  *os << c.n_kv_heads << " heads x " << c.head_dim << " max_ctx=" << c.max_ctx
      << " pos0=" << c.pos0 << " ncols=" << c.ncols;
}

class KvWriteTest : public GpuTest, public ::testing::WithParamInterface<KvWriteCase> {};

// Half bits as a monotonic integer, so the ulp distance of two halves is a difference.
int ordered(uint16_t h) { return (h & 0x8000) ? -(h & 0x7FFF) : h; }

TEST_P(KvWriteTest, MatchesTheReference) {
  const KvWriteCase& p = GetParam();
  std::mt19937 rng(19 + p.pos0 + p.ncols);
  const uint32_t width = p.n_kv_heads * p.head_dim;
  // A fused [ncols][q | k | v | pad] buffer: k at float 64, v right after k.
  const uint32_t stride = 64 + 2 * width + 8;
  const auto qkv = random_columns(stride, p.ncols, stride, -3.0f, 3.0f, rng);
  const size_t cache_elems = size_t(p.n_kv_heads) * p.max_ctx * p.head_dim;
  std::vector<uint16_t> k_cache(cache_elems), v_cache(cache_elems);
  for (size_t i = 0; i < cache_elems; ++i) {  // a recognizable pattern in rows not written
    k_cache[i] = static_cast<uint16_t>(0x3C00 + i % 977);
    v_cache[i] = static_cast<uint16_t>(0xBC00 + i % 983);
  }
  Buffer xb = upload_floats(qkv, "qkv");
  Buffer kc = upload_vector(k_cache, "k_cache"), vc = upload_vector(v_cache, "v_cache");
  const TensorView x = TensorView::whole(xb);
  const Op op = kv_write_op({x.slice(64 * 4, xb.size() - 64 * 4),
                             x.slice(uint64_t(64 + width) * 4, xb.size() - uint64_t(64 + width) * 4),
                             TensorView::whole(kc), TensorView::whole(vc), p.n_kv_heads,
                             p.head_dim, p.max_ctx, p.pos0, p.ncols, stride, stride});
  run_ops(std::span(&op, 1));
  const auto k_gpu = download_vector<uint16_t>(kc, cache_elems);
  const auto v_gpu = download_vector<uint16_t>(vc, cache_elems);

  std::vector<uint16_t> k_ref = k_cache, v_ref = v_cache;
  ref::kv_write(std::span(qkv).subspan(64), std::span(qkv).subspan(64 + width), p.n_kv_heads,
                p.head_dim, p.max_ctx, p.pos0, p.ncols, stride, stride, k_ref, v_ref);
  size_t inexact = 0;
  for (size_t i = 0; i < cache_elems; ++i) {
    const size_t row = (i / p.head_dim) % p.max_ctx;
    const bool written = row >= p.pos0 && row < p.pos0 + p.ncols;
    for (const auto& [gpu, ref] : {std::pair{k_gpu[i], k_ref[i]}, std::pair{v_gpu[i], v_ref[i]}}) {
      if (!written) {
        ASSERT_EQ(gpu, ref) << "row " << row << " outside the columns was written";
        continue;
      }
      ASSERT_LE(std::abs(ordered(gpu) - ordered(ref)), 1) << "element " << i;
      inexact += gpu != ref;
    }
  }
  EXPECT_EQ(inexact, 0u) << "conversions that did not round to nearest even";
}

INSTANTIATE_TEST_SUITE_P(Shapes, KvWriteTest,
                         ::testing::Values(KvWriteCase{2, 64, 16, 0, 1}, KvWriteCase{8, 128, 40, 13, 1},
                                           KvWriteCase{2, 256, 64, 5, 7}, KvWriteCase{4, 96, 32, 31, 1},
                                           KvWriteCase{3, 512, 24, 17, 7}));

TEST(KvWriteOps, BindsTheWholeLayerCacheAndRejectsPositionsPastMaxCtx) {
  Buffer x(device(), 4 * 256, MemoryUse::Device, "x");
  Buffer cache(device(), 2 * 2 * 16 * 64, MemoryUse::Device, "cache");
  KvWriteProblem p{TensorView::whole(x), TensorView::whole(x), TensorView::whole(cache),
                   TensorView::whole(cache), 2, 64, 16, 15, 1, 128, 128};
  const Op op = kv_write_op(p);
  EXPECT_EQ(op.bindings[2].size, cache.size());
  EXPECT_EQ(op.bindings[2].access, Access::Write);
  p.ncols = 2;  // positions 15 and 16 of 16
  EXPECT_THROW(kv_write_op(p), UsageError);
}

}  // namespace
}  // namespace pb::test
