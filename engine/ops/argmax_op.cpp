#include "engine/ops/argmax_op.h"

#include "engine/ops/column_span.h"
#include "kernels/registry.h"

namespace pb {

Op argmax_op(const ArgmaxProblem& p, const BindingLimits& limits) {
  const uint32_t end = p.out_pos + p.ncols;
  const TensorView tokens = column_span(p.tokens, 1, end, end, "argmax tokens");
  const AlignedWindow window =
      aligned_window(tokens, uint64_t(p.out_pos) * 4, uint64_t(end) * 4, limits);
  Op op;
  op.kernel = &kernel("argmax");
  op.bindings = {column_span(p.logits, p.ncols, p.logits_stride, p.vocab, "argmax logits").read(),
                 window.view.write(),
                 column_span(p.top2, 1, 4 * p.ncols, 4 * p.ncols, "argmax top2").write()};
  op.push = PushConstants::of(ArgmaxPush{p.vocab, p.logits_stride, window.first_float});
  op.groups = {p.ncols, 1, 1};
  op.label = "argmax";
  return op;
}

}  // namespace pb
