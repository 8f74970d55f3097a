#include "engine/ops/ssm_conv_op.h"

#include <string>

#include "engine/ops/column_span.h"
#include "engine/ops/ssm_shape.h"
#include "engine/ops/view_overlap.h"
#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {
namespace {

constexpr uint32_t kWorkgroup = 64;  // the kernel's local_size_x

}  // namespace

Op ssm_conv_op(const SsmConvProblem& p) {
  if (p.width < 2 || p.width > kSsmMaxConvWidth) {
    throw UsageError("ssm_conv: width " + std::to_string(p.width) + " is outside 2.." +
                     std::to_string(kSsmMaxConvWidth));
  }
  const TensorView x = column_span(p.x, p.ncols, p.x_stride, p.channels, "ssm_conv x");
  const TensorView y = column_span(p.y, p.ncols, p.y_stride, p.channels, "ssm_conv y");
  if (views_overlap(x, y)) throw UsageError("ssm_conv: y overlaps x (later tokens read earlier inputs)");
  const uint32_t taps = p.channels * p.width;
  const uint32_t carried = p.channels * (p.width - 1);
  Op op;
  op.kernel = &kernel("ssm_conv");
  op.spec.set(0, static_cast<int32_t>(p.width));
  op.bindings = {x.read(), column_span(p.weight, 1, taps, taps, "ssm_conv weight").read(),
                 column_span(p.state, 1, carried, carried, "ssm_conv state").read_write(),
                 y.write()};
  op.push = PushConstants::of(SsmConvPush{p.channels, p.ncols, p.x_stride, p.y_stride});
  op.groups = {ceil_div(p.channels, kWorkgroup), 1, 1};
  op.phase = Phase::SsmConv;
  op.label = "ssm_conv";
  return op;
}

}  // namespace pb
