#include "kernels/bench/shape_set.h"

#include <cmath>

#include "engine/model/presets.h"

namespace pb::bench {
namespace {

AttentionShape attention(uint32_t heads, uint32_t kv_heads, uint32_t head_dim) {
  return {heads, kv_heads, head_dim, 0, 0, static_cast<float>(1.0 / std::sqrt(double(head_dim)))};
}

// The MoE and DeltaNet parts of two presets (the shapes are the presets' own, not copies).
void moe_and_ssm(ShapeSet& s, const char* moe_model, const char* ssm_model) {
  const ModelConfig moe = preset(moe_model);
  s.moe_model = moe_model;
  s.moe = moe.moe;
  s.moe_hidden = moe.hidden;
  s.moe_tokens = {1, 32, 64, 128};  // 32: the default chunk; 128: the longest piece routed at once for K = 8
  s.ssm_model = ssm_model;
  s.ssm = preset(ssm_model).ssm;
  s.ssm_tokens = {1, 64};
}

}  // namespace

std::string ShapeSet::attention_name() const {
  std::string name = "h";  // appended piecewise: GCC 12 warns (-Wrestrict) on "h" + std::string
  name += std::to_string(attention.n_heads) + "kv" + std::to_string(attention.n_kv_heads) + "d" +
          std::to_string(attention.head_dim);
  return name;
}

ShapeSet model_shapes() {
  ShapeSet s;
  s.name = "model";
  s.description =
      "llama3-8b / qwen3-8b shapes (LM head: qwen3-8b's vocabulary); MoE: qwen3-30b-a3b; DeltaNet: qwen35-35b-a3b";
  s.projections = {
      {"attn", 4096, 4096}, {"ffn_down", 4096, 14336}, {"ffn_up", 14336, 4096}, {"lm_head", 151936, 4096}};
  s.attention = attention(32, 8, 128);
  s.decode_contexts = {64, 512, 4096, 32768};
  s.prefill_tokens = 512;
  s.matmul_tokens = {128, 512};
  s.hidden = 4096;
  s.ffn = 14336;
  s.vocab = 151936;
  s.activation_cols = {1, 512};
  moe_and_ssm(s, "qwen3-30b-a3b", "qwen35-35b-a3b");
  return s;
}

// Same roles and the same context lengths and token counts (they set the kernels' splits and
// tiles); widths cut 16x so one dispatch takes milliseconds on lavapipe.
ShapeSet cpu_shapes() {
  ShapeSet s = model_shapes();
  s.name = "cpu-small";
  s.description =
      "CPU device: projections, heads and widths shrunk (tiny-dense's layer), "
      "contexts and token counts kept; MoE: tiny-moe; DeltaNet: tiny-hybrid";
  s.projections = {{"attn", 256, 256}, {"ffn_down", 256, 512}, {"ffn_up", 512, 256}, {"lm_head", 1024, 256}};
  s.attention = attention(4, 2, 64);
  s.hidden = 256;
  s.ffn = 512;
  s.vocab = 1024;
  moe_and_ssm(s, "tiny-moe", "tiny-hybrid");
  return s;
}

}  // namespace pb::bench
