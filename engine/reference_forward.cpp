#include "engine/reference_forward.h"

#include <cmath>

#include "engine/reference/argmax_ref.h"
#include "engine/reference/attention_ref.h"
#include "engine/quant/integer_dot.h"
#include "engine/reference/dmmv_intdot_ref.h"
#include "engine/reference/dmmv_ref.h"
#include "engine/reference/embed_ref.h"
#include "engine/reference/glu_ref.h"
#include "engine/reference/kv_write_ref.h"
#include "engine/reference/moe_ref.h"
#include "engine/reference/qk_norm_rope_ref.h"
#include "engine/reference/rmsnorm_ref.h"
#include "engine/reference/sigmoid_mul_ref.h"
#include "engine/reference/ssm_ref.h"

namespace pb {
namespace {

class ReferenceModel {
 public:
  ReferenceModel(const ModelConfig& c, const HostWeights& w, uint32_t max_ctx, const ReferenceOptions& options)
      : c_(c), w_(w), options_(options), max_ctx_(max_ctx), x_(c.hidden), xn_(c.hidden), tmp_(c.hidden), tmp2_(c.hidden),
        logits_(c.vocab) {
    k_cache_.resize(c.n_layers);
    v_cache_.resize(c.n_layers);
    conv_state_.resize(c.n_layers);
    delta_state_.resize(c.n_layers);
    for (uint32_t l = 0; l < c.n_layers; ++l) {
      if (c.layer_kind(l) == LayerKind::DeltaNet) {
        conv_state_[l].assign(c.ssm.conv_state_floats(), 0.0f);
        delta_state_[l].assign(c.ssm.delta_state_floats(), 0.0f);
      } else {
        k_cache_[l].assign(size_t(c.kv_dim(l)) * max_ctx, 0);
        v_cache_[l].assign(size_t(c.kv_dim(l)) * max_ctx, 0);
      }
    }
  }

  // Runs token `token` at position `pos`; leaves its logits in logits().
  void step(uint32_t token, uint32_t pos) {
    const auto& embd = w_.get(TensorRole::TokenEmbd);
    const uint32_t tokens[1] = {token};
    ref::embed(embd.spec.format, embd.bytes, c_.vocab, c_.hidden, tokens, 0, 1, c_.embed_scale, x_, c_.hidden);
    for (uint32_t l = 0; l < c_.n_layers; ++l) {
      const auto li = static_cast<int32_t>(l);
      if (c_.layer_kind(l) == LayerKind::DeltaNet) {
        deltanet(li);
      } else {
        attention(li, pos);
      }
      ffn(li);
    }
    norm(x_, TensorRole::OutputNorm, -1, xn_);
    project(c_.tied_embeddings ? TensorRole::TokenEmbd : TensorRole::Output, -1, xn_, logits_, false);
  }

  const std::vector<float>& logits() const { return logits_; }

 private:
  void project(TensorRole role, int32_t layer, std::span<const float> x, std::span<float> y, bool accumulate) {
    const auto& t = w_.get(role, layer);
    const auto cols = static_cast<uint32_t>(t.spec.cols);
    if (options_.int8_activations && has_integer_dot_path(t.spec.format, cols)) {
      ref::dmmv_intdot(t.spec.format, t.bytes, static_cast<uint32_t>(t.spec.rows), cols,
                       ref::quantize_x(x, cols, 1, cols), y, static_cast<uint32_t>(t.spec.rows), accumulate);
      return;
    }
    ref::dmmv(t.spec.format, t.bytes, static_cast<uint32_t>(t.spec.rows), static_cast<uint32_t>(t.spec.cols), x, 1,
              static_cast<uint32_t>(t.spec.cols), y, static_cast<uint32_t>(t.spec.rows), accumulate);
  }
  std::vector<float> projected(TensorRole role, int32_t layer, std::span<const float> x) {
    std::vector<float> y(w_.get(role, layer).spec.rows);
    project(role, layer, x, y, false);
    return y;
  }
  void norm(std::span<const float> x, TensorRole role, int32_t layer, std::span<float> y) {
    ref::rmsnorm(x, static_cast<uint32_t>(x.size()), 1, static_cast<uint32_t>(x.size()), w_.get(role, layer).values,
                 c_.norm_add_one, c_.rms_eps, y, static_cast<uint32_t>(y.size()));
  }
  void add(std::span<const float> b) {
    for (size_t i = 0; i < x_.size(); ++i) x_[i] += b[i];
  }
  // x += W in, through the post-norm where the model has one.
  void output(TensorRole projection, TensorRole post_norm, int32_t l, std::span<const float> in) {
    if (!c_.post_norms) {
      project(projection, l, in, x_, true);
      return;
    }
    project(projection, l, in, tmp_, false);
    norm(tmp_, post_norm, l, tmp2_);
    add(tmp2_);
  }

