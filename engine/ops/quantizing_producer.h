// Producers that quantize what they write for the integer-dot DMMV (dmmv_activations: int8):
// RMSNorm (kernels/intdot/rmsnorm_quantize.comp), the gated linear unit
// (kernels/intdot/glu_quantize.comp), the Gated DeltaNet's output norm
// (kernels/intdot/ssm_gnorm_quantize.comp) and decode attention (intdot/attn_decode_quantize.comp,
// intdot/attn_merge_quantize.comp). Each writes its float output as rmsnorm_op / glu_op /
// attention_decode_ops do, bit for bit, and the int8 form of it as quantize_x_ops would, bit
// for bit, in the same dispatch instead of one more. A decode step of an 8B model runs 4 of
// them per layer.
#pragma once

#include <string>

#include "engine/ops/attention_decode_op.h"
#include "engine/ops/binding_limits.h"
#include "engine/ops/glu_op.h"
#include "engine/ops/quantize_x_op.h"
#include "engine/ops/rmsnorm_op.h"
#include "engine/ops/ssm_gnorm_op.h"
#include "harness/op.h"

namespace pb {

// True when both kernels were compiled in (they need glslang with GL_EXT_integer_dot_product,
// like the rest of the int8 path).
bool quantizing_producers_compiled();

// rmsnorm_op(problem) that also writes columns 0 .. ncols - 1 of y, quantized, into `out`.
// Throws UsageError when the kernel is absent, n is not a multiple of 32, or `out` holds other
// cols or fewer columns.
Op rmsnorm_quantize_op(const RmsNormProblem& problem, const QuantizedX& out);

// glu_op(problem) that also writes the output columns, quantized, into `out`. Throws as
// rmsnorm_quantize_op does.
Op glu_quantize_op(const GluProblem& problem, const QuantizedX& out);

// Why the Gated DeltaNet's output norm cannot quantize its output here, or empty where it
// can: the kernel compiled in, and heads of at most 128 elements (its workgroup, one element an
// invocation) that are whole blocks of 32.
std::string ssm_gnorm_quantize_refusal(const SsmGnormProblem& problem);

// ssm_gnorm_op(problem) that also writes its output columns (heads x d_v floats each),
// quantized, into `out` (kernels/intdot/ssm_gnorm_quantize.comp). Throws UsageError with the
// refusal, or where `out` holds other cols or fewer columns.
Op ssm_gnorm_quantize_op(const SsmGnormProblem& problem, const QuantizedX& out);

// attention_decode_ops(problem, limits, tuning) whose last op (attn_decode or attn_decode_rope
// with one split, else attn_merge) also writes the output, n_heads * head_dim floats as one
// column, quantized into `out`. Throws as rmsnorm_quantize_op does, and for a head_dim that is
// not a multiple of 32.
// With `output_gate` (n_heads * head_dim floats, on the device's offset alignment), the output
// is first divided by 1 + exp(-gate) elementwise, as sigmoid_mul_op would after it (Qwen3.5's
// gated attention; the _quantize_gated twins).
std::vector<Op> attention_decode_quantize_ops(const AttentionDecodeProblem& problem, const QuantizedX& out,
                                              const BindingLimits& limits, const AttentionDecodeTuning& tuning = {},
                                              const TensorView& output_gate = {});

}  // namespace pb
