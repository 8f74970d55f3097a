// The device buffers a forward pass works in: activation columns, the KV cache and the SSM
// states of every layer, the MoE routing and expert scratch, the token buffer the sampler
// writes back into, and the fingerprint outputs. Buffers an architecture does not use are not
// allocated.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/model/model_config.h"
#include "engine/ops/tensor_view.h"
#include "harness/buffer.h"

namespace pb {

class Device;

// Column strides are padded to 64 floats (256 bytes), so every column view starts at an
// offset every Vulkan device accepts for a storage-buffer binding.
inline uint32_t column_stride(uint32_t width) { return (width + 63) / 64 * 64; }

struct ActivationSizes {
  uint32_t max_cols = 1;  // activation columns of the widest chunk
  uint32_t max_ctx = 1;   // positions: prompt plus decode
  uint64_t attention_scratch_bytes = 0;
  uint64_t binding_alignment = 256;  // minStorageBufferOffsetAlignment: where the parts of the MoE
                                     // routing and quantized-input buffers may start
  bool quantized_inputs = false;     // a buffer for int8 DMMV inputs (dmmv_activations: int8)
};

// A [max_cols][stride] float buffer of activation columns, `width` of each used.
struct Columns2D {
  Buffer buffer;
  uint32_t width = 0;
  uint32_t stride = 0;
};

class Activations {
 public:
  Activations(Device& device, const ModelConfig& config, const ActivationSizes& sizes);
  static uint64_t bytes_needed(const ModelConfig& config, const ActivationSizes& sizes);

  const ActivationSizes& sizes() const { return sizes_; }

  Columns2D x, xn, tmp, tmp2;          // hidden: the residual stream, its norm, sub-block outputs
  Columns2D q, qgate, attn;            // n_heads * head_dim (widest layer)
  Columns2D k, v;                      // n_kv_heads * head_dim (widest layer)
  Columns2D gate, up, act;             // FFN width (dense or shared expert)
  Columns2D logits;                    // vocab
  Buffer tokens;     // uint32 [max_ctx + 1]: the prompt, then each sampled token
  Buffer predicted;  // uint32 [max_ctx + 1]: samples of prompt positions (dead work), unread
  Buffer top2;       // uvec4 [max_ctx + 1]: by position, index/max/second index/second max
  Buffer scratch;    // attention split partials
  Buffer quantized_x;  // int8 DMMV inputs (engine/ops/quantize_x_op.h) of up to max_cols columns
                       // of the widest projection input; only with sizes().quantized_inputs
  std::vector<Buffer> k_cache, v_cache;  // per attention layer [n_kv_heads][max_ctx][head_dim] f16

  // Mixture of experts (MoE models)
  Columns2D router;                    // [max_cols][n_experts] router logits
  Buffer routing;                      // route_e, route_w, items, assignments, counter
  Columns2D e_gate, e_up, e_act;       // [max_cols * top_k][expert_ffn]
  Columns2D e_out;                     // [max_cols * top_k][hidden]
  Columns2D shared_gate;               // [max_cols][1]: the shared expert's gate logit

  // Gated DeltaNet (hybrid models)
  Columns2D conv_in, conv_out;         // [max_cols][channels]
  Columns2D ssm_z, ssm_o, ssm_g;       // [max_cols][value_heads * d_v]
  Columns2D ssm_b, ssm_a;              // [max_cols][value_heads]
  std::vector<Buffer> conv_state, delta_state;  // per DeltaNet layer

 private:
  ActivationSizes sizes_;
};

}  // namespace pb
