// Kernels as the int8 decode step runs them, one after another (op_sequence.h), next to their
// own benchmarks: what a dispatch costs after a different kernel rather than after itself.
//   sequence/<a>+<b>            two neighbours of the decode stream, alternating
//   sequence/int8_decode_layer  a dense layer's ten dispatches in the engine's order: the
//       attention norm, q, RoPE with the KV write, attention, o, the FFN norm, gate, up, the
//       GLU, down (q and o as the attn shape, gate and up as ffn_up; each dispatch reads
//       synthetic inputs of its own, not its predecessor's output)
//   sequence/int8_decode_layer_stacked  the same with gate and up as one stacked dispatch, as the
//       engine projects them
//   sequence/int8_decode_layer_rope_in_attention  the same with the RoPE and KV write inside the
//       attention dispatch (attn_decode_rope): the engine's decode layer, eight dispatches
// Registered where every part is (the integer-dot forms need the device and build to have
// integer dot products). Compare a sequence's time with the sum of its parts' medians.
#include <string>
#include <vector>

#include "kernels/bench/benchmarks.h"
#include "kernels/bench/op_sequence.h"

namespace pb::bench {
namespace {

std::string projection_name(const ShapeSet& s, const std::string& role) {
  for (const ProjectionShape& p : s.projections) {
    if (p.role == role) return p.name();
  }
  return role;  // no such shape: the sequence is not registered
}

void add_sequence(GpuBenchmarks& benchmarks, const std::string& name, const std::vector<std::string>& parts) {
  std::vector<CaseBuilder> builders;
  for (const std::string& part : parts) {
    const CaseBuilder* b = benchmarks.builder(part);
    if (b == nullptr) return;
    builders.push_back(*b);
  }
  benchmarks.add("sequence/" + name, [builders](BenchEnv& env) {
    std::vector<BenchCase> cases;
    for (const CaseBuilder& b : builders) cases.push_back(b(env));
    return interleave_cases(std::move(cases));
  });
}

}  // namespace

void register_sequence_benchmarks(GpuBenchmarks& benchmarks) {
  const ShapeSet& s = benchmarks.env().shapes();
  const auto dmmv = [&](const std::string& role) {
    return "dmmv_intdot/q4_k/dmmv/" + projection_name(s, role) + "/num_cols:1";
  };
  const std::string norm = "rmsnorm_quantize/n:" + std::to_string(s.hidden) + "/cols:1";
  const std::string glu = "glu_quantize/n:" + std::to_string(s.ffn) + "/cols:1";
  const std::string rope = "qk_norm_rope_kv/" + s.attention_name() + "/cols:1";
  const std::string attention = "attn_decode/" + s.attention_name() + "/ctx:" + std::to_string(s.sequence_context);
  const std::string floor = "dispatch_floor/fill_zero:64";

  add_sequence(benchmarks, "dmmv_attn+fill_zero", {dmmv("attn"), floor});
  add_sequence(benchmarks, "dmmv_attn+rmsnorm_quantize", {dmmv("attn"), norm});
  add_sequence(benchmarks, "dmmv_attn+dmmv_ffn_up", {dmmv("attn"), dmmv("ffn_up")});
  add_sequence(benchmarks, "rmsnorm_quantize+glu_quantize", {norm, glu});
  add_sequence(benchmarks, "int8_decode_layer",
               {norm, dmmv("attn"), rope, attention, dmmv("attn"), norm, dmmv("ffn_up"), dmmv("ffn_up"), glu,
                dmmv("ffn_down")});
  const std::string stack = "ffn_gate_up:" + std::to_string(2 * s.ffn) + "x" + std::to_string(s.hidden);
  add_sequence(benchmarks, "int8_decode_layer_stacked",
               {norm, dmmv("attn"), rope, attention, dmmv("attn"), norm,
                "dmmv_intdot/q4_k/dmmv/" + stack + "/num_cols:1", glu, dmmv("ffn_down")});
  add_sequence(benchmarks, "int8_decode_layer_rope_in_attention",
               {norm, dmmv("attn"), "attn_decode_rope/" + s.attention_name() + "/ctx:" +
                std::to_string(s.sequence_context), dmmv("attn"), norm,
                "dmmv_intdot/q4_k/dmmv/" + stack + "/num_cols:1", glu, dmmv("ffn_down")});
}

}  // namespace pb::bench
