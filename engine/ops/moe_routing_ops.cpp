#include "engine/ops/moe_routing_ops.h"

#include <algorithm>
#include <array>
#include <string>

#include "engine/ops/column_span.h"
#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {
namespace {

uint64_t align_up(uint64_t bytes, uint64_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

// The six views' sizes in bytes for max_cols tokens, in MoeRouting order.
std::array<uint64_t, 6> routing_sizes(const MoeShape& s, uint32_t max_cols) {
  const uint64_t n = uint64_t(max_cols) * s.top_k;
  return {n * 4, n * 4, uint64_t(moe_item_capacity(s, max_cols)) * 16, n * 4, 4, 4};
}

// The leading `count` elements of `view` (one column), or UsageError naming what is short.
TensorView leading(const TensorView& view, uint64_t count, const std::string& what,
                   uint32_t element_bytes = 4) {
  return column_span(view, 1, 0, static_cast<uint32_t>(count), what, element_bytes);
}

void check_shape(const MoeShape& s, uint32_t ncols, const char* what) {
  if (s.n_experts == 0 || s.top_k == 0 || s.top_k > s.n_experts || ncols == 0) {
    throw UsageError(std::string(what) + ": needs 0 < K <= E and at least one token (E " +
                     std::to_string(s.n_experts) + ", K " + std::to_string(s.top_k) + ")");
  }
}

}  // namespace

uint32_t moe_item_capacity(const MoeShape& shape, uint32_t ncols) {
  return static_cast<uint32_t>(std::min<uint64_t>(shape.n_experts, uint64_t(ncols) * shape.top_k));
}

uint64_t moe_routing_bytes(const MoeShape& shape, uint32_t max_cols, uint64_t alignment) {
  uint64_t total = 0;
  for (uint64_t bytes : routing_sizes(shape, max_cols)) total += align_up(bytes, alignment);
  return total;
}

MoeRouting moe_routing_in(const TensorView& buffer, const MoeShape& shape, uint32_t max_cols,
                          uint64_t alignment) {
  if (buffer.bytes < moe_routing_bytes(shape, max_cols, alignment)) {
    throw UsageError("moe routing buffer of " + std::to_string(buffer.bytes) + " bytes; needs " +
                     std::to_string(moe_routing_bytes(shape, max_cols, alignment)));
  }
  const auto sizes = routing_sizes(shape, max_cols);
  std::array<TensorView, std::tuple_size_v<decltype(sizes)>> views;
  uint64_t at = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    views[i] = buffer.slice(at, sizes[i]);
    at += align_up(sizes[i], alignment);
  }
  return {views[0], views[1], views[2], views[3], views[4], views[5]};
}

std::array<BufferRef, 3> moe_work_list_reads(const MoeShape& s, uint32_t ncols, const MoeRouting& r) {
  check_shape(s, ncols, "moe work list");
  return {leading(r.items, moe_item_capacity(s, ncols), "moe items", 16).read(),
          leading(r.assignments, uint64_t(ncols) * s.top_k, "moe assignments").read(),
          leading(r.counter, 1, "moe counter").read()};
}

BufferRef moe_route_w_read(const MoeShape& s, uint32_t ncols, const MoeRouting& r) {
  check_shape(s, ncols, "moe route_w");
  return leading(r.route_w, uint64_t(ncols) * s.top_k, "moe route_w").read();
}

Op moe_topk_op(const MoeShape& s, const TensorView& logits, uint32_t logits_stride, uint32_t ncols,
               const MoeRouting& r) {
  check_shape(s, ncols, "moe_topk");
  if (s.top_k > kMoeTopkMaxK) {
    throw UsageError("moe_topk: K " + std::to_string(s.top_k) + " exceeds the kernel's " +
                     std::to_string(kMoeTopkMaxK));
  }
  const uint64_t n = uint64_t(ncols) * s.top_k;
  Op op;
  op.kernel = &kernel("moe_topk");
  op.spec.set(0, s.norm_topk ? 1 : 0);
  op.bindings = {column_span(logits, ncols, logits_stride, s.n_experts, "moe_topk logits").read(),
                 leading(r.route_e, n, "moe_topk route_e").write(),
                 leading(r.route_w, n, "moe_topk route_w").write()};
  op.push = PushConstants::of(MoeTopkPush{s.n_experts, s.top_k, logits_stride});
  op.groups = {ncols, 1, 1};
  op.phase = Phase::MoeTopk;
  op.label = "moe_topk";
  return op;
}

