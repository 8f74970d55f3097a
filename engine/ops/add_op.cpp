#include "engine/ops/add_op.h"

#include "engine/ops/column_span.h"
#include "kernels/registry.h"

namespace pb {
namespace {

constexpr uint32_t kWorkgroup = 256;  // the kernel's local_size_x

}  // namespace

Op add_op(const AddProblem& p) {
  Op op;
  op.kernel = &kernel("add");
  op.spec.set(0, 0);
  op.bindings = {column_span(p.a, p.ncols, p.a_stride, p.n, "add a").read(),
                 column_span(p.b, p.ncols, p.b_stride, p.n, "add b").read(),
                 column_span(p.y, p.ncols, p.y_stride, p.n, "add y").write()};
  op.push = PushConstants::of(AddPush{p.n, p.a_stride, p.b_stride, p.y_stride});
  op.groups = {ceil_div(p.n, kWorkgroup), p.ncols, 1};
  op.label = "add";
  return op;
}

Op add_in_place_op(const AddInPlaceProblem& p) {
  const BufferRef b = column_span(p.b, p.ncols, p.b_stride, p.n, "add b").read();
  Op op;
  op.kernel = &kernel("add");
  op.spec.set(0, 1);
  op.bindings = {b, b, column_span(p.y, p.ncols, p.y_stride, p.n, "add y").read_write()};
  op.push = PushConstants::of(AddPush{p.n, p.b_stride, p.b_stride, p.y_stride});
  op.groups = {ceil_div(p.n, kWorkgroup), p.ncols, 1};
  op.label = "add_in_place";
  return op;
}

}  // namespace pb
