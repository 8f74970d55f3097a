#include "engine/ops/rope_kv_write_op.h"

#include <string>

#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {
namespace {

void require_same(uint64_t rope, uint64_t kv, const char* field) {
  if (rope != kv) {
    throw UsageError(std::string("rope_kv_write: the KV write's ") + field + " (" + std::to_string(kv) +
                     ") differs from the RoPE's (" + std::to_string(rope) +
                     "); both halves must work on the same k columns");
  }
}

}  // namespace

Op rope_kv_write_op(const QkNormRopeProblem& rope, const KvWriteProblem& kv) {
  if (rope.k.buffer != kv.k.buffer) {
    throw UsageError("rope_kv_write: the KV write's k lies in another buffer than the RoPE's; both halves must "
                     "work on the same k columns");
  }
  require_same(rope.k.offset, kv.k.offset, "k offset");
  require_same(rope.k_stride, kv.k_stride, "k_stride");
  require_same(rope.n_k_heads, kv.n_kv_heads, "n_kv_heads");
  require_same(rope.head_dim, kv.head_dim, "head_dim");
  require_same(rope.pos0, kv.pos0, "pos0");
  require_same(rope.ncols, kv.ncols, "ncols");
  // Each half's own checks and bindings.
  const Op rope_op = qk_norm_rope_op(rope);
  const Op kv_op = kv_write_op(kv);
  Op op = rope_op;
  op.kernel = &kernel("qk_norm_rope_kv");
  // q, k (read and written), the norms; then v and the two caches as kv_write binds them.
  op.bindings.push_back(kv_op.bindings[1]);
  op.bindings.push_back(kv_op.bindings[2]);
  op.bindings.push_back(kv_op.bindings[3]);
  op.push = PushConstants::of(RopeKvWritePush{qk_norm_rope_push(rope), kv.v_stride, kv.max_ctx});
  op.label = rope.qk_norm ? "qk_norm_rope_kv_write" : "rope_kv_write";
  return op;
}

}  // namespace pb
