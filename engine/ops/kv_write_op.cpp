#include "engine/ops/kv_write_op.h"

#include <string>

#include "engine/ops/column_span.h"
#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {
namespace {

constexpr uint32_t kWorkgroup = 256;  // the kernel's local_size_x

// The layer's whole cache (see the header for why), checked for size.
TensorView whole_cache(const TensorView& view, const KvWriteProblem& p, const char* what) {
  const uint64_t bytes = uint64_t(p.n_kv_heads) * p.max_ctx * p.head_dim * 2;
  if (!view.buffer || view.bytes < bytes) {
    throw UsageError(std::string("kv_write ") + what + ": the cache needs " + std::to_string(bytes) +
                     " bytes ([n_kv_heads][max_ctx][head_dim] f16)");
  }
  return view.slice(0, bytes);
}

}  // namespace

Op kv_write_op(const KvWriteProblem& p) {
  if (p.pos0 + uint64_t(p.ncols) > p.max_ctx) {
    throw UsageError("kv_write: positions " + std::to_string(p.pos0) + ".." +
                     std::to_string(p.pos0 + p.ncols - 1) + " lie past max_ctx " +
                     std::to_string(p.max_ctx));
  }
  const uint32_t width = p.n_kv_heads * p.head_dim;
  Op op;
  op.kernel = &kernel("kv_write");
  op.bindings = {column_span(p.k, p.ncols, p.k_stride, width, "kv_write k").read(),
                 column_span(p.v, p.ncols, p.v_stride, width, "kv_write v").read(),
                 whole_cache(p.k_cache, p, "k_cache").write(),
                 whole_cache(p.v_cache, p, "v_cache").write()};
  op.push = PushConstants::of(
      KvWritePush{p.n_kv_heads, p.head_dim, p.pos0, p.max_ctx, p.k_stride, p.v_stride});
  op.groups = {ceil_div(width, kWorkgroup), p.ncols, 1};
  op.label = "kv_write";
  return op;
}

}  // namespace pb
