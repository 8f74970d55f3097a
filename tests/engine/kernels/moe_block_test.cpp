// A whole MoE block on the device (moe_block_ops: router, top-k, grouping, expert gate/up,
// SwiGLU, down, weighted accumulation, and the shared expert with and without its sigmoid
// gate) against ref::moe_block on the dequantized weights: E = 8 or 16, K = 2..4, decode
// (C = 1) and a 6-token chunk, mixed weight formats, renormalized routes and not. The routes
// must match exactly (inputs are drawn so that no two router logits at the top-K boundary lie
// within 1e-3 of each other, where float32 rounding could swap them), and in the cases marked
// `poison` every expert no token selected holds NaN blocks, so a finite output shows that only
// the selected experts' weights were read.
// Tolerance: |gpu - ref| <= 2e-5 * (max_i |ref_i - x0_i| of the column) + 1e-6, float32
// accumulations in the kernels against float64 dot products.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "engine/ops/moe_block_ops.h"
#include "engine/reference/moe_ref.h"
#include "tests/engine/kernels/moe_fixture.h"

namespace pb::test {
namespace {

struct BlockCase {
  const char* name;
  MoeShape shape;
  uint32_t ncols;
  WeightFormat router, gate_up, down, shared;
  bool shared_gated;
  bool poison;
};

void PrintTo(const BlockCase& c, std::ostream* os) { *os << c.name; }

constexpr uint32_t kHidden = 256;

// A weight tensor on the host (quantized and dequantized) and on the device.
struct Tensor {
  WeightFormat format;
  uint32_t cols;
  StackedExperts host;
  std::unique_ptr<Buffer> buffer;
  MoeWeightView view() const { return {format, buffer ? TensorView::whole(*buffer) : TensorView{}}; }
  void upload(const char* name) { buffer = std::make_unique<Buffer>(upload_weights(format, cols, host.bytes, name)); }
};

Tensor random_tensor(WeightFormat f, uint32_t experts, uint32_t rows, uint32_t cols, float scale,
                     std::mt19937& rng) {
  return {f, cols, random_experts(f, experts, rows, cols, scale, rng), nullptr};
}

Buffer scratch(uint64_t floats, const char* name) {
  return Buffer(device(), floats * 4, MemoryUse::Device, name);
}

// Router logits [C][E] as the reference computes them (float64 dots, rounded).
std::vector<float> router_logits(const std::vector<float>& router, const std::vector<float>& xn,
                                 uint32_t E, uint32_t C) {
  std::vector<float> logits(size_t(C) * E);
  for (uint32_t c = 0; c < C; ++c) {
    for (uint32_t e = 0; e < E; ++e) {
      double sum = 0;
      for (uint32_t k = 0; k < kHidden; ++k) sum += double(router[e * kHidden + k]) * xn[c * kHidden + k];
      logits[size_t(c) * E + e] = static_cast<float>(sum);
    }
  }
  return logits;
}

// Smallest gap between the K-th and (K+1)-th router logit over the columns.
double boundary_gap(const std::vector<float>& logits, uint32_t E, uint32_t K, uint32_t C) {
  double gap = INFINITY;
  for (uint32_t c = 0; c < C; ++c) {
    std::vector<float> row(logits.begin() + size_t(c) * E, logits.begin() + size_t(c + 1) * E);
    std::sort(row.rbegin(), row.rend());
    gap = std::min(gap, double(row[K - 1]) - row[K]);
  }
  return gap;
}

class MoeBlockTest : public GpuTest, public ::testing::WithParamInterface<BlockCase> {};

TEST_P(MoeBlockTest, MatchesTheReference) {
  const BlockCase& p = GetParam();
  const MoeShape& s = p.shape;
  const uint32_t E = s.n_experts, K = s.top_k, F = s.expert_ffn, Fs = s.shared_expert_ffn, C = p.ncols;
  const uint32_t H = kHidden;
  std::mt19937 rng(7 + E * 31 + C);
  Tensor router{}, shared_gate_inp{};
  std::vector<float> xn;
  do {  // redraw until no near-tie sits at the top-K boundary
    router = random_tensor(p.router, 1, E, H, 0.15f, rng);
    xn = random_columns(H, C, H, -1.0f, 1.0f, rng);
  } while (boundary_gap(router_logits(router.host.dequantized, xn, E, C), E, K, C) < 1e-3);
  Tensor gate = random_tensor(p.gate_up, E, F, H, 0.08f, rng);
  Tensor up = random_tensor(p.gate_up, E, F, H, 0.08f, rng);
  Tensor down = random_tensor(p.down, E, H, F, 0.08f, rng);
  Tensor sgate{}, sup{}, sdown{};
  if (Fs) {
    sgate = random_tensor(p.shared, 1, Fs, H, 0.08f, rng);
    sup = random_tensor(p.shared, 1, Fs, H, 0.08f, rng);
    sdown = random_tensor(p.shared, 1, H, Fs, 0.08f, rng);
    if (p.shared_gated) shared_gate_inp = random_tensor(WeightFormat::F32, 1, 1, H, 0.1f, rng);
  }
  const auto x0 = random_columns(H, C, H, -1.0f, 1.0f, rng);

  ASSERT_EQ(ref::dequantize_tensor(down.format, down.host.bytes, uint64_t(E) * H, F), down.host.dequantized);
  std::vector<float> expected = x0;
  const ref::MoeDenseWeights dense{router.host.dequantized, gate.host.dequantized, up.host.dequantized,
                                   down.host.dequantized, sgate.host.dequantized, sup.host.dequantized,
                                   sdown.host.dequantized, shared_gate_inp.host.dequantized};
  ref::moe_block(s, H, dense, xn, H, expected, H, C);
  std::vector<uint32_t> ref_routes(size_t(C) * K);
  std::vector<float> ref_weights(ref_routes.size());
  ref::moe_topk(router_logits(router.host.dequantized, xn, E, C), E, E, K, s.norm_topk, C, ref_routes,
                ref_weights);
  if (p.poison) {
    uint32_t poisoned = 0;
    for (Tensor* t : {&gate, &up, &down}) poisoned = poison_unselected(t->host.bytes, E, ref_routes);
    ASSERT_GT(poisoned, 0u);
  }
  for (Tensor* t : {&router, &gate, &up, &down}) t->upload("weights");
  if (Fs) {
    for (Tensor* t : {&sgate, &sup, &sdown}) t->upload("shared");
    if (p.shared_gated) shared_gate_inp.upload("shared_gate_inp");
  }

  Buffer xnb = upload_floats(xn, "xn"), xb = upload_floats(x0, "x");
  Buffer logits = scratch(size_t(C) * E, "logits");
  Buffer g = scratch(size_t(C) * K * F, "gate"), u = scratch(size_t(C) * K * F, "up");
  Buffer act = scratch(size_t(C) * K * F, "act"), out = scratch(size_t(C) * K * H, "out");
  const uint32_t fs = std::max(Fs, 4u);
  Buffer sg = scratch(size_t(C) * fs, "sgate"), su = scratch(size_t(C) * fs, "sup");
  Buffer sa = scratch(size_t(C) * fs, "sact"), so = scratch(size_t(C) * H, "sout");
  Buffer sscalar = scratch(C, "sscalar");
  RoutingBuffers rb = make_routing(s, C);
  const MoeBlockScratch sc{TensorView::whole(logits), TensorView::whole(g), TensorView::whole(u),
                           TensorView::whole(act), TensorView::whole(out), TensorView::whole(sg),
                           TensorView::whole(su), TensorView::whole(sa), TensorView::whole(so),
                           TensorView::whole(sscalar), rb.routing, E, F, H, Fs};
  const MoeBlockWeights w{router.view(), gate.view(), up.view(), down.view(), sgate.view(),
                          sup.view(), sdown.view(), shared_gate_inp.view()};
  const MoeBlockProblem problem{s, H, C, TensorView::whole(xnb), TensorView::whole(xb), H, H};
  const auto ops = moe_block_ops(problem, w, sc, NumColsMode{}, BindingLimits::of(device().info()));
  run_ops(ops, BarrierPolicy::Ledger);

  ASSERT_EQ(download_u32(rb.routing.route_e, ref_routes.size()), ref_routes);
  const auto gpu = download_floats(xb, x0.size());
  double worst = 0;
  for (uint32_t c = 0; c < C; ++c) {
    double scale = 0;
    for (uint32_t i = 0; i < H; ++i) {
      scale = std::max(scale, std::fabs(double(expected[c * H + i]) - x0[c * H + i]));
    }
    ASSERT_GT(scale, 1e-3) << "the block changed column " << c << " too little to test";
    for (uint32_t i = 0; i < H; ++i) {
      const size_t at = size_t(c) * H + i;
      ASSERT_TRUE(std::isfinite(gpu[at])) << "column " << c << " element " << i;
      ASSERT_NEAR(gpu[at], expected[at], 2e-5 * scale + 1e-6) << "column " << c << " element " << i;
      worst = std::max(worst, std::fabs(double(gpu[at]) - expected[at]) / scale);
    }
  }
  record_worst("worst_error_per_scale", worst);
}

using WF = WeightFormat;
INSTANTIATE_TEST_SUITE_P(
    Blocks, MoeBlockTest,
    // name, {E, K, F, Fs, norm}, C, formats: router, gate/up, down, shared; gated; poison
    ::testing::Values(
        BlockCase{"qwen35_decode", {8, 2, 256, 256, true}, 1,  //
                  WF::F32, WF::Q4_K, WF::Q6_K, WF::Q8_0, true, true},
        BlockCase{"qwen35_chunk", {16, 4, 256, 256, true}, 6,  //
                  WF::F32, WF::Q4_K, WF::Q6_K, WF::Q8_0, true, false},
        BlockCase{"qwen3_chunk_unnormalized", {8, 3, 256, 0, false}, 6,  //
                  WF::F16, WF::Q8_0, WF::Q8_0, WF::F32, false, false},
        BlockCase{"ungated_shared_decode", {16, 4, 256, 256, true}, 1,  //
                  WF::F32, WF::F16, WF::F16, WF::F16, false, true},
        BlockCase{"chunk_poisoned", {16, 2, 256, 0, true}, 6,  //
                  WF::F32, WF::Q4_K, WF::Q4_K, WF::F32, false, true}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace pb::test
