// Op builder for the RoPE (with the per-head q/k norm where the model has one) and the KV
// write in one dispatch (kernels/qk_norm_rope_kv.comp): what qk_norm_rope_op followed by
// kv_write_op computes, bit for bit, one dispatch and one barrier fewer per attention layer.
#pragma once

#include <cstdint>

#include "engine/ops/kv_write_op.h"
#include "engine/ops/qk_norm_rope_op.h"

namespace pb {

struct RopeKvWritePush {
  QkNormRopePush rope;
  uint32_t v_stride;  // floats between v columns
  uint32_t max_ctx;   // cache rows per head
};

// `kv` must append the k that `rope` transforms: the same k view and stride, heads, head_dim,
// first position and columns. Throws UsageError naming the field that differs, and whatever
// qk_norm_rope_op or kv_write_op would throw for their halves.
Op rope_kv_write_op(const QkNormRopeProblem& rope, const KvWriteProblem& kv);

}  // namespace pb
