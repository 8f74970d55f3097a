// The integer-dot DMMV path (quantize_x + dmmv_intdot_<fmt>) against two references:
//   integer reference (ref::quantize_x, ref::dmmv_intdot): the quantized activations bit for
//     bit; y within float32 rounding, |gpu - ref| <= 5e-7 sum_k |w_k xhat_k| + 1e-6 (measured: at
//     most 5e-8: the integer sums are exact, only the order of the float scale-and-add steps
//     differs);
//   float reference (ref::dmmv on the unquantized x): |gpu - ref| <= sum_k |w_k| d(k) / 2 (the
//     rigorous bound of int8 activations, ref::intdot_quantization_bound) + 2e-5 sum |w x|.
// IntdotError measures the second on the CPU at llama3-8b widths: the RMS of
// |intdot - float| / sum_k |w_k x_k| is about 0.05% and its maximum about 0.2% (printed).
// Where the build lacks the kernels (glslang without GL_EXT_integer_dot_product) every case
// asserts that they are absent and that the builders refuse with a UsageError.
// The cooperative-matrix kernel (dmmv_coopmat_<fmt>, cases with tuning.matrix) rounds weights
// and activations to f16 first, so against both references it is allowed 1e-3 sum|w xhat|
// more, as the coopmat matmul is; where the device or the build lacks it, those cases assert
// that the engine does not choose it.
// The int8 matrix kernel (dmmv_int8mat_<fmt>, cases with tuning.int8_matrix) sums the same
// integer products exactly and scales them per block as the integer dot does, so it is held to
// the same bounds; where the device or the build lacks it, those cases assert that the builder
// keeps every piece on the integer dot.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <iostream>
#include <random>

#include "engine/ops/dmmv_intdot_op.h"
#include "engine/quant/quantize.h"
#include "engine/reference/dmmv_intdot_ref.h"
#include "engine/reference/dmmv_ref.h"
#include "harness/build_info.h"
#include "harness/errors.h"
#include "kernels/registry.h"
#include "tests/support/gpu_test.h"
#include "tests/engine/kernels/intdot_fixture.h"
#include "tests/support/random_matrix.h"
#include "tests/support/saturated_matrix.h"

