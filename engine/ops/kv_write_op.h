// Op builder for appending k and v columns to one layer's float16 KV cache
// (kernels/kv_write.comp).
//
// Binding choice: the op binds the layer's whole K and V cache ranges as written, in one
// dispatch. The rows it writes, [pos0, pos0 + ncols) of every head, are not contiguous, so the
// alternatives were one op per head (n_kv_heads dispatches per layer: the per-dispatch
// overhead this tool measures, so it would distort every result) or a span from head 0's
// first row to the last head's last row (nearly the whole range anyway). A wide write range
// can only add ledger hazards, never hide one, and in practice adds none: attention binds the
// whole layer cache as read (attention_decode_op), so exact row ranges would overlap it too.
#pragma once

#include <cstdint>

#include "engine/ops/tensor_view.h"
#include "harness/op.h"

namespace pb {

struct KvWritePush {
  uint32_t n_kv_heads;  // heads in k, v and the cache
  uint32_t head_dim;    // elements per head
  uint32_t pos0;        // cache row of column 0
  uint32_t max_ctx;     // rows per head in the cache
  uint32_t k_stride;    // floats between k columns
  uint32_t v_stride;    // floats between v columns
};

// K cache[kvh][pos0 + c][d] = f16(k[c][kvh * head_dim + d]) for c < ncols, and likewise V.
struct KvWriteProblem {
  TensorView k;        // column c at float c * k_stride: n_kv_heads * head_dim floats
  TensorView v;        // column c at float c * v_stride
  TensorView k_cache;  // the layer's K: [n_kv_heads][max_ctx][head_dim] float16
  TensorView v_cache;  // the layer's V, same shape
  uint32_t n_kv_heads = 0;
  uint32_t head_dim = 0;
  uint32_t max_ctx = 0;
  uint32_t pos0 = 0;
  uint32_t ncols = 1;
  uint32_t k_stride = 0;
  uint32_t v_stride = 0;
};

// Throws UsageError when pos0 + ncols exceeds max_ctx or a view is too small.
Op kv_write_op(const KvWriteProblem& problem);

}  // namespace pb
