#include "scenarios/run_config.h"

#include <filesystem>

#include "harness/errors.h"

namespace pb {
namespace {

std::string subgroup_name(uint32_t s) { return s == 0 ? "default" : std::to_string(s); }

[[noreturn]] void bad_value(const std::string& where, const nlohmann::json& value,
                            std::string_view allowed) {
  throw UsageError(where + ": " + value.dump() + " is not allowed; expected " + std::string(allowed));
}

std::string as_string(const nlohmann::json& value, const std::string& where, std::string_view allowed) {
  if (!value.is_string()) bad_value(where, value, allowed);
  return value.get<std::string>();
}

uint32_t as_count(const nlohmann::json& value, const std::string& where, uint32_t min, uint32_t max) {
  if (!value.is_number_integer() || value.get<int64_t>() < min || value.get<int64_t>() > max) {
    bad_value(where, value, "an integer from " + std::to_string(min) + " to " + std::to_string(max));
  }
  return value.get<uint32_t>();
}

bool as_bool(const nlohmann::json& value, const std::string& where) {
  if (!value.is_boolean()) bad_value(where, value, "true or false");
  return value.get<bool>();
}

}  // namespace

std::string RunConfig::model_key() const {
  return (gguf.empty() ? "preset:" + model : "gguf:" + gguf) + "|" + weights.name() + "|" +
         std::to_string(seed);
}

const std::vector<std::string>& axis_keys() {
  static const std::vector<std::string> keys = {
      "model",  "weights",     "prompt_tokens", "decode_tokens",  "seed",
      "submit", "prefill",     "num_cols",      "chunk_cols",     "barriers",
      "double_buffer", "skip_dead_work", "descriptors", "profile", "subgroup", "coopmat",
      "dmmv_activations", "norm_placement", "glu_placement"};
  return keys;
}

nlohmann::json to_json(const RunConfig& c) {
  nlohmann::json j = {{"model", c.model},
                      {"weights", c.weights.name()},
                      {"prompt_tokens", c.prompt_tokens},
                      {"decode_tokens", c.decode_tokens},
                      {"seed", c.seed},
                      {"submit", c.submit.name()},
                      {"prefill", std::string(prefill_strategy_name(c.forward.prefill))},
                      {"num_cols", c.forward.num_cols.name()},
                      {"chunk_cols", c.forward.chunk_cols},
                      {"barriers", std::string(barrier_policy_name(c.barriers))},
                      {"double_buffer", c.double_buffer},
                      {"skip_dead_work", c.forward.skip_dead_work},
                      {"descriptors", std::string(descriptor_mode_name(c.descriptors))},
                      {"profile", std::string(profile_density_name(c.profile))},
                      {"subgroup", subgroup_name(c.subgroup)},
                      {"coopmat", c.forward.allow_coopmat},
                      {"dmmv_activations", std::string(dmmv_activations_name(c.forward.dmmv_activations))},
                      {"norm_placement", std::string(placement_name(c.forward.norm_placement))},
                      {"glu_placement", std::string(placement_name(c.forward.glu_placement))}};
  if (!c.gguf.empty()) {
    // The weights and the model come from the file, not from the preset and weight axes.
    j["gguf"] = c.gguf;
    j["model"] = std::filesystem::path(c.gguf).stem().string();
    j["weights"] = "gguf";
  }
  return j;
}

void apply_axis(RunConfig& c, const std::string& key, const nlohmann::json& v, const std::string& where) {
  if (key == "model") {
    c.model = as_string(v, where, "a model preset name");
  } else if (key == "gguf") {
    c.gguf = as_string(v, where, "a GGUF file path");
  } else if (key == "weights") {
    const auto choice = parse_weight_choice(as_string(v, where, kWeightChoiceValues));
    if (!choice) bad_value(where, v, kWeightChoiceValues);
    c.weights = *choice;
  } else if (key == "prompt_tokens") {
    c.prompt_tokens = as_count(v, where, 1, 1 << 20);
  } else if (key == "decode_tokens") {
    c.decode_tokens = as_count(v, where, 0, 1 << 20);
  } else if (key == "seed") {
    c.seed = as_count(v, where, 0, 0xffffffffu);
  } else if (key == "submit") {
    const auto shape = parse_submit_shape(as_string(v, where, kSubmitShapeValues));
    if (!shape) bad_value(where, v, kSubmitShapeValues);
    c.submit = *shape;
  } else if (key == "prefill") {
    const auto s = parse_prefill_strategy(as_string(v, where, kPrefillStrategyValues));
    if (!s) bad_value(where, v, kPrefillStrategyValues);
    c.forward.prefill = *s;
  } else if (key == "num_cols") {
    const auto m = parse_num_cols(as_string(v, where, kNumColsValues));
    if (!m) bad_value(where, v, kNumColsValues);
    c.forward.num_cols = *m;
  } else if (key == "chunk_cols") {
    c.forward.chunk_cols = as_count(v, where, 1, 4096);
  } else if (key == "barriers") {
    const auto p = parse_barrier_policy(as_string(v, where, "global, buffer, ledger, none"));
    if (!p) bad_value(where, v, "global, buffer, ledger, none");
    c.barriers = *p;
  } else if (key == "double_buffer") {
    c.double_buffer = as_bool(v, where);
  } else if (key == "coopmat") {
    c.forward.allow_coopmat = as_bool(v, where);
  } else if (key == "dmmv_activations") {
    const auto a = parse_dmmv_activations(as_string(v, where, kDmmvActivationsValues));
    if (!a) bad_value(where, v, kDmmvActivationsValues);
    c.forward.dmmv_activations = *a;
  } else if (key == "norm_placement" || key == "glu_placement") {
    const auto n = parse_placement(as_string(v, where, kPlacementValues));
    if (!n) bad_value(where, v, kPlacementValues);
    (key == "norm_placement" ? c.forward.norm_placement : c.forward.glu_placement) = *n;
  } else if (key == "skip_dead_work") {
    c.forward.skip_dead_work = as_bool(v, where);
  } else if (key == "descriptors") {
    const auto m = parse_descriptor_mode(as_string(v, where, "pool-reset, persistent, push"));
    if (!m) bad_value(where, v, "pool-reset, persistent, push");
    c.descriptors = *m;
  } else if (key == "profile") {
    const auto d = parse_profile_density(as_string(v, where, "off, submit, phase, dispatch"));
    if (!d) bad_value(where, v, "off, submit, phase, dispatch");
    c.profile = *d;
  } else if (key == "subgroup") {
    const std::string s = as_string(v, where, "default, 32, 64");
    if (s == "default") c.subgroup = 0;
    else if (s == "8" || s == "16" || s == "32" || s == "64" || s == "128") c.subgroup = std::stoul(s);
    else bad_value(where, v, "default, 32, 64 (or another power of two the device allows)");
  } else {
    std::string known;
    for (const auto& k : axis_keys()) known += (known.empty() ? "" : ", ") + k;
    throw UsageError(where + ": unknown key '" + key + "'; the keys are: " + known);
  }
}

}  // namespace pb
