#include "engine/ops/ssm_shape.h"

#include <string>

#include "harness/errors.h"

namespace pb {

void check_ssm_shape(const char* op, const SsmShape& s) {
  const std::string name(op);
  if (s.key_heads == 0 || s.value_heads == 0 || s.value_heads % s.key_heads != 0) {
    throw UsageError(name + ": value_heads (" + std::to_string(s.value_heads) +
                     ") must be a positive multiple of key_heads (" + std::to_string(s.key_heads) + ")");
  }
  if (s.d_k == 0 || s.d_k > kSsmMaxKeyDim) {
    throw UsageError(name + ": d_k " + std::to_string(s.d_k) + " is outside 1.." +
                     std::to_string(kSsmMaxKeyDim));
  }
  if (s.d_v == 0) throw UsageError(name + ": d_v is 0");
  if (s.conv_width < 2 || s.conv_width > kSsmMaxConvWidth) {
    throw UsageError(name + ": conv_width " + std::to_string(s.conv_width) + " is outside 2.." +
                     std::to_string(kSsmMaxConvWidth));
  }
}

}  // namespace pb
