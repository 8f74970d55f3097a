// The matmul op builder (kernel choice, slicing, tiling checks), its cost model, and the CPU
// model of the cooperative-matrix kernels' f16 rounding that justifies their tolerance.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "engine/ops/matmul_cost.h"
#include "engine/ops/matmul_op.h"
#include "engine/quant/blocks.h"
#include "engine/quant/f16.h"
#include "engine/quant/quantize.h"
#include "harness/errors.h"
#include "kernels/registry.h"
#include "tests/support/gpu_test.h"

namespace pb::test {
namespace {

ProjectionProblem problem_on(const Buffer& w, const Buffer& x, const Buffer& y, WeightFormat f,
                             uint32_t rows, uint32_t cols, uint32_t tokens) {
  return {f, TensorView::whole(w), TensorView::whole(x), TensorView::whole(y), rows, cols, tokens, cols, rows,
          false};
}

TEST(MatmulOps, OneOpTilesRowsAndTokens) {
  Buffer w(device(), row_bytes(WeightFormat::Q4_K, 512) * 300, MemoryUse::Device, "w");
  Buffer x(device(), 4 * 512 * 100, MemoryUse::Device, "x");
  Buffer y(device(), 4 * 300 * 100, MemoryUse::Device, "y");
  const auto ops = matmul_ops(problem_on(w, x, y, WeightFormat::Q4_K, 300, 512, 100),
                              BindingLimits::of(device().info()));
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].kernel->name, "matmul_q4_k");
  EXPECT_EQ(ops[0].groups[0], 2u);  // ceil(100 / 64) token tiles
  EXPECT_EQ(ops[0].groups[1], 3u);  // ceil(300 / 128) row tiles
  EXPECT_EQ(ops[0].spec.values[5], 256);  // (128 / 8) * (64 / 4) threads
  EXPECT_NO_THROW(validate_op(ops[0], device().info()));
}

TEST(MatmulOps, CoopmatWorkgroupIsOneSubgroupPerBlock) {
  Buffer w(device(), row_bytes(WeightFormat::Q4_K, 512) * 300, MemoryUse::Device, "w");
  Buffer x(device(), 4 * 512 * 100, MemoryUse::Device, "x");
  Buffer y(device(), 4 * 300 * 100, MemoryUse::Device, "y");
  MatmulChoice choice;
  choice.coopmat = true;
  choice.subgroup_size = 32;
  choice.coop = CoopmatTiling{128, 64, 32, 64, 32, 2};
  if (find_kernel("matmul_coopmat_q4_k") == nullptr) {  // a build without cooperative matrices
    EXPECT_THROW(matmul_ops(problem_on(w, x, y, WeightFormat::Q4_K, 300, 512, 100),
                            BindingLimits::of(device().info()), choice),
                 UsageError);
    return;
  }
  auto ops = matmul_ops(problem_on(w, x, y, WeightFormat::Q4_K, 300, 512, 100), BindingLimits::of(device().info()),
                        choice);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].groups[0], 2u);             // ceil(100 / 64) token tiles
  EXPECT_EQ(ops[0].groups[1], 3u);             // ceil(300 / 128) row tiles
  EXPECT_EQ(ops[0].spec.values[5], 4 * 32);    // 2 x 2 subgroup blocks
  EXPECT_EQ(ops[0].spec.values[3], 64);        // the block's rows, tokens and the stages
  EXPECT_EQ(ops[0].spec.values[4], 32);
  EXPECT_EQ(ops[0].spec.values[7], 2);
}

TEST(MatmulOps, WeightsLargerThanTheBindingRangeAreSplitByRows) {
  const uint64_t rb = row_bytes(WeightFormat::Q8_0, 256);
  Buffer w(device(), rb * 100, MemoryUse::Device, "w");
  Buffer x(device(), 4 * 256 * 3, MemoryUse::Device, "x");
  Buffer y(device(), 4 * 100 * 3, MemoryUse::Device, "y");
  const BindingLimits limits{16, rb * 30};
  const auto ops = matmul_ops(problem_on(w, x, y, WeightFormat::Q8_0, 100, 256, 3), limits);
  ASSERT_GE(ops.size(), 4u);
  uint64_t covered = 0;
  for (const auto& op : ops) {
    EXPECT_LE(op.bindings[0].size, limits.max_range);
    EXPECT_EQ(op.bindings[0].offset % 16, 0u);
    covered += op.bindings[0].size;
  }
  EXPECT_EQ(covered, w.size());
}

