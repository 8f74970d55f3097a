#include "engine/model/model_weights.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "engine/quant/device_layout.h"
#include "engine/quant/quant_ops.h"
#include "engine/quant/synthetic.h"
#include "harness/device.h"
#include "harness/errors.h"
#include "harness/immediate.h"
#include "harness/transfer.h"

namespace pb {
namespace {

std::string gib(uint64_t bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f GiB", static_cast<double>(bytes) / (1ull << 30));
  return std::to_string(bytes) + " bytes (" + text + ")";
}

// Synthetic blocks are generated in pieces that fit one binding and one dispatch.
void generate_matrix(Device& device, PipelineSet& pipelines, const DeviceTensor& t, uint32_t seed) {
  const uint64_t bytes_per_block = block_bytes(t.spec.format);
  const SyntheticScale scale = synthetic_scale(t.spec.format, t.spec.target_std);
  std::vector<Op> ops;
  for (const BlockRange& p : synth_pieces(t.spec.format, t.spec.total_rows(), t.spec.cols, device.info())) {
    ops.push_back(synth_weights_op(t.spec.format, seed, t.spec.id, p.first, p.count, scale, *t.storage,
                                   t.offset + p.first * bytes_per_block, t.spec.cols));
    if (ops.size() == 64) {
      run_immediately(device, pipelines, ops);
      ops.clear();
    }
  }
  run_immediately(device, pipelines, ops);
}

}  // namespace

void require_device_memory(const Device& device, const std::string& what, uint64_t bytes,
                           const std::string& breakdown) {
  const uint64_t available = device.info().device_local_bytes();
  if (bytes > available) {
    throw UsageError(what + " needs " + gib(bytes) + " of device memory (" + breakdown +
                     "); device '" + device.info().name + "' has " + gib(available) +
                     " in its largest device-local heap. Use a smaller preset (tiny-*) or a "
                     "device with more memory");
  }
}

namespace {

// Projections of one layer that read the same input, in the order their rows stack.
struct StackGroup {
  TensorRole roles[4];
  size_t count;
};
constexpr StackGroup kStackGroups[] = {
    {{TensorRole::AttnQ, TensorRole::AttnK, TensorRole::AttnV}, 3},
    {{TensorRole::FfnGate, TensorRole::FfnUp}, 2},
    {{TensorRole::SharedGate, TensorRole::SharedUp}, 2},
    // The experts' gate and up: decode's gate/up with the SwiGLU reads both through one binding
    // (moe_dmmv_intdot_glu_op).
    {{TensorRole::MoeGateExps, TensorRole::MoeUpExps}, 2},
    // A Gated DeltaNet's input projections (Qwen3.5): q/k/v, the output gate z, beta and alpha.
    {{TensorRole::SsmQkv, TensorRole::SsmZ, TensorRole::SsmBeta, TensorRole::SsmAlpha}, 4},
};

// Plan indices of the tensors stored together with plan[i]: i alone, or the longest start of
// its stack group (plan[i] first) whose members are not placed yet, share format and width
// and each start on an offset a binding may have and on a unit of the device layout (Q6_K's
// groups of 8 rows), so every member can still be bound alone and the stack as one tensor.
std::vector<size_t> storage_group(const std::vector<TensorSpec>& plan,
                                  const std::map<std::pair<TensorRole, int32_t>, size_t>& index,
                                  const std::vector<bool>& placed, size_t i, const DeviceInfo& info) {
  const TensorSpec& first = plan[i];
  for (const StackGroup& group : kStackGroups) {
    if (group.roles[0] != first.role) continue;
    std::vector<size_t> members{i};
    uint64_t bytes = first.bytes();
    for (size_t m = 1; m < group.count; ++m) {
      const auto it = index.find({group.roles[m], first.layer});
      if (it == index.end() || placed[it->second]) break;
      const TensorSpec& next = plan[it->second];
      if (next.format != first.format || next.cols != first.cols || next.experts != first.experts ||
          bytes % info.min_storage_buffer_offset_alignment != 0 ||
          bytes / row_bytes(first.format, first.cols) % device_rows_multiple(first.format) != 0 ||
          bytes + next.bytes() > info.max_storage_buffer_range) {
        break;
      }
      members.push_back(it->second);
      bytes += next.bytes();
    }
    return members;
  }
  return {i};
}

}  // namespace

ModelWeights ModelWeights::allocate(Device& device, const ModelConfig& config,
                                    std::vector<TensorSpec> plan) {
  ModelWeights w;
  w.config_ = config;
  for (size_t i = 0; i < plan.size(); ++i) w.index_[{plan[i].role, plan[i].layer}] = i;
  w.tensors_.resize(plan.size());
  std::vector<bool> placed(plan.size(), false);
  for (size_t i = 0; i < plan.size(); ++i) {
    if (placed[i]) continue;
    const std::vector<size_t> members = storage_group(plan, w.index_, placed, i, device.info());
    uint64_t bytes = 0;
    std::string name;
    for (size_t m : members) {
      if (!plan[m].host_values) require_device_cols(plan[m].format, plan[m].cols, plan[m].name);
      bytes += plan[m].bytes();
      name += (name.empty() ? "" : "+") + plan[m].name;
    }
    w.storage_.push_back(std::make_unique<Buffer>(device, bytes, MemoryUse::Device, name));
    uint64_t offset = 0;
    for (size_t m : members) {
      placed[m] = true;
      w.tensors_[m] = DeviceTensor{plan[m], w.storage_.back().get(), offset};
      offset += plan[m].bytes();
    }
  }
  return w;
}

ModelWeights ModelWeights::synthetic(Device& device, PipelineSet& pipelines, Transfer& transfer,
                                     const ModelConfig& config, std::vector<TensorSpec> plan,
                                     uint32_t seed) {
  ModelWeights w = allocate(device, config, std::move(plan));
  for (const DeviceTensor& t : w.tensors_) {
    if (t.spec.host_values) {
      const auto values = synthetic_f32_values(seed, t.spec.id, t.spec.total_rows() * t.spec.cols,
                                               t.spec.center, t.spec.spread);
      transfer.upload_from<float>(*t.storage, t.offset, values);
    } else {
      generate_matrix(device, pipelines, t, seed);
    }
  }
  return w;
}

bool ModelWeights::has(TensorRole role, int32_t layer) const {
  return index_.count({role, layer}) > 0;
}

const DeviceTensor& ModelWeights::get(TensorRole role, int32_t layer) const {
  const auto it = index_.find({role, layer});
  if (it == index_.end()) {
    throw std::out_of_range("model '" + config_.name + "' has no tensor of role " +
                            std::to_string(static_cast<int>(role)) + " in layer " +
                            std::to_string(layer));
  }
  return tensors_[it->second];
}

uint64_t ModelWeights::bytes() const {
  uint64_t total = 0;
  for (const auto& b : storage_) total += b->size();
  return total;
}

std::optional<DeviceTensor> ModelWeights::stacked(std::span<const TensorRole> roles, int32_t layer) const {
  if (roles.empty()) return std::nullopt;
  std::optional<DeviceTensor> stack;
  for (TensorRole role : roles) {
    if (!has(role, layer)) return std::nullopt;
    const DeviceTensor& t = get(role, layer);
    if (!stack) {
      stack = t;
      continue;
    }
    TensorSpec& s = stack->spec;
    if (t.storage != stack->storage || t.offset != stack->offset + s.bytes() || t.spec.format != s.format ||
        t.spec.cols != s.cols || t.spec.experts != 1) {
      return std::nullopt;
    }
    s.name += "+" + t.spec.name;
    s.rows += t.spec.rows;
  }
  return stack;
}

}  // namespace pb
