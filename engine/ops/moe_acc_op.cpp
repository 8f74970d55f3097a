#include "engine/ops/moe_acc_op.h"

#include "engine/ops/column_span.h"
#include "kernels/registry.h"

namespace pb {
namespace {

constexpr uint32_t kWorkgroup = 256;  // the kernel's local_size_x

}  // namespace

Op moe_acc_op(const MoeAccProblem& p, const MoeRouting& routing) {
  const uint32_t assignments = p.ncols * p.shape.top_k;
  Op op;
  op.kernel = &kernel("moe_acc");
  op.bindings = {moe_route_w_read(p.shape, p.ncols, routing),
                 column_span(p.out, assignments, p.out_stride, p.n, "moe_acc out").read(),
                 column_span(p.x, p.ncols, p.x_stride, p.n, "moe_acc x").read_write()};
  op.push = PushConstants::of(MoeAccPush{p.n, p.shape.top_k, p.out_stride, p.x_stride});
  op.groups = {ceil_div(p.n, kWorkgroup), p.ncols, 1};
  op.phase = Phase::MoeAcc;
  op.label = "moe_acc";
  return op;
}

}  // namespace pb
