#include "engine/ops/glu_op.h"

#include "engine/ops/column_span.h"
#include "kernels/registry.h"

namespace pb {
namespace {

constexpr uint32_t kWorkgroup = 256;  // the kernel's local_size_x

}  // namespace

Op glu_op(const GluProblem& p) {
  Op op;
  op.kernel = &kernel("glu");
  op.spec.set(0, static_cast<int32_t>(p.activation));
  op.bindings = {column_span(p.gate, p.ncols, p.gate_stride, p.n, "glu gate").read(),
                 column_span(p.up, p.ncols, p.up_stride, p.n, "glu up").read(),
                 column_span(p.out, p.ncols, p.out_stride, p.n, "glu out").write()};
  op.push = PushConstants::of(GluPush{p.n, p.gate_stride, p.up_stride, p.out_stride});
  op.groups = {ceil_div(p.n, kWorkgroup), p.ncols, 1};
  op.label = "glu";
  return op;
}

}  // namespace pb
