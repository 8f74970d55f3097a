#include "engine/ops/rmsnorm_op.h"

#include "engine/ops/column_span.h"
#include "kernels/registry.h"

namespace pb {

Op rmsnorm_op(const RmsNormProblem& p) {
  Op op;
  op.kernel = &kernel("rmsnorm");
  op.spec.set(0, p.add_one ? 1 : 0);
  op.bindings = {column_span(p.x, p.ncols, p.x_stride, p.n, "rmsnorm x").read(),
                 column_span(p.weight, 1, p.n, p.n, "rmsnorm weight").read(),
                 column_span(p.y, p.ncols, p.y_stride, p.n, "rmsnorm y").write()};
  op.push = PushConstants::of(RmsNormPush{p.n, p.x_stride, p.y_stride, p.eps});
  constexpr uint32_t kSlice = 256;  // RMS_SLICE of kernels/include/rmsnorm_body.glsl
  op.groups = {ceil_div(p.n, kSlice), p.ncols, 1};
  op.label = "rmsnorm";
  return op;
}

}  // namespace pb
