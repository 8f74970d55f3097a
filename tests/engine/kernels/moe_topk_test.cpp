// MoE routing against the CPU reference: top-k (random logits, ties, an all-equal row, NaN,
// -inf and signed zeros; renormalized and not) and the grouping work list (decode, a 13-token
// prefill whose tokens share experts, every expert selected once, the kernel's size limits).
// Expert ids, items and assignments must match exactly. Route weights: |gpu - ref| <=
// 2e-5 * ref + 1e-7 (float32 exp and a float32 sum over E terms against float64), and exactly
// 0 where the reference is 0.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "engine/ops/moe_routing_ops.h"
#include "engine/reference/moe_ref.h"
#include "harness/errors.h"
#include "tests/engine/kernels/moe_fixture.h"

namespace pb::test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

enum class Logits { Random, Ties, AllEqual, Special };

struct TopkCase {
  uint32_t experts, top_k, ncols;
  bool norm;
  Logits logits;
};

void PrintTo(const TopkCase& c, std::ostream* os) {
  static const char* names[] = {"random", "ties", "all-equal", "special"};
  *os << "E=" << c.experts << " K=" << c.top_k << " C=" << c.ncols << (c.norm ? " norm " : " ")
      << names[int(c.logits)];
}

// Rows with NaN, -inf and signed zeros (E >= 8, K = 4, 6 rows).
std::vector<float> special_rows(uint32_t e, uint32_t stride) {
  std::vector<float> v(size_t(6) * stride, kPadding);
  auto row = [&](uint32_t t) { return v.data() + size_t(t) * stride; };
  for (uint32_t t = 0; t < 6; ++t) std::fill_n(row(t), e, -1.0f);
  row(0)[0] = kNaN;  // NaN first: never beats a number
  row(0)[5] = 2.0f;
  std::fill_n(row(1), e, kNaN);  // two numbers, then NaNs by index with weight 0
  row(1)[6] = 0.5f;
  row(1)[3] = 1.5f;
  row(2)[4] = 0.0f;  // +0 after -0 by index: they tie
  row(2)[1] = -0.0f;
  row(2)[7] = -kInf;
  std::fill_n(row(3), e, -kInf);  // -inf after numbers, before NaN
  row(3)[2] = kNaN;
  row(3)[6] = 3.0f;
  std::fill_n(row(4), e, -kInf);  // no numbers at all: experts 0..K-1, weight 0
  std::fill_n(row(5), e, kNaN);
  return v;
}

class MoeTopkTest : public GpuTest, public ::testing::WithParamInterface<TopkCase> {};

// The case's router logits, `stride` floats a token.
std::vector<float> case_logits(const TopkCase& p, uint32_t stride) {
  std::mt19937 rng(11 + p.experts + p.ncols);
  if (p.logits == Logits::Special) return special_rows(p.experts, stride);
  std::vector<float> logits = random_columns(p.experts, p.ncols, stride, -4.0f, 4.0f, rng);
  for (auto& v : logits) {
    if (v == kPadding) continue;
    if (p.logits == Logits::Ties) v = std::round(v);  // nine values among E: many ties
    if (p.logits == Logits::AllEqual) v = 0.25f;
  }
  return logits;
}

