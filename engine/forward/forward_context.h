// What the forward pass's block emitters share: the model, its buffers, the device limits,
// the options, and an emitter that tags every op with its phase, layer and token.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/forward/activations.h"
#include "engine/forward/forward_options.h"
#include "engine/model/model_weights.h"
#include "engine/ops/attention_decode_op.h"
#include "engine/ops/binding_limits.h"
#include "engine/ops/embed_op.h"
#include "engine/ops/add_op.h"
#include "engine/ops/glu_op.h"
#include "engine/ops/matmul_split.h"
#include "engine/ops/moe_acc_op.h"
#include "engine/ops/moe_dmmv_op.h"
#include "engine/ops/projection.h"
#include "engine/ops/quantize_x_op.h"
#include "engine/ops/rmsnorm_op.h"
#include "engine/ops/sigmoid_mul_op.h"
#include "engine/ops/ssm_delta_op.h"
#include "engine/ops/ssm_gnorm_op.h"
#include "harness/device_info.h"
#include "harness/op.h"

namespace pb {

// Columns [first, first + count) of a chunk.
struct Columns {
  uint32_t first = 0;
  uint32_t count = 0;
};

struct Chunk {
  uint32_t pos0 = 0;      // position of column 0
  uint32_t ncols = 1;     // tokens in the chunk
  bool terminal = false;  // holds the last prompt token (or is a decode step)
  bool prefill = true;
  Columns all() const { return {0, ncols}; }
};

// A projection input this op list has quantized to int8 (dmmv_activations: int8), so that
// projections sharing it (q/k/v, gate/up) quantize it once.
struct QuantizedInput {
  TensorView x;          // the float input columns
  uint32_t cols = 0;     // floats per column
  uint32_t ncols = 0;    // columns
  uint32_t x_stride = 0;
  size_t op_index = 0;   // where its quantize_x op is in the list
  QuantizedX quantized;  // where the int8 form lives
};

// A decode projection (one column, one dispatch) on int8 inputs, remembered so that the op
// after it can move into it: the RMSNorm after a residual projection (norm_placement: producer),
// the gated unit after the stacked gate and up (glu_placement: producer).
struct ProjectionRecord {
  ProjectionProblem problem;
  QuantizedX input;     // its x, quantized
  size_t op_index = 0;  // its op in the list
};

// A decode step's token embedding (one column), remembered so that the first layer's attention
// norm can move into it (norm_placement: producer), as later norms move into the residual
// projection before them.
struct EmbedRecord {
  EmbedProblem problem;
  size_t op_index = 0;  // its op in the list
};

// A decode step's MoE accumulation into the residual (one token), remembered so that the norm
// after it (the next layer's attention norm, or the final norm) can move into it
// (norm_placement: producer).
struct MoeAccRecord {
  MoeAccProblem problem;
  MoeRouting routing;
  size_t op_index = 0;  // its op in the list
  // The experts' down projection on int8 inputs right before it, where there is one, so that
  // both can move into one op with the norm (moe_down_acc_norm_op).
  struct Down {
    MoeDmmvProblem problem;
    QuantizedX input;  // its x, quantized
    size_t op_index = 0;
  };
  std::optional<Down> down;
};

// A matmul prefill projection that ran as one split op and its reduction, remembered so that
// the op after it can move into that reduction: the gated unit after a stacked gate and up,
// the sigmoid gate and residual add after a shared expert's down.
struct SplitRecord {
  ProjectionProblem problem;
  SplitSlots slots;
  size_t op_index = 0;  // its reduction in the list
};

// Tags every op with the phase, layer and token it belongs to, and remembers what the list it
// fills has quantized.
class Emitter {
 public:
  explicit Emitter(std::vector<Op>& out) : out_(out) {}
  void at(Phase phase, int32_t layer, int32_t token) {
    phase_ = phase;
    layer_ = layer;
    token_ = token;
  }
  void phase(Phase phase) { phase_ = phase; }
  void operator()(Op op, const char* label);
  void operator()(std::vector<Op> ops, const char* label);
  const std::vector<Op>& ops() const { return out_; }
  // Puts `op` where op `index` is, with that op's phase, layer, token and label.
  void replace(size_t index, Op op);
  // Puts `op`, labelled `label`, where op `index` is (with its phase, layer and token), in place
  // of that op and the list's last, which `op` also does.
  void merge_last_into(size_t index, Op op, const char* label);

