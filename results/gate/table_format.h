// Number formatting shared by the markdown tables of the gate and the cycle history, so that a
// delta reads the same in both.
#pragma once

#include <optional>
#include <string>

namespace pb::gate {

// "+5.35%" for 0.0535; "n/a" for NaN.
std::string signed_percent(double fraction);

// "+5.35% [+3.10%, +7.20%]"; just the estimate when there is no interval.
std::string delta_with_interval(double fraction, std::optional<double> low, std::optional<double> high);

// Four significant digits: "1234", "0.5123", "1.235e+05".
std::string significant(double value);

// "0.031", "<0.0001", "-" when absent.
std::string p_value_text(std::optional<double> p);

}  // namespace pb::gate
