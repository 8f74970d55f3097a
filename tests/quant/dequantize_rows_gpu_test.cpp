// kernels/dequantize_rows.comp (through kernels/include/dequant.glsl) computes what
// pb::dequantize_row computes, for every format, on synthetic and on quantized data, whole
// tensors and single rows.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "engine/quant/quant_ops.h"
#include "engine/quant/quantize.h"
#include "engine/quant/synthetic.h"
#include "harness/errors.h"
#include "kernels/registry.h"
#include "tests/support/gpu_test.h"

namespace pb::test {
namespace {

class QuantDequantGpu : public GpuTest {};

constexpr uint64_t kRows = 6, kCols = 512;

std::vector<uint8_t> quantized_gaussian(WeightFormat f) {
  std::mt19937 rng(99);
  std::normal_distribution<float> normal(0.0f, 0.03f);
  std::vector<float> x(kRows * kCols);
  for (float& v : x) v = normal(rng);
  x[5] = 0.0f;
  std::vector<uint8_t> q(tensor_bytes(f, kRows, kCols));
  quantize_row(f, x, q);
  return q;
}

std::vector<uint8_t> synthetic(WeightFormat f) {
  std::vector<uint8_t> q(tensor_bytes(f, kRows, kCols));
  generate_synthetic(f, 5, 6, kRows, kCols, 0.0068f, q);
  return q;
}

// GGUF bytes of rows of kCols weights, in the device layout, in a buffer of whole words.
Buffer upload_bytes(WeightFormat f, const std::vector<uint8_t>& bytes) {
  Buffer b(device(), (bytes.size() + 3) / 4 * 4, MemoryUse::Device, "weights");
  transfer().fill(b, 0, b.size(), 0);
  upload_weights_to(b, 0, f, kCols, bytes);
  return b;
}

// |gpu - cpu| <= 1e-6 |cpu| for every weight.
void expect_match(const std::vector<float>& gpu, const float* cpu, size_t n, const char* what) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    if (std::fabs(gpu[i] - cpu[i]) > 1e-6f * std::fabs(cpu[i]) && bad++ < 5) {
      ADD_FAILURE() << what << " weight " << i << ": gpu " << gpu[i] << " cpu " << cpu[i];
    }
  }
  EXPECT_EQ(bad, 0u) << what;
}

TEST_F(QuantDequantGpu, InterfaceMatchesTheCppStructs) {
  const Kernel& k = kernel("dequantize_rows");
  EXPECT_EQ(k.push_size(), sizeof(DequantizeRowsPush));
  ASSERT_EQ(k.binding_count(), 2u);
  EXPECT_TRUE(k.reflection.bindings[0].read_only);
  EXPECT_FALSE(k.reflection.bindings[1].read_only);
}

TEST_F(QuantDequantGpu, WholeTensorsMatchTheCpu) {
  for (WeightFormat f : kAllWeightFormats) {
    for (const auto& bytes : {synthetic(f), quantized_gaussian(f)}) {
      std::vector<float> want(kRows * kCols);
      dequantize_row(f, bytes, want);
      const Buffer weights = upload_bytes(f, bytes);
      Buffer out(device(), want.size() * 4, MemoryUse::Device, "dequantized");
      run_ops(std::vector<Op>{dequantize_rows_op(f, {&weights, 0, weights.size()}, kCols, 0,
                                                 want.size(), out, 0)});
      expect_match(download_floats(out, want.size()), want.data(), want.size(),
                   std::string(format_name(f)).c_str());
    }
  }
}

TEST_F(QuantDequantGpu, OneRowFromTheMiddleLikeAnEmbeddingLookup) {
  for (WeightFormat f : kAllWeightFormats) {
    const auto bytes = synthetic(f);
    std::vector<float> want(kRows * kCols);
    dequantize_row(f, bytes, want);
    const Buffer weights = upload_bytes(f, bytes);
    Buffer out(device(), kCols * 4, MemoryUse::Device, "row");
    const uint64_t row = 4;
    run_ops(std::vector<Op>{
        dequantize_rows_op(f, {&weights, 0, weights.size()}, kCols, row * kCols, kCols, out, 0)});
    expect_match(download_floats(out, kCols), want.data() + row * kCols, kCols,
                 std::string(format_name(f)).c_str());
  }
}

TEST_F(QuantDequantGpu, MisalignedFirstWeightIsAUsageError) {
  const Buffer weights = upload_bytes(WeightFormat::Q4_K, synthetic(WeightFormat::Q4_K));
  Buffer out(device(), 1024, MemoryUse::Device, "out");
  EXPECT_THROW(dequantize_rows_op(WeightFormat::Q4_K, {&weights, 0, weights.size()}, kCols, 100, 32,
                                  out, 0),
               UsageError);
  EXPECT_THROW(dequantize_rows_op(WeightFormat::Q4_K, {&weights, 0, 144}, kCols, 0, 512, out, 0),
               UsageError);
}

// Q8_0's device layout keeps a row's scales after all of its quants, so a range must hold whole
// rows, and rows must be a multiple of 256 weights for the quants to sit on 16 bytes.
TEST_F(QuantDequantGpu, Q8_0NeedsWholeRowsOfAMultipleOf256) {
  const Buffer weights = upload_bytes(WeightFormat::Q8_0, synthetic(WeightFormat::Q8_0));
  Buffer out(device(), 4 * kCols, MemoryUse::Device, "out");
  const uint64_t row = row_bytes(WeightFormat::Q8_0, kCols);
  EXPECT_THROW(dequantize_rows_op(WeightFormat::Q8_0, {&weights, 0, row - 2}, kCols, 0, 32, out, 0), UsageError);
  try {
    dequantize_rows_op(WeightFormat::Q8_0, {&weights, 0, weights.size()}, 192, 0, 192, out, 0);
    ADD_FAILURE() << "rows of 192 Q8_0 weights were accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of 256"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pb::test
