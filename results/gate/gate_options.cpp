#include "results/gate/gate_options.h"

#include <cmath>
#include <stdexcept>

#include "harness/errors.h"

namespace pb::gate {

double parse_threshold(const std::string& text, const std::string& flag) {
  const bool percent = !text.empty() && text.back() == '%';
  const std::string number = percent ? text.substr(0, text.size() - 1) : text;
  double value = 0;
  try {
    size_t used = 0;
    value = std::stod(number, &used);
    if (used != number.size() || number.empty()) throw std::invalid_argument("trailing text");
  } catch (const std::exception&) {
    throw UsageError(flag + ": \"" + text + "\" is not a number; write it as 1% or 0.01");
  }
  if (percent) value /= 100.0;
  if (!std::isfinite(value) || value <= 0.0 || value >= 1.0) {
    throw UsageError(flag + ": \"" + text +
                     "\" is out of range; a threshold is > 0 and < 100% "
                     "(1% or 0.01 is the usual one)");
  }
  return value;
}

void check_alpha(double alpha, const std::string& flag) {
  if (!(alpha > 0.0 && alpha < 1.0)) {
    throw UsageError(flag + ": " + std::to_string(alpha) +
                     " is out of range; it is in (0, 1), "
                     "usually 0.05");
  }
}

GateOptions GateFlags::options() const {
  GateOptions o;
  o.metric = metric;
  o.threshold = parse_threshold(threshold);
  check_alpha(alpha);
  o.alpha = alpha;
  o.seed = seed;
  o.ignored_keys.insert(ignored_axes.begin(), ignored_axes.end());
  return o;
}

}  // namespace pb::gate
