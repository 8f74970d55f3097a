#include "engine/ops/ssm_gnorm_op.h"

#include "engine/ops/column_span.h"
#include "engine/ops/view_overlap.h"
#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {

Op ssm_gnorm_op(const SsmGnormProblem& p) {
  if (p.heads == 0) throw UsageError("ssm_gnorm: zero heads");
  const uint32_t width = p.heads * p.d_v;
  const TensorView o = column_span(p.o, p.ncols, p.o_stride, width, "ssm_gnorm o");
  const TensorView z = column_span(p.z, p.ncols, p.z_stride, width, "ssm_gnorm z");
  const TensorView y = column_span(p.y, p.ncols, p.y_stride, width, "ssm_gnorm y");
  if (views_overlap(y, o) || views_overlap(y, z)) {
    throw UsageError("ssm_gnorm: y overlaps o or z");
  }
  Op op;
  op.kernel = &kernel("ssm_gnorm");
  op.bindings = {o.read(), z.read(), column_span(p.weight, 1, p.d_v, p.d_v, "ssm_gnorm weight").read(),
                 y.write()};
  op.push = PushConstants::of(SsmGnormPush{p.d_v, p.o_stride, p.z_stride, p.y_stride, p.eps});
  op.groups = {p.heads, p.ncols, 1};
  op.phase = Phase::SsmGnorm;
  op.label = "ssm_gnorm";
  return op;
}

}  // namespace pb
