#include "engine/ops/quantizing_producer.h"

#include <string>

#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {
namespace {

// `float_op` (rmsnorm_op's or glu_op's) turned into its quantizing twin `kernel_name`: the
// same bindings, push constants and workgroups, plus the quants and scales of ncols columns of
// n from column 0.
Op quantizing_twin(Op float_op, const char* kernel_name, uint32_t n, uint32_t ncols, const QuantizedX& out) {
  const std::string who = kernel_name;
  const Kernel* k = find_kernel(kernel_name);
  if (k == nullptr) {
    throw UsageError("kernel " + who +
                     " was not compiled in (integer-dot kernels need glslang >= 14 with "
                     "GL_EXT_integer_dot_product; see the configure output)");
  }
  if (n == 0 || n % kQuantizedXBlock != 0) {
    throw UsageError(who + ": n = " + std::to_string(n) + " must be a positive multiple of 32 to quantize");
  }
  if (out.cols != n || out.ncols < ncols) {
    throw UsageError(who + ": the quantized-x storage holds " + std::to_string(out.ncols) + " columns of " +
                     std::to_string(out.cols) + "; needed " + std::to_string(ncols) + " of " + std::to_string(n));
  }
  const uint64_t blocks = uint64_t(n / kQuantizedXBlock) * ncols;
  float_op.kernel = k;
  float_op.bindings.push_back(out.quants.slice(0, uint64_t(n) * ncols).write());
  float_op.bindings.push_back(out.scales.slice(0, blocks * 8).write());
  float_op.label = kernel_name;
  return float_op;
}

}  // namespace

bool quantizing_producers_compiled() {
  return find_kernel("rmsnorm_quantize") != nullptr && find_kernel("glu_quantize") != nullptr &&
         find_kernel("attn_decode_quantize") != nullptr && find_kernel("attn_decode_rope_quantize") != nullptr &&
         find_kernel("attn_merge_quantize") != nullptr;
}

Op rmsnorm_quantize_op(const RmsNormProblem& p, const QuantizedX& out) {
  return quantizing_twin(rmsnorm_op(p), "rmsnorm_quantize", p.n, p.ncols, out);
}

// glu_quantize.comp has glu.comp's workgroups (256 invocations, one element each).
Op glu_quantize_op(const GluProblem& p, const QuantizedX& out) {
  return quantizing_twin(glu_op(p), "glu_quantize", p.n, p.ncols, out);
}

// ssm_gnorm_quantize.comp has ssm_gnorm.comp's workgroups (one per head and token, 128
// invocations); each invocation holds one element of the head, so heads fit the workgroup.
std::string ssm_gnorm_quantize_refusal(const SsmGnormProblem& p) {
  constexpr uint32_t kWorkgroup = 128;
  if (find_kernel("ssm_gnorm_quantize") == nullptr) return "kernel ssm_gnorm_quantize was not compiled in";
  if (p.d_v == 0 || p.d_v % kQuantizedXBlock != 0 || p.d_v > kWorkgroup) {
    return "ssm_gnorm_quantize takes heads of at most " + std::to_string(kWorkgroup) +
           " elements that are whole blocks of 32 (d_v = " + std::to_string(p.d_v) + ")";
  }
  return {};
}

Op ssm_gnorm_quantize_op(const SsmGnormProblem& p, const QuantizedX& out) {
  const std::string refusal = ssm_gnorm_quantize_refusal(p);
  if (!refusal.empty()) throw UsageError(refusal);
  return quantizing_twin(ssm_gnorm_op(p), "ssm_gnorm_quantize", p.heads * p.d_v, p.ncols, out);
}

// The quantizing kernels take a block of 32 outputs from 8 consecutive vec4 items: attn_decode's
// items run along a head (head_dim a multiple of 32 keeps blocks inside one), and an attn_merge
// workgroup writes 8 vec4 columns, exactly one block.
std::vector<Op> attention_decode_quantize_ops(const AttentionDecodeProblem& p, const QuantizedX& out,
                                              const BindingLimits& limits, const AttentionDecodeTuning& tuning,
                                              const TensorView& output_gate) {
  if (p.shape.head_dim % kQuantizedXBlock != 0 || tuning.threads % 8 != 0) {
    throw UsageError("attention decode quantize: head_dim (" + std::to_string(p.shape.head_dim) +
                     ") must be a multiple of 32 and threads (" + std::to_string(tuning.threads) +
                     ") of 8 to quantize by head");
  }
  static_assert(kAttnMergeCols * 4 == kQuantizedXBlock, "an attn_merge workgroup writes one block");
  std::vector<Op> ops = attention_decode_ops(p, limits, tuning);
  Op& last = ops.back();  // attn_merge, attn_decode_rope or attn_decode (after the RoPE's own op)
  const uint32_t n = p.shape.n_heads * p.shape.head_dim;
  const bool gated = output_gate.buffer != nullptr;
  const std::string twin = last.kernel->name + (gated ? "_quantize_gated" : "_quantize");
  last = quantizing_twin(last, twin.c_str(), n, 1, out);
  if (gated) {  // read as vec4s from the binding's start: head 0's first element
    if (output_gate.bytes < uint64_t(n) * 4 || output_gate.offset % limits.offset_alignment != 0) {
      throw UsageError("attention decode quantize: the output gate must hold n_heads x head_dim = " +
                       std::to_string(n) + " floats from an offset on " + std::to_string(limits.offset_alignment));
    }
    last.bindings.push_back(output_gate.slice(0, uint64_t(n) * 4).read());
  }
  return ops;
}

}  // namespace pb
