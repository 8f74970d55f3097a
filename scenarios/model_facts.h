// What a result file records about the model a run used.
#pragma once

#include <cstdint>
#include <string>

namespace pb {

struct ModelFacts {
  std::string name;
  std::string architecture;
  uint32_t layers = 0;
  uint64_t weight_bytes = 0;            // all tensors on the device
  uint64_t weight_bytes_per_token = 0;  // what one decode token reads: every matrix but the
                                        // embedding table, plus one embedding row
};

}  // namespace pb