  void attention(int32_t l, uint32_t pos) {
    const LayerAttention a = c_.attention(static_cast<uint32_t>(l));
    const uint32_t q_dim = c_.n_heads * a.head_dim, kv_dim = c_.n_kv_heads * a.head_dim;
    norm(x_, TensorRole::AttnNorm, l, xn_);
    auto q = projected(TensorRole::AttnQ, l, xn_);
    auto k = projected(TensorRole::AttnK, l, xn_);
    auto v = projected(TensorRole::AttnV, l, xn_);
    ref::QkNormRopeParams rope;
    rope.n_q_heads = c_.n_heads;
    rope.n_k_heads = c_.n_kv_heads;
    rope.head_dim = a.head_dim;
    rope.rope_dims = a.rope_dims;
    rope.pos0 = pos;
    rope.q_stride = q_dim;
    rope.k_stride = kv_dim;
    rope.theta = a.rope_theta;
    rope.eps = c_.rms_eps;
    rope.neox = c_.rope_style == RopeStyle::Neox;
    rope.qk_norm = c_.qk_norm;
    rope.add_one = c_.norm_add_one;
    std::span<const float> q_norm, k_norm;
    if (c_.qk_norm) {
      q_norm = w_.get(TensorRole::AttnQNorm, l).values;
      k_norm = w_.get(TensorRole::AttnKNorm, l).values;
    }
    ref::qk_norm_rope(q, k, q_norm, k_norm, rope);
    ref::kv_write(k, v, c_.n_kv_heads, a.head_dim, max_ctx_, pos, 1, kv_dim, kv_dim, k_cache_[l], v_cache_[l]);
    ref::AttentionDims dims;
    dims.n_heads = c_.n_heads;
    dims.n_kv_heads = c_.n_kv_heads;
    dims.head_dim = a.head_dim;
    dims.max_ctx = max_ctx_;
    dims.window = a.window;
    dims.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(a.head_dim)));
    std::vector<float> o(q_dim);
    ref::attention(dims, q, q_dim, k_cache_[l], v_cache_[l], pos, 1, o, q_dim);
    if (c_.attention_output_gate) {
      const auto gate = projected(TensorRole::AttnOutputGate, l, xn_);
      ref::sigmoid_mul(gate, q_dim, false, o, q_dim, q_dim, 1);
    }
    output(TensorRole::AttnOutput, TensorRole::AttnPostNorm, l, o);
  }

