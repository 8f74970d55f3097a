// The shapes the benchmarks run at. On a GPU: the real projections of the 8B presets
// (llama3-8b, qwen3-8b) and their attention. On the CPU device (lavapipe) those take seconds
// per dispatch and gigabytes of host memory, so a shrunken set with the same structure runs
// instead; the benchmark context's `shapes` field says which set a file holds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/ops/attention_shape.h"
#include "engine/ops/moe_shape.h"
#include "engine/ops/ssm_shape.h"

namespace pb::bench {

// One weight matrix: rows = outputs, cols = inputs.
struct ProjectionShape {
  std::string role;  // "attn" (q/o), "ffn_down", "ffn_up" (gate/up), "lm_head"
  uint32_t rows = 0;
  uint32_t cols = 0;  // a multiple of 256, the K-quant block

  std::string name() const { return role + ":" + std::to_string(rows) + "x" + std::to_string(cols); }
};

struct ShapeSet {
  std::string name;         // "model" or "cpu-small"
  std::string description;  // one line for the benchmark context
  std::vector<ProjectionShape> projections;
  AttentionShape attention;               // heads, kv heads, head dim (max_ctx set per case)
  std::vector<uint32_t> decode_contexts;  // context lengths of the decode attention
  uint32_t sequence_context = 512;        // the attention's context in the sequence benchmarks
  uint32_t prefill_tokens = 512;          // C of prefill attention and the matmul's largest N
  std::vector<uint32_t> matmul_tokens;    // N of the matmul benchmarks
  uint32_t hidden = 0;                    // rmsnorm width
  uint32_t ffn = 0;                       // glu width
  uint32_t vocab = 0;                     // argmax width
  std::vector<uint32_t> activation_cols;  // columns of the element-wise benchmarks: decode, prefill
  // The MoE FFN of moe_model (experts, top-k, expert width) at its hidden width, for decode
  // (moe_tokens[0] = 1) and for prefill chunks of the other moe_tokens.
  std::string moe_model;
  MoeShape moe;
  uint32_t moe_hidden = 0;
  std::vector<uint32_t> moe_tokens;
  // The Gated DeltaNet layer of ssm_model, for decode and a prefill chunk of ssm_tokens.back().
  std::string ssm_model;
  SsmShape ssm;
  std::vector<uint32_t> ssm_tokens;

  std::string attention_name() const;  // "h32kv8d128"
};

ShapeSet model_shapes();
ShapeSet cpu_shapes();

}  // namespace pb::bench
