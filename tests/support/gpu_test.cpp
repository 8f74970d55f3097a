#include "tests/support/gpu_test.h"

#include <memory>

#include "engine/quant/device_layout.h"
#include "harness/immediate.h"
#include "harness/pipeline.h"

namespace pb::test {

Context& context() {
  static std::unique_ptr<Context> ctx = std::make_unique<Context>(ContextOptions{"", true});
  return *ctx;
}

Device& device() { return context().device(); }

Transfer& transfer() {
  static std::unique_ptr<Transfer> t = std::make_unique<Transfer>(device(), 8 << 20);
  return *t;
}

void run_ops(std::span<const Op> ops, BarrierPolicy barriers) {
  static PipelineSet pipelines(device(), nullptr);
  run_immediately(device(), pipelines, ops, barriers);
}

Buffer upload_floats(const std::vector<float>& values, const char* name) {
  Buffer buffer(device(), values.size() * sizeof(float), MemoryUse::Device, name);
  transfer().upload_from<float>(buffer, 0, values);
  return buffer;
}

Buffer upload_weights(WeightFormat format, uint64_t cols, std::span<const uint8_t> gguf_bytes, const char* name) {
  Buffer buffer(device(), gguf_bytes.size(), MemoryUse::Device, name);
  upload_weights_to(buffer, 0, format, cols, gguf_bytes);
  return buffer;
}

void upload_weights_to(const Buffer& buffer, uint64_t offset, WeightFormat format, uint64_t cols,
                       std::span<const uint8_t> gguf_bytes) {
  transfer().upload(buffer, offset, device_rows(format, cols, gguf_bytes));
}

std::vector<float> download_floats(const Buffer& buffer, size_t count) {
  return transfer().download_as<float>(buffer, 0, count);
}

void expect_validation_clean(const char* where) {
  auto& log = context().instance().validation_log();
  const auto before = log.error_count();
  try {
    log.throw_if_errors(where);
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
  }
  (void)before;
}

}  // namespace pb::test