  void deltanet(int32_t l) {
    const SsmShape& s = c_.ssm;
    norm(x_, TensorRole::AttnNorm, l, xn_);
    const auto qkv = projected(TensorRole::SsmQkv, l, xn_);
    const auto z = projected(TensorRole::SsmZ, l, xn_);
    const auto b = projected(TensorRole::SsmBeta, l, xn_);
    const auto a = projected(TensorRole::SsmAlpha, l, xn_);
    std::vector<float> conv(s.channels());
    ref::ssm_conv(qkv, s.channels(), 1, s.channels(), w_.get(TensorRole::SsmConv, l).values, s.conv_width,
                  conv_state_[l], conv, s.channels());
    ref::SsmDeltaInputs in;
    in.shape = s;
    in.qkv = conv;
    in.qkv_stride = s.channels();
    in.q_offset = s.q_offset();
    in.k_offset = s.k_offset();
    in.v_offset = s.v_offset();
    in.b = b;
    in.b_stride = s.value_heads;
    in.a = a;
    in.a_stride = s.value_heads;
    in.a_log = w_.get(TensorRole::SsmALog, l).values;
    in.dt_bias = w_.get(TensorRole::SsmDtBias, l).values;
    std::vector<float> o(s.value_dim()), g(s.value_dim());
    ref::ssm_delta(in, delta_state_[l], o, s.value_dim());
    ref::ssm_gnorm(o, s.value_dim(), z, s.value_dim(), w_.get(TensorRole::SsmNorm, l).values, s.value_heads, s.d_v,
                   1, c_.rms_eps, g, s.value_dim());
    project(TensorRole::SsmOut, l, g, x_, true);
  }

  void ffn(int32_t l) {
    norm(x_, TensorRole::FfnNorm, l, xn_);
    if (c_.has_moe()) {
      ref::MoeDenseWeights m;
      m.router = w_.get(TensorRole::MoeRouter, l).values;
      m.gate_exps = w_.get(TensorRole::MoeGateExps, l).values;
      m.up_exps = w_.get(TensorRole::MoeUpExps, l).values;
      m.down_exps = w_.get(TensorRole::MoeDownExps, l).values;
      if (c_.moe.has_shared_expert()) {
        m.shared_gate = w_.get(TensorRole::SharedGate, l).values;
        m.shared_up = w_.get(TensorRole::SharedUp, l).values;
        m.shared_down = w_.get(TensorRole::SharedDown, l).values;
        m.shared_gate_inp = w_.get(TensorRole::SharedGateInp, l).values;
      }
      ref::moe_block(c_.moe, c_.hidden, m, xn_, c_.hidden, x_, c_.hidden, 1);
      return;
    }
    const auto gate = projected(TensorRole::FfnGate, l, xn_);
    const auto up = projected(TensorRole::FfnUp, l, xn_);
    std::vector<float> act(c_.ffn_hidden);
    ref::glu(c_.ffn_activation == GluActivation::GeluTanh, gate, c_.ffn_hidden, up, c_.ffn_hidden, act,
             c_.ffn_hidden, c_.ffn_hidden, 1);
    output(TensorRole::FfnDown, TensorRole::FfnPostNorm, l, act);
  }

  const ModelConfig& c_;
  const HostWeights& w_;
  ReferenceOptions options_;
  uint32_t max_ctx_;
  std::vector<float> x_, xn_, tmp_, tmp2_, logits_;
  std::vector<std::vector<uint16_t>> k_cache_, v_cache_;
  std::vector<std::vector<float>> conv_state_, delta_state_;
};

}  // namespace

ReferenceResult reference_generate(const ModelConfig& config, const HostWeights& weights,
                                   std::span<const uint32_t> prompt, uint32_t decode_tokens,
                                   const ReferenceOptions& options) {
  const auto max_ctx = static_cast<uint32_t>(prompt.size() + decode_tokens + 1);
  ReferenceModel model(config, weights, max_ctx, options);
  ReferenceResult result;
  uint32_t pos = 0;
  for (uint32_t token : prompt) model.step(token, pos++);
  result.prompt_logits = model.logits();
  for (uint32_t s = 0;; ++s) {
    const auto top = ref::argmax(model.logits(), config.vocab, 1, config.vocab).front();
    result.generated.push_back(top.index);
    result.margins.push_back(top.value - top.second_value);
    result.final_logits = model.logits();
    if (s == decode_tokens) break;
    model.step(top.index, pos++);
  }
  return result;
}

}  // namespace pb