TEST_P(MoeTopkTest, MatchesTheReference) {
  const TopkCase& p = GetParam();
  const uint32_t stride = p.experts + 5;
  const std::vector<float> logits = case_logits(p, stride);
  const MoeShape shape{p.experts, p.top_k, 64, 0, p.norm};
  RoutingBuffers rb = make_routing(shape, p.ncols);
  Buffer lb = upload_floats(logits, "logits");
  const Op op = moe_topk_op(shape, TensorView::whole(lb), stride, p.ncols, rb.routing);
  run_ops(std::span(&op, 1));

  const size_t n = size_t(p.ncols) * p.top_k;
  const auto gpu_e = download_u32(rb.routing.route_e, n);
  const auto gpu_w = transfer().download_as<float>(*rb.buffer, rb.routing.route_w.offset, n);
  std::vector<uint32_t> ref_e(n);
  std::vector<float> ref_w(n);
  ref::moe_topk(logits, stride, p.experts, p.top_k, p.norm, p.ncols, ref_e, ref_w);
  double worst = 0;
  for (size_t a = 0; a < n; ++a) {
    ASSERT_EQ(gpu_e[a], ref_e[a]) << "token " << a / p.top_k << " choice " << a % p.top_k;
    if (ref_w[a] == 0.0f) {
      ASSERT_EQ(gpu_w[a], 0.0f) << "assignment " << a;
      continue;
    }
    ASSERT_NEAR(gpu_w[a], ref_w[a], 2e-5 * ref_w[a] + 1e-7) << "assignment " << a;
    worst = std::max(worst, std::fabs(double(gpu_w[a]) - ref_w[a]) / ref_w[a]);
  }
  record_worst("worst_rel_weight_error", worst);
  if (p.logits == Logits::AllEqual) {  // experts 0..K-1 in order, equal weights
    for (size_t a = 0; a < n; ++a) ASSERT_EQ(gpu_e[a], a % p.top_k);
    ASSERT_NEAR(gpu_w[0], p.norm ? 1.0 / p.top_k : 1.0 / p.experts, 1e-6);
  }
}

const TopkCase kTopkCases[] = {
    TopkCase{16, 4, 5, true, Logits::Random},    TopkCase{16, 4, 5, false, Logits::Random},
    TopkCase{256, 8, 3, true, Logits::Random},   TopkCase{128, 8, 2, false, Logits::Random},
    TopkCase{128, 8, 4, true, Logits::Ties},     TopkCase{16, 4, 6, false, Logits::Ties},
    TopkCase{128, 8, 1, true, Logits::AllEqual}, TopkCase{16, 3, 2, false, Logits::AllEqual},
    TopkCase{8, 4, 6, true, Logits::Special},    TopkCase{8, 4, 6, false, Logits::Special},
    // More rounds than a subgroup has lanes (32 on NVIDIA, fewer on lavapipe): a lane keeps
    // several rounds' winners and writes several routes and items.
    TopkCase{64, 40, 2, true, Logits::Random},   TopkCase{128, 64, 1, false, Logits::Ties}};

INSTANTIATE_TEST_SUITE_P(Routes, MoeTopkTest, ::testing::ValuesIn(kTopkCases));

TEST(MoeTopkOps, RejectsShapesTheKernelCannotServe) {
  RoutingBuffers rb = make_routing(MoeShape{128, 8, 64, 0, true}, 4);
  Buffer lb(device(), 4 * 128 * 4, MemoryUse::Device, "logits");
  const TensorView logits = TensorView::whole(lb);
  EXPECT_THROW(moe_topk_op(MoeShape{4, 8, 64, 0, true}, logits, 128, 1, rb.routing), UsageError);
  EXPECT_THROW(moe_topk_op(MoeShape{128, 65, 64, 0, true}, logits, 128, 1, rb.routing), UsageError);
  EXPECT_THROW(moe_topk_op(MoeShape{128, 8, 64, 0, true}, logits, 128, 5, rb.routing), UsageError);
  EXPECT_THROW(moe_group_op(MoeShape{1024, 8, 64, 0, true}, 1, rb.routing), UsageError);
  EXPECT_THROW(moe_group_op(MoeShape{128, 8, 64, 0, true}, 129, rb.routing), UsageError);
}

struct GroupCase {
  const char* name;
  uint32_t experts, top_k, ncols, pool;  // pool: routes drawn from the first `pool` experts
};

void PrintTo(const GroupCase& c, std::ostream* os) { *os << c.name; }

class MoeGroupTest : public GpuTest, public ::testing::WithParamInterface<GroupCase> {};

// Runs moe_group over `routes` and checks the work list against the reference.
void expect_work_list(const MoeShape& shape, uint32_t ncols, const std::vector<uint32_t>& routes,
                      RoutingBuffers& rb, bool upload) {
  if (upload) upload_u32(rb.routing.route_e, routes);
  const Op op = moe_group_op(shape, ncols, rb.routing);
  run_ops(std::span(&op, 1), BarrierPolicy::Ledger);
  expect_reference_work_list(shape, ncols, routes, rb);
}

