// The device buffers a forward pass works in: activation columns, the KV cache and the SSM
// states of every layer, the MoE routing and expert scratch, the token buffer the sampler
// writes back into, and the fingerprint outputs. Buffers an architecture does not use are not
// allocated.
#pragma once

#include <cstdint>
#include <memory>
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
  uint64_t int8mat_split_bytes = 0;  // the int8 matrix DMMV's K-split scratch (int8mat_split_sums.h)
  bool matmul_prefill = false;       // a run prefills through the matmul, cooperative matrix allowed
  uint64_t matmul_split_bytes = 0;   // the coopmat matmul's K-split scratch (matmul_split.h)
};

// Activation columns in a [max_cols][stride] float buffer: `width` floats of each, starting
// `first` floats into the column (a part of a stack, below; 0 for a buffer of its own).
struct Columns2D {
  const Buffer* buffer = nullptr;  // owned by the Activations
  uint32_t first = 0;
  uint32_t width = 0;
  uint32_t stride = 0;
};

class Activations {
 public:
  Activations(Device& device, const ModelConfig& config, const ActivationSizes& sizes);
  static uint64_t bytes_needed(const ModelConfig& config, const ActivationSizes& sizes);

  const ActivationSizes& sizes() const { return sizes_; }

  // The outputs of projections stored as a stack (ModelWeights::stacked) lie side by side in
  // one buffer's columns, each part starting on 64 floats (a binding offset every device
  // accepts). A stack's one DMMV writes them all: its members start on as many rows
  // (kStackPartRows) where a part needs padding, except gate and up, which stack only where
  // none does.
  // Layer `layer`'s q, k and v (its own head dims), and its output gate where the model has
  // one, in qkv_columns.
  std::vector<Columns2D> qkv(const ModelConfig& config, uint32_t layer) const;
  // Gate and up of an FFN `width` wide (dense or shared expert), in gate_up_columns.
  std::vector<Columns2D> gate_up(uint32_t width) const;
  // quantized_act's regions: the dense or shared expert's gated unit at its start, the routed
  // experts' after it. Apart, so that in a MoE decode the experts' gate and up write theirs while
  // the shared expert's down still reads its own, with no barrier between the two dispatches.
  TensorView dense_quantized_act() const;
  TensorView experts_quantized_act() const;

  Columns2D x, xn, tmp, tmp2;          // hidden: the residual stream, its norm, sub-block outputs
  Columns2D attn;                      // n_heads * head_dim (widest layer)
  // q, k, v and the output gate where the model has one (Qwen3.5), side by side (qkv() cuts a
  // layer's parts)
  Columns2D qkv_columns;
  Columns2D gate_up_columns;           // gate and up side by side (gate_up() cuts them)
  Columns2D act;                       // FFN width (dense or shared expert)
  Columns2D logits;                    // vocab
  Buffer tokens;     // uint32 [max_ctx + 1]: the prompt, then each sampled token
  Buffer predicted;  // uint32 [max_ctx + 1]: samples of prompt positions (dead work), unread
  Buffer top2;       // uvec4 [max_ctx + 1]: by position, index/max/second index/second max
  Buffer argmax_partials;  // the sliced argmax's top twos per slice of the vocabulary, and its counters
  Buffer scratch;    // attention split partials
  Buffer matmul_split_sums;   // the coopmat matmul's K-split sums (matmul_split.h); only with
                              // sizes().matmul_split_bytes
  Buffer int8mat_split_sums;  // the int8 matrix DMMV's K-split sums and arrival counters, zeroed
                              // (dmmv_intdot_op.h); only with sizes().int8mat_split_bytes
  Buffer quantized_x;  // int8 DMMV inputs (engine/ops/quantize_x_op.h) of up to max_cols columns
                       // of the widest projection input; only with sizes().quantized_inputs
  Buffer deferred_norm;  // a norm's int8 form written by the projection before it (one hidden
                         // column, with block squares: norm_placement producer); only with
                         // sizes().quantized_inputs. Apart from quantized_x, which that
                         // projection reads while it writes this
  Buffer quantized_act;  // the FFN gated unit's int8 form written by the gate/up projection (one
                         // column: glu_placement producer), and the experts' (dense_ and
                         // experts_quantized_act); only with sizes().quantized_inputs. Apart from
                         // quantized_x, which that projection may read meanwhile
  std::vector<Buffer> k_cache, v_cache;  // per attention layer [n_kv_heads][max_ctx][head_dim] f16

  // Mixture of experts (MoE models)
  Columns2D router;                    // [max_cols][n_experts] router logits
  Buffer routing;                      // route_e, route_w, items, assignments, counter, arrivals
  Columns2D e_gate, e_up, e_act;       // [max_cols * top_k][expert_ffn]
  Columns2D e_out;                     // [max_cols * top_k][hidden]
  Columns2D shared_gate;               // [max_cols][1]: the shared expert's gate logit
  Buffer moe_acc_arrivals;  // decode's down with the accumulation: a counter per block of 32 hidden
                            // rows (moe_down_acc_norm_op.h), zeroed; only with sizes().quantized_inputs

  // Gated DeltaNet (hybrid models). The outputs of its input projections, conv_in, ssm_z, ssm_b
  // and ssm_a, are the parts of one stack (as qkv), so that they can be one projection.
  Columns2D conv_in, conv_out;         // [max_cols][channels]
  Columns2D ssm_z, ssm_o, ssm_g;       // [max_cols][value_heads * d_v]
  Columns2D ssm_b, ssm_a;              // [max_cols][value_heads]
  std::vector<Buffer> conv_state, delta_state;  // per DeltaNet layer
  Buffer ssm_conv_arrivals;  // uint32 per key head, zero between dispatches (ssm_conv_delta_op);
                             // one set for every layer, whose dispatches the ledger orders
  Buffer ssm_head_arrivals;  // uint32 per value head, the same (ssm_conv_delta_gnorm_op)

 private:
  Columns2D columns(Device& device, uint32_t width, uint32_t cols, const char* name);

  ActivationSizes sizes_;
  uint64_t experts_act_offset_ = 0;  // where quantized_act's experts' region starts
  std::vector<std::unique_ptr<Buffer>> column_buffers_;  // behind pointers: Columns2D point into it
};

}  // namespace pb
