// The element-wise ops after a split matmul projection moved into its reduction (matmul
// prefill chunks, whose few tiles split their K: matmul_split.h): the gated unit after a
// stacked gate and up, and a shared expert's sigmoid gate and residual add after its down. Each
// saves the dispatches (and, under global barriers, the barriers) of the ops it takes in, and
// gives their bits.
#include "engine/forward/forward_context.h"

namespace pb {
namespace {

// The split projection whose reduction is the list's last op, where one was remembered.
const SplitRecord* last_op_split(const Emitter& e) {
  const std::optional<SplitRecord>& r = e.last_split;
  return r && r->op_index + 1 == e.ops().size() ? &*r : nullptr;
}

}  // namespace

bool ForwardContext::glu_in_split_reduce(Emitter& e, const GluProblem& glu) const {
  const SplitRecord* r = last_op_split(e);
  // The stack wrote gate at its y and up right after it, both with its stride.
  if (r == nullptr || r->problem.accumulate || r->problem.rows != 2 * glu.n || r->problem.ncols != glu.ncols ||
      r->problem.y.buffer != glu.gate.buffer || r->problem.y.offset != glu.gate.offset ||
      glu.up.buffer != glu.gate.buffer || glu.up.offset != glu.gate.offset + uint64_t(glu.n) * 4 ||
      glu.gate_stride != r->problem.y_stride || glu.up_stride != r->problem.y_stride) {
    return false;
  }
  e.replace(r->op_index, matmul_split_reduce_glu_op(r->slots, glu, limits));
  e.last_split.reset();
  return true;
}

bool ForwardContext::gated_add_in_split_reduce(Emitter& e, const SigmoidMulProblem& gate,
                                               const AddInPlaceProblem& add) const {
  const SplitRecord* r = last_op_split(e);
  if (r == nullptr || r->problem.accumulate || !gate.broadcast || r->problem.y != gate.y || add.b != gate.y ||
      gate.n != r->problem.rows || add.n != gate.n || gate.ncols != r->problem.ncols || add.ncols != gate.ncols ||
      gate.y_stride != r->problem.y_stride || add.b_stride != gate.y_stride) {
    return false;
  }
  e.replace(r->op_index, matmul_split_reduce_gated_op(r->slots, gate.g, gate.g_stride, add.y, add.y_stride, limits));
  e.last_split.reset();
  return true;
}

}  // namespace pb
