// Op builders for MoE routing (kernels/moe_topk.comp, kernels/moe_group.comp) and the device
// buffers the routing lives in between the router and the weighted accumulation.
//
// Buffer layouts for a chunk of C tokens (E experts, top K):
//   route_e      [C][K] uint32   token t's experts at t*K + j, best first
//   route_w      [C][K] float    their weights (softmax probabilities, renormalized or not)
//   items        [min(E, C*K)] uvec4 (expert, count, first, 0): the distinct selected experts
//                in increasing order, compacted to the front
//   assignments  [C*K] uint32    assignment indices a = t*K + j grouped by expert (item i's
//                are assignments[first .. first + count)), increasing within an expert
//   counter      [1] uint32      n_items
//   arrivals     [1] uint32      moe_topk_chunk_group's arrival count: zero between dispatches
// An assignment a is token t = a / K's j = a % K-th choice; the expert FFN's intermediate
// columns are indexed by a, so [C*K][F] buffers hold every (token, choice) pair.
#pragma once

#include <array>
#include <cstdint>

#include "engine/ops/moe_shape.h"
#include "engine/ops/tensor_view.h"
#include "harness/op.h"

namespace pb {

// Limits of the one-workgroup grouping kernel (kernels/moe_group.comp).
inline constexpr uint32_t kMoeGroupMaxExperts = 512;
inline constexpr uint32_t kMoeGroupMaxAssignments = 1024;  // C * K
// Limit of the top-k kernel's per-token list (kernels/moe_topk.comp).
inline constexpr uint32_t kMoeTopkMaxK = 64;

// The routing state of one MoE layer, sized for up to max_cols tokens; builders bind the
// leading part a chunk of C tokens uses.
struct MoeRouting {
  TensorView route_e;      // [max_cols][K] uint32
  TensorView route_w;      // [max_cols][K] float
  TensorView items;        // [min(E, max_cols*K)] uvec4
  TensorView assignments;  // [max_cols*K] uint32
  TensorView counter;      // [1] uint32 (n_items)
  TensorView arrivals;     // [1] uint32, zeroed before the first moe_topk_chunk_group_op
};

// Bytes of one buffer holding the six views for max_cols tokens, each starting at a multiple
// of `alignment` (minStorageBufferOffsetAlignment), and the views carved from it.
uint64_t moe_routing_bytes(const MoeShape& shape, uint32_t max_cols, uint64_t alignment);
MoeRouting moe_routing_in(const TensorView& buffer, const MoeShape& shape, uint32_t max_cols,
                          uint64_t alignment);

// Expert items a dispatch over C tokens must cover: min(E, C*K).
uint32_t moe_item_capacity(const MoeShape& shape, uint32_t ncols);

// Read bindings of the parts of `routing` that a chunk of ncols tokens uses: the work list
// (items, assignments, counter) the expert DMMVs read, and route_w that moe_acc reads.
// Throw UsageError when a view is too small.
std::array<BufferRef, 3> moe_work_list_reads(const MoeShape& shape, uint32_t ncols,
                                             const MoeRouting& routing);
BufferRef moe_route_w_read(const MoeShape& shape, uint32_t ncols, const MoeRouting& routing);

struct MoeTopkPush {
  uint32_t n_experts;      // E: logits per token
  uint32_t top_k;          // K: experts chosen per token
  uint32_t logits_stride;  // floats between tokens' logits
};

// route_e/route_w of tokens [0, ncols) from the router logits (token t's E logits at float
// t * logits_stride of `logits`): the softmax over E, the K best (ties: lower index; NaN
// never beats a number), renormalized when shape.norm_topk. One workgroup per token.
// Throws UsageError when K is 0, above E or above kMoeTopkMaxK, or a view is too small.
Op moe_topk_op(const MoeShape& shape, const TensorView& logits, uint32_t logits_stride,
               uint32_t ncols, const MoeRouting& routing);

struct MoeGroupPush {
  uint32_t n_experts;      // E
  uint32_t n_assignments;  // C * K
};

// items, assignments and counter from route_e of tokens [0, ncols). One workgroup. Throws
// UsageError when E > kMoeGroupMaxExperts or C*K > kMoeGroupMaxAssignments (a longer chunk
// must be routed in pieces) or a view is too small.
Op moe_group_op(const MoeShape& shape, uint32_t ncols, const MoeRouting& routing);

// The most tokens and experts moe_topk_chunk_group_op serves (kernels/include/
// moe_chunk_group.glsl: a mask of 4 words of tokens per expert in shared memory).
inline constexpr uint32_t kMoeChunkGroupMaxTokens = 128;
inline constexpr uint32_t kMoeChunkGroupMaxExperts = 512;

// A prefill chunk's routing and work list in one dispatch (kernels/moe_topk_chunk_group.comp):
// what moe_topk_op then moe_group_op write, bit for bit, the last of its workgroups to finish
// grouping the routes, so a chunk takes one dispatch and one barrier less. It counts arrivals in
// routing.arrivals, which must be zero before the first such dispatch and is left so. Throws as
// moe_topk_op and moe_group_op, and where C > kMoeChunkGroupMaxTokens or E >
// kMoeChunkGroupMaxExperts.
Op moe_topk_chunk_group_op(const MoeShape& shape, const TensorView& logits, uint32_t logits_stride, uint32_t ncols,
                           const MoeRouting& routing);

// Whether moe_topk_chunk_group_op serves a chunk of `ncols` tokens of `shape` (its token and
// expert limits; its other refusals are moe_topk_op's and moe_group_op's).
inline bool moe_topk_chunk_group_fits(const MoeShape& shape, uint32_t ncols) {
  return ncols <= kMoeChunkGroupMaxTokens && shape.n_experts <= kMoeChunkGroupMaxExperts;
}

// A decode token's routing and work list in one dispatch (kernels/moe_topk_group.comp): what
// moe_topk_op for that one token (its E logits from the start of `logits`) and moe_group_op
// after it write, bit for bit, with one dispatch and one barrier less. Throws as moe_topk_op.
Op moe_topk_group_op(const MoeShape& shape, const TensorView& logits, const MoeRouting& routing);

}  // namespace pb
