// The `num_cols` axis: which DMMV pipelines serve a given column count.
//   spec       one pipeline per column count (1, 2, 4, ..., 64) through specialization
//              constant NUM_COLS; other counts are cut into powers of two
//   shared:32  one pipeline sized for 32 columns, the count in a push constant
//   shared:64  likewise for 64
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pb {

struct NumColsMode {
  bool shared = false;
  uint32_t max_cols = 64;  // largest column count one dispatch handles

  std::string name() const { return shared ? "shared:" + std::to_string(max_cols) : "spec"; }
  bool operator==(const NumColsMode&) const = default;
};

inline constexpr uint32_t kSpecNumCols[] = {1, 2, 4, 8, 16, 32, 64};

inline std::optional<NumColsMode> parse_num_cols(std::string_view text) {
  if (text == "spec") return NumColsMode{false, 64};
  if (text == "shared:32") return NumColsMode{true, 32};
  if (text == "shared:64") return NumColsMode{true, 64};
  return std::nullopt;
}

inline constexpr std::string_view kNumColsValues = "spec, shared:32, shared:64";

}  // namespace pb
