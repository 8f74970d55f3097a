#include "engine/ops/attention_shape.h"

#include <string>

#include "harness/errors.h"

namespace pb {
namespace {

void check_cache_view(const char* op, const char* name, const TensorView& view, uint64_t bytes) {
  if (view.buffer == nullptr || view.bytes < bytes) {
    throw UsageError(std::string(op) + ": the " + name + " cache view holds fewer than " +
                     std::to_string(bytes) + " bytes");
  }
  if (view.offset % 16 != 0) {
    throw UsageError(std::string(op) + ": the " + name +
                     " cache view's offset is not a multiple of 16 bytes");
  }
}

}  // namespace

void check_attention_shape(const char* op, const AttentionShape& s, const KvCacheView& cache) {
  const std::string name(op);
  if (s.head_dim != 64 && s.head_dim != 128 && s.head_dim != 256 && s.head_dim != 512) {
    throw UsageError(name + ": head_dim " + std::to_string(s.head_dim) + " is not 64, 128, 256 or 512");
  }
  if (s.n_kv_heads == 0 || s.n_heads == 0 || s.n_heads % s.n_kv_heads != 0) {
    throw UsageError(name + ": n_heads must be a positive multiple of n_kv_heads");
  }
  if (s.max_ctx == 0) throw UsageError(name + ": max_ctx is 0");
  check_cache_view(op, "K", cache.k, s.cache_bytes());
  check_cache_view(op, "V", cache.v, s.cache_bytes());
}

}  // namespace pb
