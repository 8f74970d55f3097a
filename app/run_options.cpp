#include "app/run_options.h"

#include "harness/errors.h"

namespace pb::app {
namespace {

struct AxisFlag {
  const char* flag;
  const char* axis;
  bool numeric;
  const char* help;
};

constexpr AxisFlag kAxisFlags[] = {
    {"--model", "model", false, "Model preset (tiny-dense, tiny-llama, llama3-8b, qwen3-8b, ...)"},
    {"--gguf", "gguf", false, "A GGUF model file (llama, qwen3, qwen3moe, qwen35moe, gemma3) instead of a preset"},
    {"--weights", "weights", false, "Weight formats: q4_k_m (default mix), f32, f16, q8_0, q4_k, q6_k"},
    {"--prompt", "prompt_tokens", true, "Prompt tokens"},
    {"--decode", "decode_tokens", true, "Decode tokens"},
    {"--seed", "seed", true, "Seed of the synthetic weights and prompt"},
    {"--submit", "submit", false, "per-dispatch, per-layer, per-layer-nowait, per-token, per-token-ahead, per-prompt, chunk:N"},
    {"--prefill", "prefill", false, "decode-loop, batched, matmul"},
    {"--num-cols", "num_cols", false, "spec, shared:32, shared:64"},
    {"--chunk-cols", "chunk_cols", true, "Prompt tokens per chunk for batched and matmul prefill"},
    {"--barriers", "barriers", false, "global, buffer, ledger, none"},
    {"--descriptors", "descriptors", false, "pool-reset, persistent, push"},
    {"--profile", "profile", false, "off, submit, phase, dispatch"},
    {"--subgroup", "subgroup", false, "default, 32, 64"},
    {"--dmmv-activations", "dmmv_activations", false,
     "float, int8 (DMMV on int8-quantized activations with integer dot products)"},
    {"--norm-placement", "norm_placement", false,
     "dispatch, producer (with int8 activations: decode's norms written by the residual projection before them)"},
    {"--glu-placement", "glu_placement", false,
     "dispatch, producer (with int8 activations: decode's FFN gated unit applied by the gate/up projection)"},
};

}  // namespace

void RunOptions::add_to(CLI::App& command) {
  for (const auto& f : kAxisFlags) {
    command.add_option_function<std::string>(
        f.flag, [this, f](const std::string& v) { axes[f.axis] = v; }, f.help);
  }
  command.add_flag("--double-buffer", double_buffer, "Record command buffer N+1 while the GPU runs N");
  command.add_flag("--skip-dead-work", skip_dead_work,
                   "Skip work whose results are never read for non-terminal prompt tokens");
  command.add_flag("--no-coopmat", no_coopmat,
                   "Matmul prefill and the int8 DMMV of 16+ columns without cooperative matrix even where the device has it");
  command.add_option("--warmup", rule.warmup, "Warm-up repetitions (discarded)");
  command.add_option("--min", rule.min, "Minimum measured repetitions");
  command.add_option("--max", rule.max, "Maximum measured repetitions");
  command.add_option("--max-rel-ci", rule.max_rel_ci,
                     "Stop when the 95% CI of the headline median is within this fraction of it");
  command.add_option("--max-seconds", rule.max_seconds, "Stop after this long (once --min are in)");
  command.add_option("--repetitions", repetitions, "Exactly this many measured repetitions");
}

RunConfig RunOptions::config() const {
  RunConfig c;
  for (const auto& f : kAxisFlags) {
    const auto it = axes.find(f.axis);
    if (it == axes.end()) continue;
    nlohmann::json value = it->second;
    if (f.numeric) {
      try {
        size_t used = 0;
        const long long n = std::stoll(it->second, &used);
        if (used != it->second.size()) throw std::invalid_argument("trailing");
        value = n;
      } catch (const std::exception&) {
        throw UsageError(std::string(f.flag) + ": \"" + it->second + "\" is not an integer");
      }
    }
    apply_axis(c, f.axis, value, f.flag);
  }
  c.double_buffer = double_buffer;
  c.forward.skip_dead_work = skip_dead_work;
  c.forward.allow_coopmat = !no_coopmat;
  return c;
}

stats::StoppingRule RunOptions::stopping_rule() const {
  stats::StoppingRule r = rule;
  if (repetitions > 0) r.min = r.max = repetitions;
  try {
    stats::validate(r);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("repetition flags: ") + e.what());
  }
  return r;
}

}  // namespace pb::app