Op moe_group_op(const MoeShape& s, uint32_t ncols, const MoeRouting& r) {
  check_shape(s, ncols, "moe_group");
  const uint64_t n = uint64_t(ncols) * s.top_k;
  if (s.n_experts > kMoeGroupMaxExperts || n > kMoeGroupMaxAssignments) {
    throw UsageError("moe_group: E " + std::to_string(s.n_experts) + " and C*K " + std::to_string(n) +
                     " must stay within the one-workgroup kernel's " +
                     std::to_string(kMoeGroupMaxExperts) + " experts and " +
                     std::to_string(kMoeGroupMaxAssignments) + " assignments");
  }
  Op op;
  op.kernel = &kernel("moe_group");
  op.bindings = {leading(r.route_e, n, "moe_group route_e").read(),
                 leading(r.items, moe_item_capacity(s, ncols), "moe_group items", 16).write(),
                 leading(r.assignments, n, "moe_group assignments").write(),
                 leading(r.counter, 1, "moe_group counter").write()};
  op.push = PushConstants::of(MoeGroupPush{s.n_experts, static_cast<uint32_t>(n)});
  op.groups = {1, 1, 1};
  op.phase = Phase::MoeTopk;
  op.label = "moe_group";
  return op;
}

Op moe_topk_chunk_group_op(const MoeShape& s, const TensorView& logits, uint32_t logits_stride, uint32_t ncols,
                           const MoeRouting& r) {
  // moe_topk's op (its checks and its first three bindings), moe_group's checks and its three
  // outputs, and the arrival count.
  Op op = moe_topk_op(s, logits, logits_stride, ncols, r);
  const Op group = moe_group_op(s, ncols, r);
  if (!moe_topk_chunk_group_fits(s, ncols)) {
    throw UsageError("moe_topk_chunk_group: C " + std::to_string(ncols) + " and E " + std::to_string(s.n_experts) +
                     " must stay within the kernel's " + std::to_string(kMoeChunkGroupMaxTokens) + " tokens and " +
                     std::to_string(kMoeChunkGroupMaxExperts) + " experts; route longer chunks with moe_topk_op and "
                     "moe_group_op");
  }
  op.kernel = &kernel("moe_topk_chunk_group");
  op.bindings[1].access = Access::ReadWrite;  // the last workgroup reads the others' routes
  op.bindings.insert(op.bindings.end(), group.bindings.begin() + 1, group.bindings.end());
  op.bindings.push_back(leading(r.arrivals, 1, "moe_topk_chunk_group arrivals").read_write());
  op.label = "moe_topk_chunk_group";
  return op;
}

Op moe_topk_group_op(const MoeShape& s, const TensorView& logits, const MoeRouting& r) {
  // moe_topk's op for the one token (its checks and its first three bindings), with the work
  // list moe_group would write (a token's K experts are distinct: one assignment an item).
  Op op = moe_topk_op(s, logits, s.n_experts, 1, r);
  op.kernel = &kernel("moe_topk_group");
  op.bindings.push_back(leading(r.items, moe_item_capacity(s, 1), "moe_topk_group items", 16).write());
  op.bindings.push_back(leading(r.assignments, s.top_k, "moe_topk_group assignments").write());
  op.bindings.push_back(leading(r.counter, 1, "moe_topk_group counter").write());
  op.label = "moe_topk_group";
  return op;
}

}  // namespace pb
