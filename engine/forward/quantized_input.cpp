// ForwardContext::quantized_input: one quantize_x per distinct projection input.
#include "engine/forward/forward_context.h"

#include "harness/errors.h"

namespace pb {
namespace {

bool same_view(const TensorView& a, const TensorView& b) {
  return a.buffer == b.buffer && a.offset == b.offset && a.bytes == b.bytes;
}

bool overlaps(const BufferRef& ref, const TensorView& view) {
  return ref.buffer == view.buffer && ref.offset < view.offset + view.bytes && view.offset < ref.offset + ref.size;
}

// True when an op at or after `first` writes any byte of `view`.
bool written_since(const std::vector<Op>& ops, size_t first, const TensorView& view) {
  for (size_t i = first; i < ops.size(); ++i) {
    for (const BufferRef& b : ops[i].bindings) {
      if (writes(b.access) && overlaps(b, view)) return true;
    }
  }
  return false;
}

}  // namespace

const QuantizedX& ForwardContext::quantized_input(Emitter& e, const ProjectionProblem& p) const {
  const std::optional<QuantizedInput>& last = e.last_quantized;
  if (last && same_view(last->x, p.x) && last->cols == p.cols && last->ncols == p.ncols &&
      last->x_stride == p.x_stride && !written_since(e.ops(), last->op_index + 1, p.x)) {
    return last->quantized;
  }
  if (act.quantized_x.size() == 0) {
    throw UsageError("dmmv_activations int8: the activations were sized without the quantized-input buffer");
  }
  const QuantizedX q = quantized_x_in(TensorView::whole(act.quantized_x), p.cols, p.ncols, limits);
  const size_t at = e.ops().size();
  e(quantize_x_ops(p, q, limits), "quantize_x");
  e.last_quantized = QuantizedInput{p.x, p.cols, p.ncols, p.x_stride, at, q};
  return e.last_quantized->quantized;
}

}  // namespace pb