TEST_P(MoeGroupTest, MatchesTheReference) {
  const GroupCase& p = GetParam();
  std::mt19937 rng(5 + p.ncols + p.experts);
  const MoeShape shape{p.experts, p.top_k, 64, 0, true};
  RoutingBuffers rb = make_routing(shape, p.ncols);
  std::vector<uint32_t> routes = random_routes(p.ncols, p.top_k, p.pool, rng);
  if (p.pool == p.experts && p.ncols * p.top_k == p.experts) {  // every expert exactly once
    routes.resize(p.experts);
    std::iota(routes.begin(), routes.end(), 0u);
    std::shuffle(routes.begin(), routes.end(), rng);
  }
  expect_work_list(shape, p.ncols, routes, rb, true);
}

INSTANTIATE_TEST_SUITE_P(
    WorkLists, MoeGroupTest,
    ::testing::Values(GroupCase{"decode", 128, 8, 1, 128}, GroupCase{"prefill_shared", 16, 4, 13, 6},
                      GroupCase{"each_once", 32, 4, 8, 32}, GroupCase{"one_expert_for_all", 8, 1, 13, 1},
                      GroupCase{"limit_256x8x128", 256, 8, 128, 256},
                      GroupCase{"limit_512x2x512", 512, 2, 512, 512}),
    [](const auto& info) { return std::string(info.param.name); });

class MoeRoutingChainTest : public GpuTest {};

// moe_topk feeding moe_group on the device, ties included.
TEST_F(MoeRoutingChainTest, GroupFollowsTopkOnTheDevice) {
  std::mt19937 rng(99);
  const uint32_t E = 16, C = 13, stride = 16;
  const MoeShape shape{E, 4, 64, 0, true};
  auto logits = random_columns(E, C, stride, -2.0f, 2.0f, rng);
  for (auto& v : logits) v = std::round(v * 2.0f);  // ties
  RoutingBuffers rb = make_routing(shape, C);
  Buffer lb = upload_floats(logits, "logits");
  const Op topk = moe_topk_op(shape, TensorView::whole(lb), stride, C, rb.routing);
  run_ops(std::span(&topk, 1));
  std::vector<uint32_t> routes(size_t(C) * 4);
  std::vector<float> weights(routes.size());
  ref::moe_topk(logits, stride, E, 4, true, C, routes, weights);
  ASSERT_EQ(download_u32(rb.routing.route_e, routes.size()), routes);
  expect_work_list(shape, C, routes, rb, false);
}

// A decode token's routes and work list in one dispatch (moe_topk_group_op): each row of every
// top-k case above as that token, against the reference top-k and the reference grouping of
// its routes (what moe_topk then moe_group write).
class MoeTopkGroupTest : public GpuTest, public ::testing::WithParamInterface<TopkCase> {};

