// What a run computed, compact enough for a result file: the generated tokens with the margin
// between the top two logits, and a checksum of the final logits. Two runs agree when their
// tokens agree wherever the choice was clear, and their logits agree within tolerance.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace pb {

struct Fingerprint {
  std::vector<uint32_t> tokens;  // the token after the prompt, then one per decode step
  std::vector<float> margins;    // top-1 minus top-2 logit of each
  double logits_sum = 0;         // of the logits that chose the last token
  double logits_l2 = 0;
};

struct FingerprintTolerance {
  float min_margin = 0.02f;       // a choice closer than this may legitimately flip
  double logits_rel = 2e-3;       // relative difference of the logits' L2 norms
};

// Between a run on int8 DMMV inputs (dmmv_activations: int8) and any other run. The int8 path
// approximates the float model, and two runs quantize slightly different floats, so a value
// near a rounding boundary takes the neighbouring code in one of them; on the tiny models that
// moves a top-2 margin by up to 0.19 (tests/scenarios/forward_reference_test.cpp). Wider than
// that, still far below what a wrong input does.
inline constexpr FingerprintTolerance kInt8FingerprintTolerance{0.3f, 2e-2};

// Empty when the two agree; otherwise a sentence saying where they differ.
std::string compare_fingerprints(const Fingerprint& a, const Fingerprint& b,
                                 const FingerprintTolerance& tolerance = {});

nlohmann::json to_json(const Fingerprint& f);
Fingerprint fingerprint_from_json(const nlohmann::json& j);

}  // namespace pb