TEST(MatmulOps, TokensBeyondTheBindingRangeAreSplitIntoWholeTiles) {
  Buffer w(device(), row_bytes(WeightFormat::F16, 256) * 8, MemoryUse::Device, "w");
  Buffer x(device(), 4 * 256 * 300, MemoryUse::Device, "x");
  Buffer y(device(), 4 * 8 * 300, MemoryUse::Device, "y");
  const BindingLimits limits{16, 4 * 256 * 150};  // 149 tokens of x fit
  const auto ops = matmul_ops(problem_on(w, x, y, WeightFormat::F16, 8, 256, 300), limits);
  ASSERT_EQ(ops.size(), 3u);  // 128 + 128 + 44 tokens
  uint32_t tokens = 0;
  for (const auto& op : ops) {
    EXPECT_LE(op.bindings[1].size, limits.max_range);
    MatmulPush push;
    std::memcpy(&push, op.push.bytes.data(), sizeof push);
    tokens += push.ncols;
  }
  EXPECT_EQ(tokens, 300u);
}

TEST(MatmulOps, RejectsTilingsAndShapesTheKernelsCannotRun) {
  Buffer w(device(), row_bytes(WeightFormat::F32, 12) * 4, MemoryUse::Device, "w");
  Buffer x(device(), 4 * 256, MemoryUse::Device, "x");
  Buffer y(device(), 4 * 256, MemoryUse::Device, "y");
  const BindingLimits limits = BindingLimits::of(device().info());
  EXPECT_THROW(matmul_ops(problem_on(w, x, y, WeightFormat::F32, 4, 12, 1), limits), UsageError);
  ProjectionProblem odd_stride = problem_on(w, x, y, WeightFormat::F32, 2, 16, 2);
  odd_stride.x_stride = 18;
  EXPECT_THROW(matmul_ops(odd_stride, limits), UsageError);
  MatmulChoice bad;
  bad.scalar.tm = 3;  // 128 is not a multiple of 3
  EXPECT_THROW(matmul_ops(problem_on(w, x, y, WeightFormat::F32, 2, 16, 1), limits, bad), UsageError);
  MatmulChoice coop;
  coop.coopmat = true;
  coop.coop.bk = 24;
  EXPECT_THROW(matmul_ops(problem_on(w, x, y, WeightFormat::F32, 2, 16, 1), limits, coop), UsageError);
  coop.coop = CoopmatTiling{};
  coop.coop.wm = 48;  // blocks are 32 or 64 rows
  EXPECT_THROW(matmul_ops(problem_on(w, x, y, WeightFormat::F32, 2, 16, 1), limits, coop), UsageError);
  coop.coop = CoopmatTiling{96, 128, 32, 64, 32, 2};  // 96 rows is no whole number of 64-row blocks
  EXPECT_THROW(matmul_ops(problem_on(w, x, y, WeightFormat::F32, 2, 16, 1), limits, coop), UsageError);
  coop.coop = CoopmatTiling{};
  coop.coop.bk = 16;  // Q4_K's coopmat weight groups are whole 32-weight sub-blocks
  Buffer wq(device(), row_bytes(WeightFormat::Q4_K, 256) * 4, MemoryUse::Device, "wq");
  EXPECT_THROW(matmul_ops(problem_on(wq, x, y, WeightFormat::Q4_K, 4, 256, 1), limits, coop), UsageError);
  coop.coop.bk = 32;
  if (find_kernel("matmul_coopmat_q4_k") != nullptr) {
    EXPECT_NO_THROW(matmul_ops(problem_on(wq, x, y, WeightFormat::Q4_K, 4, 256, 1), limits, coop));
  }
  coop.coop = CoopmatTiling{};
  coop.coop.stages = 3;
  EXPECT_THROW(matmul_ops(problem_on(w, x, y, WeightFormat::F32, 2, 16, 1), limits, coop), UsageError);
}