TEST_P(MoeTopkGroupTest, WritesWhatTopkThenGroupWrite) {
  const TopkCase& p = GetParam();
  const uint32_t stride = p.experts + 5;
  const std::vector<float> logits = case_logits(p, stride);
  const MoeShape shape{p.experts, p.top_k, 64, 0, p.norm};
  for (uint32_t t = 0; t < p.ncols; ++t) {
    const std::vector<float> row(logits.begin() + size_t(t) * stride, logits.begin() + size_t(t) * stride + p.experts);
    RoutingBuffers rb = make_routing(shape, 1);
    Buffer lb = upload_floats(row, "logits");
    const Op op = moe_topk_group_op(shape, TensorView::whole(lb), rb.routing);
    run_ops(std::span(&op, 1));
    std::vector<uint32_t> ref_e(p.top_k);
    std::vector<float> ref_w(p.top_k);
    ref::moe_topk(row, p.experts, p.experts, p.top_k, p.norm, 1, ref_e, ref_w);
    ASSERT_EQ(download_u32(rb.routing.route_e, p.top_k), ref_e) << "token " << t;
    const auto gpu_w = transfer().download_as<float>(*rb.buffer, rb.routing.route_w.offset, p.top_k);
    for (uint32_t j = 0; j < p.top_k; ++j) {
      ASSERT_NEAR(gpu_w[j], ref_w[j], 2e-5 * ref_w[j] + 1e-7) << "token " << t << " choice " << j;
    }
    expect_reference_work_list(shape, 1, ref_e, rb);
    if (HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Routes, MoeTopkGroupTest, ::testing::ValuesIn(kTopkCases));

// A prefill chunk's routes and work list in one dispatch (moe_topk_chunk_group_op) write what
// moe_topk then moe_group write, bit for bit: twice over the same buffers, the second time with
// the logits negated, so the second dispatch counts its arrivals from the zero the first left.
class MoeTopkChunkGroupTest : public GpuTest, public ::testing::WithParamInterface<TopkCase> {};

TEST_P(MoeTopkChunkGroupTest, WritesWhatTopkThenGroupWrite) {
  const TopkCase& p = GetParam();
  const uint32_t stride = p.experts + 5;
  const MoeShape shape{p.experts, p.top_k, 64, 0, p.norm};
  RoutingBuffers fused = make_routing(shape, p.ncols), plain = make_routing(shape, p.ncols);
  upload_u32(fused.routing.arrivals, {0u});
  const size_t n = size_t(p.ncols) * p.top_k;
  const uint32_t capacity = moe_item_capacity(shape, p.ncols);
  for (uint32_t round = 0; round < 2; ++round) {
    std::vector<float> logits = case_logits(p, stride);
    if (round == 1) {
      for (auto& v : logits) v = v == kPadding ? v : -v;  // other routes
    }
    Buffer lb = upload_floats(logits, "logits");
    const Op one = moe_topk_chunk_group_op(shape, TensorView::whole(lb), stride, p.ncols, fused.routing);
    run_ops(std::span(&one, 1), BarrierPolicy::Ledger);
    const Op two[] = {moe_topk_op(shape, TensorView::whole(lb), stride, p.ncols, plain.routing),
                      moe_group_op(shape, p.ncols, plain.routing)};
    run_ops(two, BarrierPolicy::Ledger);
    // The same view of both routings, as words.
    const auto same = [&](TensorView MoeRouting::*view, size_t count) {
      const auto words = [&](const RoutingBuffers& rb) {
        return transfer().download_as<uint32_t>(*rb.buffer, (rb.routing.*view).offset, count);
      };
      return words(fused) == words(plain);
    };
    EXPECT_TRUE(same(&MoeRouting::route_e, n)) << "route_e, round " << round;
    EXPECT_TRUE(same(&MoeRouting::route_w, n)) << "route_w, round " << round;
    EXPECT_TRUE(same(&MoeRouting::items, size_t(capacity) * 4)) << "items, round " << round;
    EXPECT_TRUE(same(&MoeRouting::assignments, n)) << "assignments, round " << round;
    EXPECT_TRUE(same(&MoeRouting::counter, 1)) << "counter, round " << round;
    EXPECT_EQ(download_u32(fused.routing.arrivals, 1)[0], 0u) << "the count is left at zero, round " << round;
    if (HasFailure()) return;
  }
}

// Chunks of one to 128 tokens (one to four words of tokens per expert), up to 512 experts, ties
// and special values, more rounds than a subgroup has lanes.
INSTANTIATE_TEST_SUITE_P(
    Routes, MoeTopkChunkGroupTest,
    ::testing::Values(TopkCase{16, 4, 13, true, Logits::Ties}, TopkCase{256, 8, 32, true, Logits::Random},
                      TopkCase{128, 8, 33, false, Logits::Random}, TopkCase{512, 2, 128, true, Logits::Ties},
                      TopkCase{8, 4, 6, true, Logits::Special}, TopkCase{64, 40, 2, true, Logits::Random},
                      TopkCase{16, 3, 1, false, Logits::AllEqual}));

TEST(MoeTopkChunkGroupOps, RefusesChunksPastTheKernelsMasks) {
  RoutingBuffers rb = make_routing(MoeShape{1024, 2, 64, 0, true}, 129);
  Buffer lb(device(), 129 * 1024 * 4, MemoryUse::Device, "logits");
  EXPECT_THROW(moe_topk_chunk_group_op(MoeShape{16, 2, 64, 0, true}, TensorView::whole(lb), 16, 129, rb.routing),
               UsageError);  // 129 tokens
  EXPECT_THROW(moe_topk_chunk_group_op(MoeShape{1024, 1, 64, 0, true}, TensorView::whole(lb), 1024, 4, rb.routing),
               UsageError);  // 1024 experts
}

}  // namespace
}  // namespace pb::test
