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

// Projections of one layer that read the same input, in the order their rows stack. Where
// `padded`, each member after the first starts on a multiple of kStackPartRows rows, as its
// output starts on as many floats in the activations' stacks (Activations: stack_in), so that
// the stack's output rows land on its parts whatever their widths; the rows between are zeros
// (ModelWeights::zero_pads). The gate/up stacks stay unpadded: the GLU producers read up at
// gate's row count further (dmmv_intdot_glu_epilogue.glsl).
struct StackGroup {
  TensorRole roles[4];
  size_t count;
  bool padded;
};
constexpr StackGroup kStackGroups[] = {
    {{TensorRole::AttnQ, TensorRole::AttnK, TensorRole::AttnV, TensorRole::AttnOutputGate}, 4, true},
    {{TensorRole::FfnGate, TensorRole::FfnUp}, 2, false},
    {{TensorRole::SharedGate, TensorRole::SharedUp}, 2, false},
    // The experts' gate and up: decode's gate/up with the SwiGLU reads both through one binding
    // (moe_dmmv_intdot_glu_op).
    {{TensorRole::MoeGateExps, TensorRole::MoeUpExps}, 2, false},
    // A Gated DeltaNet's input projections (Qwen3.5): q/k/v, the output gate z, beta and alpha.
    {{TensorRole::SsmQkv, TensorRole::SsmZ, TensorRole::SsmBeta, TensorRole::SsmAlpha}, 4, true},
    // A MoE's router and its shared expert's sigmoid gate (Qwen3.5): both read the FFN norm.
    {{TensorRole::MoeRouter, TensorRole::SharedGateInp}, 2, true},
};

// A storage group: its members' plan indices (the first is the group's first tensor) and each
// one's offset in bytes from the storage's start.
struct StorageGroup {
  std::vector<size_t> members;
  std::vector<uint64_t> offsets;
  uint64_t bytes = 0;
};

// The tensors stored together with plan[i]: i alone, or the longest start of its stack group
// (plan[i] first) whose members are not placed yet, share format and width and each start on an
// offset a binding may have and on a unit of the device layout (Q6_K's groups of 8 rows), so
// every member can still be bound alone and the stack as one tensor.
StorageGroup storage_group(const std::vector<TensorSpec>& plan,
                           const std::map<std::pair<TensorRole, int32_t>, size_t>& index,
                           const std::vector<bool>& placed, size_t i, const DeviceInfo& info) {
  const TensorSpec& first = plan[i];
  StorageGroup g{{i}, {0}, first.bytes()};
  for (const StackGroup& group : kStackGroups) {
    if (group.roles[0] != first.role) continue;
    for (size_t m = 1; m < group.count; ++m) {
      const auto it = index.find({group.roles[m], first.layer});
      if (it == index.end() || placed[it->second]) break;
      const TensorSpec& next = plan[it->second];
      const TensorSpec& last = plan[g.members.back()];
      const uint64_t at =
          group.padded ? g.offsets.back() + stack_part_rows(last.rows) * row_bytes(last.format, last.cols) : g.bytes;
      if (next.format != first.format || next.cols != first.cols || next.experts != first.experts ||
          (first.experts != 1 && group.padded) || at % info.min_storage_buffer_offset_alignment != 0 ||
          at / row_bytes(first.format, first.cols) % device_rows_multiple(first.format) != 0 ||
          at + next.bytes() > info.max_storage_buffer_range) {
        break;
      }
      g.members.push_back(it->second);
      g.offsets.push_back(at);
      g.bytes = at + next.bytes();
    }
    return g;
  }
  return g;
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
    const StorageGroup g = storage_group(plan, w.index_, placed, i, device.info());
    std::string name;
    for (size_t m : g.members) {
      if (!plan[m].host_values) require_device_cols(plan[m].format, plan[m].cols, plan[m].name);
      name += (name.empty() ? "" : "+") + plan[m].name;
    }
    w.storage_.push_back(std::make_unique<Buffer>(device, g.bytes, MemoryUse::Device, name));
    for (size_t n = 0; n < g.members.size(); ++n) {
      const size_t m = g.members[n];
      placed[m] = true;
      w.tensors_[m] = DeviceTensor{plan[m], w.storage_.back().get(), g.offsets[n]};
      const uint64_t end = g.offsets[n] + plan[m].bytes();
      if (n + 1 < g.members.size() && g.offsets[n + 1] > end) {
        w.pads_.push_back(TensorView{w.storage_.back().get(), end, g.offsets[n + 1] - end});
      }
    }
  }
  return w;
}

void ModelWeights::zero_pads(Transfer& transfer) const {
  for (const TensorView& pad : pads_) {
    const std::vector<uint8_t> zeros(pad.bytes, 0);
    transfer.upload(*pad.buffer, pad.offset, zeros);
  }
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
  w.zero_pads(transfer);
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
    // t follows on, or in a padded stack on the next multiple of kStackPartRows rows (the rows
    // between are zeros, and the stack's rows run on to t's end).
    const uint64_t row = row_bytes(s.format, s.cols);
    if (t.storage != stack->storage || t.spec.format != s.format || t.spec.cols != s.cols || t.spec.experts != 1 ||
        (t.offset != stack->offset + s.bytes() && t.offset != stack->offset + stack_part_rows(s.rows) * row)) {
      return std::nullopt;
    }
    s.name += "+" + t.spec.name;
    s.rows = (t.offset - stack->offset) / row + t.spec.rows;
  }
  return stack;
}

}  // namespace pb
