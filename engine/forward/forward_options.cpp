#include "engine/forward/forward_options.h"

namespace pb {

std::string_view prefill_strategy_name(PrefillStrategy s) {
  switch (s) {
    case PrefillStrategy::DecodeLoop: return "decode-loop";
    case PrefillStrategy::Batched: return "batched";
    case PrefillStrategy::Matmul: return "matmul";
  }
  return "?";
}

std::optional<PrefillStrategy> parse_prefill_strategy(std::string_view name) {
  for (auto s : {PrefillStrategy::DecodeLoop, PrefillStrategy::Batched, PrefillStrategy::Matmul}) {
    if (prefill_strategy_name(s) == name) return s;
  }
  return std::nullopt;
}

std::string_view dmmv_activations_name(DmmvActivations a) {
  return a == DmmvActivations::Int8 ? "int8" : "float";
}

std::optional<DmmvActivations> parse_dmmv_activations(std::string_view name) {
  for (auto a : {DmmvActivations::Float, DmmvActivations::Int8}) {
    if (dmmv_activations_name(a) == name) return a;
  }
  return std::nullopt;
}

std::string_view placement_name(Placement p) { return p == Placement::Producer ? "producer" : "dispatch"; }

std::optional<Placement> parse_placement(std::string_view name) {
  for (auto p : {Placement::Dispatch, Placement::Producer}) {
    if (placement_name(p) == name) return p;
  }
  return std::nullopt;
}

}  // namespace pb
