#include "results/gate/table_format.h"

#include <cmath>
#include <cstdio>

namespace pb::gate {

std::string signed_percent(double fraction) {
  if (!std::isfinite(fraction)) return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, "%+.2f%%", 100.0 * fraction);
  return text;
}

std::string delta_with_interval(double fraction, std::optional<double> low, std::optional<double> high) {
  std::string text = signed_percent(fraction);
  if (low && high) text += " [" + signed_percent(*low) + ", " + signed_percent(*high) + "]";
  return text;
}

std::string significant(double value) {
  if (!std::isfinite(value)) return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

std::string p_value_text(std::optional<double> p) {
  if (!p) return "-";
  if (*p < 1e-4) return "<0.0001";
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", *p);
  return text;
}

}  // namespace pb::gate