  std::optional<QuantizedInput> last_quantized;  // the latest quantize_x of this list
  std::optional<ProjectionRecord> last_projection;  // the latest one-dispatch int8 decode projection
  std::optional<EmbedRecord> last_embed;  // the latest one-column decode embedding
  std::optional<MoeAccRecord> last_moe_acc;  // the latest one-token decode MoE accumulation
  std::optional<SplitRecord> last_split;     // the latest split matmul projection
  // Floats that a producer left unwritten, their int8 form standing for them (a deferred norm's
  // y, a gated unit's output applied by its projection), with that producer's op: until an op
  // writes them, quantizing them again would read stale values (quantized_input throws).
  struct Unwritten {
    TensorView floats;
    size_t op_index = 0;
  };
  std::vector<Unwritten> unwritten;  // one entry per view: the latest producer of it
  void mark_unwritten(const TensorView& floats, size_t op_index);

 private:
  std::vector<Op>& out_;
  Phase phase_ = Phase::Embed;
  int32_t layer_ = 0;
  int32_t token_ = 0;
};

// One projection of a group that reads the same input (q, k, v; gate, up), in stack order.
struct StackMember {
  TensorRole role;
  const char* label;        // of its own projection
  const char* stack_label;  // of the members up to this one run as one stack; null for the first
};

struct ForwardContext {
  const ModelWeights& weights;
  const Activations& act;
  const DeviceInfo& device;
  const ForwardOptions& options;
  BindingLimits limits;

  const ModelConfig& config() const { return weights.config(); }
  const DeviceTensor& tensor(TensorRole role, int32_t layer = -1) const { return weights.get(role, layer); }

  // Columns of an activation buffer, `width` floats of each.
  static TensorView columns(const Columns2D& b, Columns cols);
  static TensorView columns(const Columns2D& b, uint32_t width, Columns cols);

