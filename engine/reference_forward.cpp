#include "engine/reference_forward.h"

#include <cmath>

#include "engine/reference/argmax_ref.h"
#include "engine/reference/attention_ref.h"
#include "engine/reference/dmmv_ref.h"
#include "engine/reference/embed_ref.h"
#include "engine/reference/glu_ref.h"
#include "engine/reference/kv_write_ref.h"
#include "engine/reference/qk_norm_rope_ref.h"
#include "engine/reference/rmsnorm_ref.h"

namespace pb {
namespace {

class ReferenceModel {
 public:
  ReferenceModel(const ModelConfig& c, const HostWeights& w, uint32_t max_ctx)
      : c_(c), w_(w), max_ctx_(max_ctx), x_(c.hidden), xn_(c.hidden), q_(c.q_dim()), k_(c.kv_dim()),
        v_(c.kv_dim()), attn_(c.q_dim()), gate_(c.ffn_hidden), up_(c.ffn_hidden), act_(c.ffn_hidden),
        logits_(c.vocab) {
    const size_t cache = size_t(c.n_kv_heads) * max_ctx * c.head_dim;
    k_cache_.assign(c.n_layers, std::vector<uint16_t>(cache));
    v_cache_.assign(c.n_layers, std::vector<uint16_t>(cache));
  }

  // Runs token `token` at position `pos`; leaves its logits in logits().
  void step(uint32_t token, uint32_t pos) {
    const auto& embd = w_.get(TensorRole::TokenEmbd);
    const uint32_t tokens[1] = {token};
    ref::embed(embd.spec.format, embd.bytes, c_.vocab, c_.hidden, tokens, 0, 1, 1.0f, x_, c_.hidden);
    for (uint32_t l = 0; l < c_.n_layers; ++l) layer(static_cast<int32_t>(l), pos);
    ref::rmsnorm(x_, c_.hidden, 1, c_.hidden, w_.get(TensorRole::OutputNorm).values, false, c_.rms_eps,
                 xn_, c_.hidden);
    project(c_.tied_embeddings ? TensorRole::TokenEmbd : TensorRole::Output, -1, xn_, logits_, false);
  }

  const std::vector<float>& logits() const { return logits_; }

 private:
  void project(TensorRole role, int32_t layer, std::span<const float> x, std::span<float> y,
               bool accumulate) {
    const auto& t = w_.get(role, layer);
    ref::dmmv(t.spec.format, t.bytes, static_cast<uint32_t>(t.spec.rows),
              static_cast<uint32_t>(t.spec.cols), x, 1, static_cast<uint32_t>(t.spec.cols), y,
              static_cast<uint32_t>(t.spec.rows), accumulate);
  }

  void layer(int32_t l, uint32_t pos) {
    ref::rmsnorm(x_, c_.hidden, 1, c_.hidden, w_.get(TensorRole::AttnNorm, l).values, false,
                 c_.rms_eps, xn_, c_.hidden);
    project(TensorRole::AttnQ, l, xn_, q_, false);
    project(TensorRole::AttnK, l, xn_, k_, false);
    project(TensorRole::AttnV, l, xn_, v_, false);
    ref::QkNormRopeParams rope;
    rope.n_q_heads = c_.n_heads;
    rope.n_k_heads = c_.n_kv_heads;
    rope.head_dim = c_.head_dim;
    rope.rope_dims = c_.rope_dims;
    rope.pos0 = pos;
    rope.q_stride = c_.q_dim();
    rope.k_stride = c_.kv_dim();
    rope.theta = c_.rope_theta;
    rope.eps = c_.rms_eps;
    rope.neox = c_.rope_style == RopeStyle::Neox;
    rope.qk_norm = c_.qk_norm;
    std::span<const float> q_norm, k_norm;
    if (c_.qk_norm) {
      q_norm = w_.get(TensorRole::AttnQNorm, l).values;
      k_norm = w_.get(TensorRole::AttnKNorm, l).values;
    }
    ref::qk_norm_rope(q_, k_, q_norm, k_norm, rope);
    ref::kv_write(k_, v_, c_.n_kv_heads, c_.head_dim, max_ctx_, pos, 1, c_.kv_dim(), c_.kv_dim(),
                  k_cache_[l], v_cache_[l]);
    ref::AttentionDims dims;
    dims.n_heads = c_.n_heads;
    dims.n_kv_heads = c_.n_kv_heads;
    dims.head_dim = c_.head_dim;
    dims.max_ctx = max_ctx_;
    dims.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(c_.head_dim)));
    ref::attention(dims, q_, c_.q_dim(), k_cache_[l], v_cache_[l], pos, 1, attn_, c_.q_dim());
    project(TensorRole::AttnOutput, l, attn_, x_, true);
    ref::rmsnorm(x_, c_.hidden, 1, c_.hidden, w_.get(TensorRole::FfnNorm, l).values, false,
                 c_.rms_eps, xn_, c_.hidden);
    project(TensorRole::FfnGate, l, xn_, gate_, false);
    project(TensorRole::FfnUp, l, xn_, up_, false);
    ref::glu(false, gate_, c_.ffn_hidden, up_, c_.ffn_hidden, act_, c_.ffn_hidden, c_.ffn_hidden, 1);
    project(TensorRole::FfnDown, l, act_, x_, true);
  }

  const ModelConfig& c_;
  const HostWeights& w_;
  uint32_t max_ctx_;
  std::vector<float> x_, xn_, q_, k_, v_, attn_, gate_, up_, act_, logits_;
  std::vector<std::vector<uint16_t>> k_cache_, v_cache_;
};

}  // namespace

ReferenceResult reference_generate(const ModelConfig& config, const HostWeights& weights,
                                   std::span<const uint32_t> prompt, uint32_t decode_tokens) {
  const auto max_ctx = static_cast<uint32_t>(prompt.size() + decode_tokens + 1);
  ReferenceModel model(config, weights, max_ctx);
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
