#include "engine/ops/sigmoid_mul_op.h"

#include "engine/ops/column_span.h"
#include "kernels/registry.h"

namespace pb {
namespace {

constexpr uint32_t kWorkgroup = 256;  // the kernel's local_size_x

}  // namespace

Op sigmoid_mul_op(const SigmoidMulProblem& p) {
  const uint32_t g_per_column = p.broadcast ? 1 : p.n;
  Op op;
  op.kernel = &kernel("sigmoid_mul");
  op.spec.set(0, p.broadcast ? 1 : 0);
  op.bindings = {column_span(p.g, p.ncols, p.g_stride, g_per_column, "sigmoid_mul g").read(),
                 column_span(p.y, p.ncols, p.y_stride, p.n, "sigmoid_mul y").read_write()};
  op.push = PushConstants::of(SigmoidMulPush{p.n, p.g_stride, p.y_stride});
  op.groups = {ceil_div(p.n, kWorkgroup), p.ncols, 1};
  op.label = "sigmoid_mul";
  return op;
}

}  // namespace pb