TEST(MatmulOps, ChoosesCoopmatOnlyForTheF16Shape) {
  DeviceInfo info = device().info();
  info.subgroup_size = 32;
  info.max_compute_shared_memory = 48 << 10;
  info.max_workgroup_invocations = 1024;
  info.caps.cooperative_matrix = true;
  info.coopmat_shapes = {{16, 16, 16, "f16", "f16", "f32", "f32", "subgroup"}};
  const bool compiled = find_kernel("matmul_coopmat_q4_k") != nullptr;
  EXPECT_EQ(choose_matmul(info, WeightFormat::Q4_K).coopmat, compiled);
  EXPECT_FALSE(choose_matmul(info, WeightFormat::Q4_K, false).coopmat);
  EXPECT_EQ(choose_matmul(info, WeightFormat::F16).coop.bn, kCoopmatTilingFloat.bn);  // per-format tiles
  EXPECT_EQ(choose_matmul(info, WeightFormat::Q4_K).coop.bn, CoopmatTiling{}.bn);
  // Up to 32 tokens, quantized weights take the narrow tiles where they fit.
  EXPECT_EQ(choose_matmul(info, WeightFormat::Q4_K, true, 32).coop.bm, kCoopmatTilingNarrow.bm);
  EXPECT_EQ(choose_matmul(info, WeightFormat::Q6_K, true, 1).coop.bn, kCoopmatTilingNarrow.bn);
  EXPECT_EQ(choose_matmul(info, WeightFormat::Q4_K, true, 33).coop.bn, CoopmatTiling{}.bn);
  EXPECT_EQ(choose_matmul(info, WeightFormat::F16, true, 32).coop.bn, kCoopmatTilingFloat.bn);
  info.max_compute_shared_memory = 44 << 10;  // below the narrow tiles' 45.5 KiB
  EXPECT_EQ(choose_matmul(info, WeightFormat::Q4_K, true, 32).coop.bn, CoopmatTiling{}.bn);
  info.coopmat_shapes = {{16, 16, 16, "f16", "f16", "f16", "f16", "subgroup"},
                         {16, 8, 16, "f16", "f16", "f32", "f32", "subgroup"}};
  EXPECT_FALSE(choose_matmul(info, WeightFormat::Q4_K).coopmat);
  EXPECT_FALSE(has_coopmat_f16_16x16x16(info));
}

TEST(MatmulOps, DefaultTilesFitTheirDevicesAndTheirKernelsExist) {
  const MatmulChoice defaults;
  EXPECT_LE(defaults.scalar.shared_bytes(), 32u << 10);  // lavapipe
  EXPECT_LE(defaults.coop.shared_bytes(), 48u << 10);    // NVIDIA without the opt-in
  EXPECT_LE(kCoopmatTilingFloat.shared_bytes(), 48u << 10);
  EXPECT_LE(kCoopmatTilingNarrow.shared_bytes(), 48u << 10);
  EXPECT_LE(kCoopmatTilingSmall.shared_bytes(), 32u << 10);
  DeviceInfo small = device().info();
  small.max_compute_shared_memory = 16 << 10;
  small.max_workgroup_invocations = 128;
  const MatmulChoice fallback = choose_matmul(small, WeightFormat::Q4_K);
  EXPECT_LE(fallback.scalar.shared_bytes(), 16u << 10);
  EXPECT_LE(fallback.scalar.threads(), 128u);
  for (WeightFormat f : kAllWeightFormats) EXPECT_NE(find_kernel(matmul_kernel_name(f, false)), nullptr);
  EXPECT_STREQ(matmul_kernel_name(WeightFormat::Q6_K, true), "matmul_coopmat_q6_k");
}

TEST(MatmulCost, CountsFlopsAndCompulsoryBytes) {
  const MatmulCost c = matmul_cost(WeightFormat::Q4_K, 4096, 4096, 512, true);
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 4096 * 4096 * 512);
  EXPECT_DOUBLE_EQ(c.weight_bytes, 4096.0 * 16 * 144);
  EXPECT_DOUBLE_EQ(c.x_bytes, 4.0 * 4096 * 512);
  EXPECT_DOUBLE_EQ(c.y_bytes, 2 * 4.0 * 4096 * 512);
  EXPECT_DOUBLE_EQ(c.flops_per_byte(), c.flops / c.bytes());
}

float to_half(float v) { return half_bits_to_float(float_to_half_bits(v)); }

