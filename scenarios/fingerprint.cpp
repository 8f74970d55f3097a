#include "scenarios/fingerprint.h"

#include <algorithm>
#include <cmath>

namespace pb {

std::string compare_fingerprints(const Fingerprint& a, const Fingerprint& b,
                                 const FingerprintTolerance& t) {
  const size_t n = std::min(a.tokens.size(), b.tokens.size());
  for (size_t i = 0; i < n; ++i) {
    if (a.tokens[i] == b.tokens[i]) continue;
    const float margin = std::min(a.margins[i], b.margins[i]);
    if (margin < t.min_margin) return {};  // a near-tie: both choices are right; stop comparing
    return "generated token " + std::to_string(i) + " is " + std::to_string(a.tokens[i]) + " vs " +
           std::to_string(b.tokens[i]) + " with a top-2 margin of " + std::to_string(margin);
  }
  if (a.tokens.size() != b.tokens.size()) {
    return "generated " + std::to_string(a.tokens.size()) + " vs " + std::to_string(b.tokens.size()) +
           " tokens";
  }
  const double scale = std::max(std::fabs(a.logits_l2), std::fabs(b.logits_l2));
  if (std::fabs(a.logits_l2 - b.logits_l2) > t.logits_rel * scale) {
    return "final logits differ: L2 norm " + std::to_string(a.logits_l2) + " vs " +
           std::to_string(b.logits_l2);
  }
  return {};
}

nlohmann::json to_json(const Fingerprint& f) {
  return {{"tokens", f.tokens}, {"margins", f.margins}, {"logits_sum", f.logits_sum},
          {"logits_l2", f.logits_l2}};
}

Fingerprint fingerprint_from_json(const nlohmann::json& j) {
  Fingerprint f;
  f.tokens = j.at("tokens").get<std::vector<uint32_t>>();
  f.margins = j.at("margins").get<std::vector<float>>();
  f.logits_sum = j.at("logits_sum").get<double>();
  f.logits_l2 = j.at("logits_l2").get<double>();
  return f;
}

}  // namespace pb