  // y (+)= W x over `cols`: the batched DMMV (on int8 inputs where options.dmmv_activations and
  // the weight format allow), or the tiled matmul in matmul prefill.
  void project(Emitter& e, const char* label, const DeviceTensor& w, const Columns2D& x,
               const Columns2D& y, Columns cols, bool accumulate, const Chunk& chunk) const;
  // The projections `members` of `layer` from x into `parts` (one each, same order): the
  // longest start of them that is stored as one stack and whose parts are contiguous runs as
  // one projection, the rest one by one.
  void project_stack(Emitter& e, std::span<const StackMember> members, int32_t layer, const Columns2D& x,
                     const std::vector<Columns2D>& parts, Columns cols, const Chunk& chunk) const;
  // True when `w` over `cols` of `chunk` takes int8 inputs: project() runs the DMMV on them, or,
  // for experts (cols: gate and up a chunk's tokens, down its assignments), the expert DMMV does;
  // in a matmul chunk only experts that serve few assignments (chunk_experts_int8.h).
  bool projects_int8(const DeviceTensor& w, const Chunk& chunk, Columns cols) const;
  // The int8 form of p's input: quantize_x is emitted unless the list's latest quantization is
  // of exactly this input and no op since has written it.
  const QuantizedX& quantized_input(Emitter& e, const ProjectionProblem& p) const;
  // With norm_placement producer: moves `norm` into the op that is the list's last and makes x
  // (norm.ncols = 1), a residual projection, a MoE accumulation or, for the first layer's norm,
  // the decode embedding, and remembers the norm's deferred int8 form; a (1 + w) norm too, the
  // producer specialized for it (NormEpilogue::add_one). False (nothing emitted) where that does
  // not hold.
  bool defer_norm(Emitter& e, const RmsNormProblem& norm, const Chunk& chunk) const;
  // With glu_placement producer: moves `glu` into the stacked gate and up projection that is the
  // list's last op and makes both its inputs (glu.ncols = 1), and remembers its int8 output.
  // False (nothing emitted) where that does not hold.
  bool glu_in_projection(Emitter& e, const GluProblem& glu, const Chunk& chunk) const;
  // Where the list's last op is the reduction of a split stacked gate and up projection that
  // wrote exactly glu's gate and up (2 glu.n rows): that reduction applies the unit instead
  // (matmul_split_reduce_glu_op), and gate and up are never written. False (nothing emitted)
  // elsewhere.
  bool glu_in_split_reduce(Emitter& e, const GluProblem& glu) const;
  // Where the list's last op is the plain reduction of a split projection into `gate.y` (a
  // shared expert's down): that reduction applies the per-token sigmoid gate (gate.broadcast)
  // and adds into add.y instead (matmul_split_reduce_gated_op), and gate.y is never written.
  // `add` adds gate.y into its y. False (nothing emitted) elsewhere.
  bool gated_add_in_split_reduce(Emitter& e, const SigmoidMulProblem& gate, const AddInPlaceProblem& add) const;
  // RMSNorm of `cols` of x into y with `weight`, (1 + w) where the model says so.
  RmsNormProblem rmsnorm_problem(const Columns2D& x, const DeviceTensor& weight, const Columns2D& y,
                                 Columns cols) const;
  // The norm in front of projections whose first is `consumer` (q, gate, the router, the LM
  // head): where that projection takes int8 inputs, one rmsnorm_quantize dispatch writes y and
  // its int8 form, which the projections then reuse, instead of rmsnorm + quantize_x. Where
  // `only_int8_readers` (every reader of y is an int8 projection, so y itself need not exist),
  // the residual projection before it may write its int8 form instead (defer_norm).
  void norm_for_projection(Emitter& e, const char* label, const Columns2D& x, const DeviceTensor& weight,
                           const Columns2D& y, Columns cols, const Chunk& chunk, const DeviceTensor& consumer,
                           bool only_int8_readers = false) const;
  // The gated unit in front of the projection `consumer` (the FFN's or shared expert's down):
  // glu_quantize where it takes int8 inputs, else glu. `glu` covers columns `cols` of the chunk.
  void glu_for_projection(Emitter& e, const char* label, const GluProblem& glu, Columns cols, const Chunk& chunk,
                          const DeviceTensor& consumer) const;
  // The Gated DeltaNet's output norm in front of its output projection `consumer`:
  // ssm_gnorm_quantize where that takes int8 inputs (and the heads fit the kernel), else
  // ssm_gnorm. `gnorm` covers columns `cols` of the chunk.
  void ssm_gnorm_for_projection(Emitter& e, const char* label, const SsmGnormProblem& gnorm, Columns cols,
                                const Chunk& chunk, const DeviceTensor& consumer) const;
  // A decode step's recurrence with its conv inside (`delta`, `conv`) and the output norm after
  // it (`gnorm`) as one dispatch that writes the output projection `consumer`'s int8 input
  // (ssm_conv_delta_gnorm_op), where that projection takes int8 inputs and the kernel takes the
  // shape; it remembers that input (the gated floats are never written). False, emitting
  // nothing, where it does not apply.
  bool ssm_delta_gnorm_for_projection(Emitter& e, const SsmDeltaProblem& delta, const SsmConvInput& conv,
                                      const SsmGnormProblem& gnorm, Columns cols, const Chunk& chunk,
                                      const DeviceTensor& consumer) const;
  // Decode attention in front of the projection `consumer` (the o-projection): its last
  // dispatch also quantizes the output where that projection takes int8 inputs of the same
  // width. `o_stride` is the output's column stride, as the projection will look it up. With
  // `output_gate` (Qwen3.5's gated attention), that dispatch divides the output by 1 +
  // exp(-gate) first; true where it did (the caller's sigmoid_mul is then done), false where the
  // attention ran plain.
  bool decode_attention_for_projection(Emitter& e, const AttentionDecodeProblem& attention, uint32_t o_stride,
                                       Columns cols, const Chunk& chunk, const DeviceTensor& consumer,
                                       const TensorView& output_gate = {}) const;
  // Adds a sub-block's output (in act.tmp) to the residual through its post-norm (Gemma).
  void post_norm_add(Emitter& e, TensorRole norm, int32_t layer, Columns cols) const;
};

// The blocks of one layer. `rest` is the columns that run past the mixer's state updates (the
// KV write, the SSM recurrence): all of the chunk, only the last token, or none (dead work).
void emit_attention_block(Emitter& e, const ForwardContext& f, uint32_t layer, const Chunk& chunk, Columns rest);
void emit_deltanet_block(Emitter& e, const ForwardContext& f, uint32_t layer, const Chunk& chunk, Columns rest);
void emit_ffn_block(Emitter& e, const ForwardContext& f, uint32_t layer, const Chunk& chunk, Columns rest);

}  // namespace pb