namespace pb::test {
namespace {

constexpr WeightFormat kIntdotFormats[] = {WeightFormat::Q8_0, WeightFormat::Q4_K, WeightFormat::Q6_K};

struct IntdotCase {
  WeightFormat format;
  uint32_t rows, cols, ncols;
  bool accumulate;
  DmmvIntdotTuning tuning;
  uint64_t max_range = 0;  // bytes one binding may cover; 0 = the device's
};

void PrintTo(const IntdotCase& c, std::ostream* os) {
  *os << format_name(c.format) << " " << c.rows << "x" << c.cols << " ncols=" << c.ncols
      << (c.accumulate ? " accumulate" : "") << " threads=" << c.tuning.threads << " rows=" << c.tuning.rows
      << " unroll=" << c.tuning.unroll << (c.tuning.chunk ? " chunk=" + std::to_string(c.tuning.chunk) : "")
      << (c.max_range ? " sliced" : "")
      << (c.tuning.matrix.from_cols ? " matrix from " + std::to_string(c.tuning.matrix.from_cols) + " cols, " +
                                           std::to_string(c.tuning.matrix.subgroups) + " subgroups x " +
                                           std::to_string(c.tuning.matrix.rows) + " rows, step " +
                                           std::to_string(c.tuning.matrix.step)
                                     : "")
      << (c.tuning.int8_matrix.from_cols ? " int8 matrix from " + std::to_string(c.tuning.int8_matrix.from_cols) +
                                               " cols, " + std::to_string(c.tuning.int8_matrix.subgroups) +
                                             " subgroups x " + std::to_string(c.tuning.int8_matrix.rows) +
                                             " rows, steps of " + std::to_string(c.tuning.int8_matrix.step) + " blocks, " +
                                             std::to_string(c.tuning.int8_matrix.splits) + " splits"
                                       : "");
}

// True when some piece of `p` runs on the matrix units.
bool uses_matrix(const IntdotCase& p) { return p.tuning.matrix.from_cols != 0 && p.ncols >= p.tuning.matrix.from_cols; }

// True when some piece of `p` may run on the int8 matrix kernel (a piece of 8 or 16 columns).
bool uses_int8_matrix(const IntdotCase& p) {
  return p.tuning.int8_matrix.from_cols != 0 && p.ncols >= p.tuning.int8_matrix.from_cols;
}

// What the GPU computed: y, and the quantized activations as bytes.
struct GpuResult {
  std::vector<float> y;
  std::vector<uint8_t> qx;  // quantized_x_bytes of them
};

GpuResult run_on_gpu(const IntdotCase& p, const Matrix& w, const std::vector<float>& x, uint32_t x_stride,
                     const std::vector<float>& y, uint32_t y_stride) {
  BindingLimits limits = BindingLimits::of(device().info());
  if (p.max_range) limits.max_range = p.max_range;
  Buffer wb = upload_weights(p.format, p.cols, w.bytes, "w");
  Buffer xb = upload_floats(x, "x");
  Buffer yb = upload_floats(y, "y");
  const uint64_t qx_bytes = quantized_x_bytes(p.cols, p.ncols, limits);
  Buffer qb(device(), qx_bytes, MemoryUse::Device, "qx");
  const QuantizedX qx = quantized_x_in(TensorView::whole(qb), p.cols, p.ncols, limits);
  const ProjectionProblem problem{p.format, TensorView::whole(wb), TensorView::whole(xb), TensorView::whole(yb),
                                  p.rows, p.cols, p.ncols, x_stride, y_stride, p.accumulate};
  // The K split's sums and arrival counters, zeroed as the op requires.
  const uint64_t split_bytes = dmmv_int8mat_split_bytes(problem, p.tuning, limits);
  Buffer sb = upload_floats(std::vector<float>(std::max<uint64_t>(split_bytes / 4, 4), 0.0f), "split sums");
  std::vector<Op> ops = quantize_x_ops(problem, qx, limits);
  for (const Op& op : dmmv_intdot_ops(problem, qx, limits, p.tuning, TensorView::whole(sb))) ops.push_back(op);
  run_ops(ops, BarrierPolicy::Ledger);
  // Every split dispatch leaves its arrival counters (its region's first words, one per row
  // group) at zero for the next.
  const std::vector<float> split_words = download_floats(sb, sb.size() / 4);
  for (const Op& op : ops) {
    if (op.bindings.size() < 5 || std::string(op.label) != "dmmv_int8mat") continue;
    DmmvIntdotPush push;
    std::memcpy(&push, op.push.bytes.data(), sizeof push);
    const uint32_t groups = ceil_div(push.rows, uint32_t(op.spec.values.at(3)));  // spec 3: rows a workgroup
    for (uint32_t g = 0; g < groups; ++g) {
      uint32_t counter;
      std::memcpy(&counter, &split_words.at(op.bindings[4].offset / 4 + g), 4);
      EXPECT_EQ(counter, 0u) << "arrival counter of row group " << g << " left at " << counter;
    }
  }
  GpuResult r{download_floats(yb, y.size()), std::vector<uint8_t>(qx_bytes)};
  const auto words = download_floats(qb, qx_bytes / 4);
  std::memcpy(r.qx.data(), words.data(), qx_bytes);
  return r;
}

// The quantized activations the GPU wrote equal the CPU quantizer's, bit for bit.
void expect_same_quantized_x(const GpuResult& gpu, const ref::QuantizedXHost& cpu, uint64_t scales_at) {
  for (size_t k = 0; k < cpu.quants.size(); ++k) {
    ASSERT_EQ(int8_t(gpu.qx[k]), cpu.quants[k]) << "quant " << k;
  }
  for (size_t i = 0; i < cpu.scales.size(); ++i) {
    float v;
    std::memcpy(&v, gpu.qx.data() + scales_at + 4 * i, 4);
    ASSERT_EQ(v, cpu.scales[i]) << (i % 2 ? "block sum " : "scale ") << i / 2;
  }
}

// Kernels absent: the builders must refuse, never fall back.
void expect_refused(const IntdotCase& p) {
  EXPECT_EQ(find_kernel(dmmv_intdot_kernel_name(p.format)), nullptr);
  EXPECT_EQ(find_kernel("quantize_x"), nullptr);
  EXPECT_FALSE(dmmv_intdot_supported(device().info(), p.format));
  Buffer any(device(), 1 << 16, MemoryUse::Device, "any");
  const BindingLimits limits = BindingLimits::of(device().info());
  const ProjectionProblem problem{p.format, TensorView::whole(any), TensorView::whole(any), TensorView::whole(any),
                                  p.rows, p.cols, p.ncols, p.cols, p.rows, p.accumulate};
  const QuantizedX qx = quantized_x_in(TensorView::whole(any), p.cols, p.ncols, limits);
  EXPECT_THROW(quantize_x_ops(problem, qx, limits), UsageError);
  EXPECT_THROW(dmmv_intdot_ops(problem, qx, limits, p.tuning), UsageError);
}

class DmmvIntdotTest : public GpuTest, public ::testing::WithParamInterface<IntdotCase> {};

TEST_P(DmmvIntdotTest, MatchesTheIntegerAndTheFloatReference) {
  const IntdotCase& p = GetParam();
  ASSERT_EQ(find_kernel("quantize_x") != nullptr, build_info().has_intdot_shaders);
  if (!build_info().has_intdot_shaders) return expect_refused(p);
  ASSERT_NE(find_kernel(dmmv_intdot_kernel_name(p.format)), nullptr);
  // Compiled in but the device lacks integer dot products: the engine must not choose it.
  if (!device().info().caps.integer_dot_product) {
    EXPECT_FALSE(dmmv_intdot_supported(device().info(), p.format));
    return;
  }
  ASSERT_TRUE(dmmv_intdot_supported(device().info(), p.format));
  if (uses_matrix(p) && !dmmv_coopmat_supported(device().info(), p.format, p.tuning.matrix)) {
    // This tiling cannot run here (no matrix units, no kernel, or more shared memory or
    // invocations than the device has): the engine's own choice takes the matrix units exactly
    // where its default tiling can run, and keeps every piece on the integer dot elsewhere.
    EXPECT_EQ(dmmv_intdot_choice(device().info(), p.format, true).matrix.from_cols != 0,
              dmmv_coopmat_supported(device().info(), p.format));
    return;
  }
  if (uses_int8_matrix(p) && !(dmmv_int8mat_supported(device().info(), p.format, p.tuning.int8_matrix, 8) &&
                                dmmv_int8mat_supported(device().info(), p.format, p.tuning.int8_matrix, 16))) {
    // Not here (no int8 16 x 8 x 32 matrices, no kernel, or a shape past the device's shared
    // memory or workgroup size): the engine's choice must then name it only where its own
    // shapes run.
    const DmmvIntdotTuning choice = dmmv_intdot_choice(device().info(), p.format, true);
    EXPECT_TRUE(choice.int8_matrix.from_cols == 0 || (dmmv_int8mat_supported(device().info(), p.format, {}, 8) &&
                                                      dmmv_int8mat_supported(device().info(), p.format, {}, 16)));
    return;
  }
  const double f16_rounding = uses_matrix(p) ? 1e-3 : 0.0;  // see the header

  std::mt19937 rng(4321 + p.rows + p.ncols + p.cols);
  const Matrix w = random_matrix(p.format, p.rows, p.cols, rng);
  const uint32_t x_stride = p.cols + 4;  // padded, so columns are not back to back
  const uint32_t y_stride = p.rows + 3;
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> x(size_t(x_stride) * p.ncols), y(size_t(y_stride) * p.ncols);
  for (auto& v : x) v = uniform(rng);
  for (auto& v : y) v = uniform(rng);
  const GpuResult gpu = run_on_gpu(p, w, x, x_stride, y, y_stride);

  const ref::QuantizedXHost qx = ref::quantize_x(x, p.cols, p.ncols, x_stride);
  BindingLimits limits = BindingLimits::of(device().info());
  const uint64_t scales_at = quantized_x_bytes(p.cols, p.ncols, limits) - qx.scales.size() * 4;
  expect_same_quantized_x(gpu, qx, scales_at);
  std::vector<float> integer = y, floating = y;
  ref::dmmv_intdot(p.format, w.bytes, p.rows, p.cols, qx, integer, y_stride, p.accumulate);
  ref::dmmv(p.format, w.bytes, p.rows, p.cols, x, p.ncols, x_stride, floating, y_stride, p.accumulate);
  const std::vector<float> xhat = dequantized_x(qx);
  double worst_integer = 0, worst_float = 0;  // |gpu - reference| / its magnitude, printed
  for (uint32_t c = 0; c < p.ncols; ++c) {
    for (uint32_t r = 0; r < y_stride; ++r) {
      const size_t at = size_t(c) * y_stride + r;
      if (r >= p.rows) {  // padding between columns is never written
        ASSERT_EQ(gpu.y[at], y[at]) << "padding written at column " << c << " row " << r;
        continue;
      }
      const double m_hat = magnitude(w, p.cols, r, &xhat[size_t(c) * p.cols]);
      ASSERT_NEAR(gpu.y[at], integer[at], (5e-7 + f16_rounding) * m_hat + 1e-6)
          << "integer reference, column " << c << " row " << r;
      const std::span<const float> w_row(&w.dequantized[size_t(r) * p.cols], p.cols);
      const double bound = ref::intdot_quantization_bound(w_row, qx, c);
      const double m = magnitude(w, p.cols, r, &x[size_t(c) * x_stride]);
      ASSERT_NEAR(gpu.y[at], floating[at], bound + (2e-5 + f16_rounding) * m + 1e-6)
          << "float reference, column " << c << " row " << r;
      worst_integer = std::max(worst_integer, std::fabs(gpu.y[at] - integer[at]) / m_hat);
      worst_float = std::max(worst_float, std::fabs(gpu.y[at] - floating[at]) / m);
    }
  }
  std::cout << "[ intdot ] " << ::testing::PrintToString(p) << ": max |gpu - integer ref| / sum|w xhat| "
            << worst_integer << ", max |gpu - float ref| / sum|w x| " << worst_float << "\n";
}

std::vector<IntdotCase> cases() {
  std::vector<IntdotCase> list;
  for (WeightFormat f : kIntdotFormats) {
    for (uint32_t n : {1u, 2u, 4u, 8u}) {
      for (bool accumulate : {false, true}) list.push_back({f, 37, 512, n, accumulate, {}});  // 37: not a multiple of 2 rows
    }
    list.push_back({f, 37, 512, 13, true, {}});                 // pieces of 8 + 4 + 1
    list.push_back({f, 19, 256, 16, false, {}});                // the widest pipeline
    list.push_back({f, 37, 1280, 3, false, {16, 3, 2}});        // unrolled main loop and its tail
    list.push_back({f, 21, 768, 1, true, {32, 1, 4}});
    list.push_back({f, 37, 512, 2, false, {}, row_bytes(f, 512) * 10});  // weights split by rows
  }
  // Q4_K in sub-blocks (dmmv_intdot_q4_k32): every width, the tail loop, rows split into slices.
  for (uint32_t n : {1u, 2u, 8u}) {
    for (bool accumulate : {false, true}) list.push_back({WeightFormat::Q4_K, 37, 512, n, accumulate, {.chunk = 32}});
  }
  list.push_back({WeightFormat::Q4_K, 37, 1280, 3, false, {.threads = 16, .rows = 3, .unroll = 2, .chunk = 32}});
  list.push_back({WeightFormat::Q4_K, 21, 256, 16, true, {.threads = 64, .rows = 4, .unroll = 4, .chunk = 32}});
  list.push_back({WeightFormat::Q4_K, 37, 512, 4, false, {.chunk = 32}, row_bytes(WeightFormat::Q4_K, 512) * 10});
  // Q8_0 in whole blocks (dmmv_intdot_q8_032): the tail loop, every width, rows split into
  // slices (each starts on a row, so on 16 bytes).
  for (uint32_t n : {1u, 2u, 8u}) {
    for (bool accumulate : {false, true}) list.push_back({WeightFormat::Q8_0, 37, 512, n, accumulate, {.chunk = 32}});
  }
  list.push_back({WeightFormat::Q8_0, 37, 1280, 3, false, {.threads = 16, .rows = 3, .unroll = 2, .chunk = 32}});
  list.push_back({WeightFormat::Q8_0, 21, 256, 16, true, {.threads = 64, .rows = 4, .unroll = 4, .chunk = 32}});
  list.push_back({WeightFormat::Q8_0, 37, 512, 4, false, {.chunk = 32}, row_bytes(WeightFormat::Q8_0, 512) * 10});
  // Wide rows (more than kIntdotWideCols inputs) take their own default shapes at 4 and 8 columns.
  for (WeightFormat f : kIntdotFormats) {
    list.push_back({f, 21, 8448, 8, true, {}});
    list.push_back({f, 13, 8448, 4, false, {}});
  }
  // Q4_K in chunks of 16 weights (dmmv_intdot_q4_k16): every column count, the tail loop, rows
  // split into slices.
  for (uint32_t n : {1u, 2u, 8u}) {
    for (bool accumulate : {false, true}) list.push_back({WeightFormat::Q4_K, 37, 512, n, accumulate, {0, 0, 0, 16}});
  }
  list.push_back({WeightFormat::Q4_K, 37, 1280, 3, false, {16, 3, 2, 16}});
  list.push_back({WeightFormat::Q4_K, 21, 768, 16, true, {64, 4, 4, 16}});
  list.push_back({WeightFormat::Q4_K, 37, 512, 4, false, {0, 0, 0, 16}, row_bytes(WeightFormat::Q4_K, 512) * 10});
  // The cooperative-matrix kernel: every width from one column, 37 rows (not a multiple of 16
  // or 32), K steps not a multiple of the subgroups (1280 = 20 x 64), accumulate, 13 columns in
  // a matrix piece of 8 and integer-dot pieces of 4 and 1, steps of 64, 128 and 256 weights,
  // rows split into slices.
  for (WeightFormat f : {WeightFormat::Q8_0, WeightFormat::Q4_K}) {
    for (const DmmvCoopmatTuning m : {DmmvCoopmatTuning{1, 4, 32, 64}, DmmvCoopmatTuning{1, 3, 16, 256},
                                      DmmvCoopmatTuning{1, 2, 16, 128}}) {
      for (uint32_t n : {1u, 5u, 8u, 16u}) {
        for (bool accumulate : {false, true}) list.push_back({f, 37, 1280, n, accumulate, {0, 0, 0, 0, m}});
      }
    }
    list.push_back({f, 37, 512, 13, true, {0, 0, 0, 0, {8, 0, 0}}});
    list.push_back({f, 21, 256, 16, false, {0, 0, 0, 0, {1, 8, 16}}});  // more subgroups than K steps
    list.push_back({f, 37, 512, 8, false, {0, 0, 0, 0, {1, 0, 0}}, row_bytes(f, 512) * 10});
  }
  // The int8 matrix kernel: pieces of 8 and 16 columns (8; 13 = 8 + 4 + 1; 16; 24 = 16 + 8, or
  // from 16 columns only), 37, 16, 33, 65 and 100 rows (the last workgroup's tiles overlap the
  // previous ones), K steps not a multiple of the subgroups (1280 = 20 x 64 = 10 x 128 = 5 x
  // 256), accumulate, steps of 2, 4 and 8 blocks, 16, 32 and 64 rows a workgroup, rows split
  // into slices of 20 and 17 rows, and of 10 (too few for a workgroup: the integer dot takes them).
  for (WeightFormat f : {WeightFormat::Q8_0, WeightFormat::Q4_K}) {
    for (const DmmvInt8MatTuning m : {DmmvInt8MatTuning{8, 0, 4, 16, 2}, DmmvInt8MatTuning{8, 0, 3, 32, 4},
                                      DmmvInt8MatTuning{8, 0, 2, 16, 8}, DmmvInt8MatTuning{8, 0, 2, 64, 2},
                                      DmmvInt8MatTuning{8, 0, 1, 64, 8}}) {
      const uint32_t rows = m.rows == 64 ? 100 : 37;
      for (uint32_t n : {8u, 13u, 16u}) {
        for (bool accumulate : {false, true}) list.push_back({f, rows, 1280, n, accumulate, {.int8_matrix = m}});
      }
    }
    list.push_back({f, 16, 512, 24, true, {.int8_matrix = {8, 0, 4, 16, 2}}});
    list.push_back({f, 37, 512, 24, false, {.int8_matrix = {16, 0, 0, 0, 0}}});
    list.push_back({f, 33, 256, 8, false, {.int8_matrix = {8, 0, 8, 32, 2}}});  // more subgroups than K steps
    list.push_back({f, 65, 512, 16, true, {.int8_matrix = {8, 0, 2, 64, 4}}});
    // K split across workgroups: 2, 4 and 8 splits of 10, 5 and 4 steps (3 subgroups on 4: one
    // idle), two pieces (24 = 16 + 8) in regions of their own, sliced rows, and the default
    // shapes on wide rows (8448 inputs: 8 columns in four splits, 16 in two).
    list.push_back({f, 100, 1280, 13, true, {.int8_matrix = {8, 0, 2, 64, 2, 4}}});
    list.push_back({f, 37, 2048, 16, false, {.int8_matrix = {8, 0, 3, 16, 2, 8}}});
    list.push_back({f, 37, 1280, 24, true, {.int8_matrix = {8, 0, 4, 32, 4, 2}}});
    list.push_back({f, 37, 1280, 8, false, {.int8_matrix = {8, 0, 4, 16, 2, 2}}, row_bytes(f, 1280) * 20});
    for (uint32_t n : {8u, 16u}) list.push_back({f, 70, 8448, n, true, {.int8_matrix = {8, 0, 0, 0, 0}}});
    list.push_back({f, 37, 512, 8, false, {.int8_matrix = {8, 0, 4, 16, 2}}, row_bytes(f, 512) * 20});
    list.push_back({f, 37, 512, 8, true, {.int8_matrix = {8, 0, 0, 0, 0}}, row_bytes(f, 512) * 10});
  }
  // More workgroups than a grid row holds (65535): the grid folds into two rows (folded_grid).
  list.push_back({WeightFormat::Q8_0, 65537, 256, 1, false, {.threads = 16, .rows = 1, .unroll = 1}});
  // Wide rows at one and two columns in their own default shapes (Q8_0: 256 and 128 invocations
  // on one row, each summing its share of the chunks).
  for (uint32_t n : {1u, 2u}) list.push_back({WeightFormat::Q8_0, 9, 8448, n, true, {}});
  return list;
}

INSTANTIATE_TEST_SUITE_P(Formats, DmmvIntdotTest, ::testing::ValuesIn(cases()));

// Every integer-dot kernel at its largest chunk sums, of both signs, equals the integer
// reference to float32 rounding: a bias that leaves its binade (a sum the float cannot hold to
// the unit) fails here though random weights, whose sums stay small, pass.
TEST(DmmvIntdotExtremes, LargestChunkSumsAreExact) {
  const uint32_t rows = 6, cols = 512;
  struct Kernel {
    WeightFormat format;
    uint32_t chunk;  // 0: the kernel the format's default tuning names (Q8_0's half blocks, Q6_K's one)
  };
  for (const Kernel k : {Kernel{WeightFormat::Q8_0, 0}, Kernel{WeightFormat::Q8_0, 32}, Kernel{WeightFormat::Q4_K, 16},
                         Kernel{WeightFormat::Q4_K, 32}, Kernel{WeightFormat::Q4_K, 64}, Kernel{WeightFormat::Q6_K, 0}}) {
    for (const float sign : {1.0f, -1.0f}) {
      for (const uint32_t ncols : {1u, 8u}) {
        const IntdotCase p{k.format, rows, cols, ncols, false, {.chunk = k.chunk}};
        // Without the kernels, or on a device without integer dot products, the path is refused
        // or never chosen, as in MatchesTheIntegerAndTheFloatReference.
        if (!build_info().has_intdot_shaders) {
          expect_refused(p);
          continue;
        }
        if (!device().info().caps.integer_dot_product) {
          EXPECT_FALSE(dmmv_intdot_supported(device().info(), k.format));
          continue;
        }
        const Matrix w = saturated_matrix(k.format, rows, cols);
        const std::vector<float> x(size_t(cols) * ncols, sign), y(size_t(rows) * ncols, 0.0f);
        const GpuResult gpu = run_on_gpu(p, w, x, cols, y, rows);
        const ref::QuantizedXHost qx = ref::quantize_x(x, cols, ncols, cols);
        std::vector<float> expected = y;
        ref::dmmv_intdot(k.format, w.bytes, rows, cols, qx, expected, rows, false);
        for (size_t i = 0; i < expected.size(); ++i) {
          ASSERT_NEAR(gpu.y[i], expected[i], 5e-7 * std::fabs(expected[i]))
              << format_name(k.format) << " chunk " << k.chunk << ", sign " << sign << ", " << ncols
              << " columns, output " << i;
        }
      }
    }
  }
}

// Ties, zeros and tiny blocks: the GPU quantizer picks the same integers as the CPU one.
class QuantizeXTest : public GpuTest {};

TEST_F(QuantizeXTest, MatchesTheCpuQuantizerBitForBit) {
  if (!build_info().has_intdot_shaders) return expect_refused({WeightFormat::Q8_0, 1, 256, 3, false, {}});
  const uint32_t cols = 256, ncols = 3, stride = 260;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.5f);
  std::vector<float> x(size_t(stride) * ncols);
  for (auto& v : x) v = normal(rng);
  for (uint32_t i = 0; i < 32; ++i) x[32 + i] = 0.0f;  // an all-zero block
  for (uint32_t i = 0; i < 32; ++i) x[64 + i] *= 1e-20f;  // a tiny one
  // Exact ties between every pair of quants in -15..16: with amax = 3, (q + 0.5) d is exact.
  const float d = ref::quantized_x_scale(3.0f);
  x[96] = 3.0f;
  for (uint32_t i = 1; i < 32; ++i) x[96 + i] = (float(int(i) - 16) + 0.5f) * d;
  x[stride + 5] = -9.0f;  // a negative maximum
  const IntdotCase p{WeightFormat::Q8_0, 1, cols, ncols, false, {}};
  const Matrix w = [&] {
    std::mt19937 r(1);
    return random_matrix(p.format, p.rows, p.cols, r);
  }();
  std::vector<float> y(ncols, 0.0f);
  const GpuResult gpu = run_on_gpu(p, w, x, stride, y, 1);
  const ref::QuantizedXHost qx = ref::quantize_x(x, cols, ncols, stride);
  const uint64_t scales_at =
      quantized_x_bytes(cols, ncols, BindingLimits::of(device().info())) - qx.scales.size() * 4;
  expect_same_quantized_x(gpu, qx, scales_at);
  EXPECT_EQ(qx.quants[96], 127);
  EXPECT_EQ(qx.quants[97], -14);      // -14.5: to even
  EXPECT_EQ(qx.quants[98], -14);      // -13.5: to even
  EXPECT_EQ(qx.quants[cols + 5], -127);  // column 1 at cols: the stride's padding is dropped
}

TEST(QuantizeXReference, RoundsToNearestWithTiesToEven) {
  std::vector<float> x(32, 0.0f);
  x[0] = 3.0f;
  const float d = ref::quantized_x_scale(3.0f);
  x[1] = 2.5f * d;   // tie: 2
  x[2] = 3.5f * d;   // tie: 4
  x[3] = -2.5f * d;  // tie: -2
  x[4] = std::nextafter(2.5f * d, 1.0f);  // just above: 3
  const ref::QuantizedXHost q = ref::quantize_x(x, 32, 1, 32);
  EXPECT_EQ(q.quants[0], 127);
  EXPECT_EQ(q.quants[1], 2);
  EXPECT_EQ(q.quants[2], 4);
  EXPECT_EQ(q.quants[3], -2);
  EXPECT_EQ(q.quants[4], 3);
  EXPECT_GE(d * 127.0f, 3.0f);                   // rounded up: max |x| never clips
  EXPECT_EQ(std::bit_cast<uint32_t>(d) & 0x1fffu, 0u);  // 11 significant bits
  EXPECT_EQ(q.scales[1], d * float(127 + 2 + 4 - 2 + 3));
}

// The error of int8 activations against the float path, at llama3-8b widths with
// activation-like inputs (normal, a few outliers), on the CPU references: what a user trades
// for the integer path. The bound holds everywhere; the measured figures are printed.
TEST(IntdotError, AgainstTheFloatPathAtModelWidths) {
  for (WeightFormat f : kIntdotFormats) {
    const uint32_t rows = 48, cols = 4096;
    std::mt19937 rng(99);
    const Matrix w = random_matrix(f, rows, cols, rng);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(cols);
    for (auto& v : x) v = normal(rng);
    for (uint32_t k = 0; k < cols; k += 97) x[k] *= 20.0f;  // outlier channels
    const ref::QuantizedXHost qx = ref::quantize_x(x, cols, 1, cols);
    std::vector<float> integer(rows), floating(rows);
    ref::dmmv_intdot(f, w.bytes, rows, cols, qx, integer, rows, false);
    ref::dmmv(f, w.bytes, rows, cols, x, 1, cols, floating, rows, false);
    double sum_sq = 0, worst = 0;
    for (uint32_t r = 0; r < rows; ++r) {
      const double m = magnitude(w, cols, r, x.data());
      const double err = std::fabs(double(integer[r]) - floating[r]);
      const std::span<const float> w_row(&w.dequantized[size_t(r) * cols], cols);
      ASSERT_LE(err, ref::intdot_quantization_bound(w_row, qx, 0) + 1e-6 * m) << "row " << r;
      sum_sq += (err / m) * (err / m);
      worst = std::max(worst, err / m);
    }
    const double rms = std::sqrt(sum_sq / rows);
    std::cout << "[ intdot error ] " << format_name(f) << " " << rows << "x" << cols
              << ": |intdot - float| / sum|w x|: rms " << rms << ", max " << worst << "\n";
    EXPECT_LT(rms, 2e-3);
    EXPECT_LT(worst, 1e-2);
  }
}

}  // namespace
}  // namespace pb::test