// Q4_K weights as matmul_coopmat_q4_k decodes them: d sc and dmin m rounded to f16, then
// q * (d sc) - dmin m in one fused f16 operation (exact in double, rounded once).
std::vector<float> q4_k_weights_as_the_coopmat_kernel_decodes(const std::vector<uint8_t>& bytes) {
  std::vector<float> out;
  for (size_t at = 0; at + sizeof(BlockQ4_K) <= bytes.size(); at += sizeof(BlockQ4_K)) {
    BlockQ4_K b;
    std::memcpy(&b, bytes.data() + at, sizeof b);
    const float d = half_bits_to_float(b.d), dmin = half_bits_to_float(b.dmin);
    for (int i = 0; i < 256; ++i) {
      const ScaleMin sm = q4_k_scale_min(b.scales, i / 32);
      const double scale = to_half(d * float(sm.scale)), offset = to_half(dmin * float(sm.min));
      out.push_back(to_half(float(double(q4_k_quant(b, i)) * scale - offset)));
    }
  }
  return out;
}

// Q6_K weights as matmul_coopmat_q6_k decodes them: d scale rounded to f16, then (q - 32)
// times it rounded once.
std::vector<float> q6_k_weights_as_the_coopmat_kernel_decodes(const std::vector<uint8_t>& bytes) {
  std::vector<float> out;
  for (size_t at = 0; at + sizeof(BlockQ6_K) <= bytes.size(); at += sizeof(BlockQ6_K)) {
    BlockQ6_K b;
    std::memcpy(&b, bytes.data() + at, sizeof b);
    const float d = half_bits_to_float(b.d);
    for (int i = 0; i < 256; ++i) {
      const double scale = to_half(d * float(b.scales[i / 16]));
      out.push_back(to_half(float((double(q6_k_quant(b, i)) - 32.0) * scale)));
    }
  }
  return out;
}

// The coopmat kernels' arithmetic on the CPU: f16 weights (for Q4_K and Q6_K as their kernels
// decode them, for the others the exact weight rounded once) and activations, float32
// accumulation. Its worst error relative to sum |w x| (measured 3.6e-5 to 6.9e-5 by format
// with weights rounded once; 1.4e-4 for Q4_K, 9.0e-5 for Q6_K) must sit well inside the tolerance
// MatmulCoopmatTest uses (1e-3), leaving room for the device's accumulation order.
TEST(MatmulCoopmatTolerance, F16RoundingStaysWellInsideIt) {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 0.05f);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const uint32_t rows = 32, cols = 512, tokens = 16;
  for (WeightFormat f : kAllWeightFormats) {
    std::vector<float> row(cols), w(size_t(rows) * cols), w_kernel(size_t(rows) * cols), x(size_t(tokens) * cols);
    std::vector<uint8_t> bytes(row_bytes(f, cols));
    for (uint32_t r = 0; r < rows; ++r) {
      for (auto& v : row) v = normal(rng);
      quantize_row(f, row, bytes);
      dequantize_row(f, bytes, std::span(w).subspan(size_t(r) * cols, cols));
      for (uint32_t k = 0; k < cols; ++k) w_kernel[size_t(r) * cols + k] = to_half(w[size_t(r) * cols + k]);
      if (f == WeightFormat::Q4_K || f == WeightFormat::Q6_K) {
        const std::vector<float> decoded = f == WeightFormat::Q4_K ? q4_k_weights_as_the_coopmat_kernel_decodes(bytes)
                                                                   : q6_k_weights_as_the_coopmat_kernel_decodes(bytes);
        std::copy(decoded.begin(), decoded.end(), w_kernel.begin() + size_t(r) * cols);
      }
    }
    for (auto& v : x) v = uniform(rng);
    double worst = 0;
    for (uint32_t r = 0; r < rows; ++r) {
      for (uint32_t c = 0; c < tokens; ++c) {
        double exact = 0, m = 0;
        float rounded = 0;
        for (uint32_t k = 0; k < cols; ++k) {
          const float wk = w[size_t(r) * cols + k], xk = x[size_t(c) * cols + k];
          exact += double(wk) * xk;
          m += std::fabs(double(wk) * xk);
          rounded += w_kernel[size_t(r) * cols + k] * to_half(xk);
        }
        worst = std::max(worst, std::fabs(rounded - exact) / m);
      }
    }
    RecordProperty(std::string("worst_rel_") + std::string(format_name(f)), std::to_string(worst));
    EXPECT_LT(worst, 2.5e-4) << format_name(f);
  }
}

}  // namespace
}  // namespace pb::test
