// Error types that map to phasebench's exit statuses: a UsageError is bad input (exit 2);
// a CheckFailure is a check that ran and failed (exit 1); anything else is a failed run.
#pragma once

#include <stdexcept>
#include <string>

namespace pb {

// Bad input or usage: an unknown flag, a malformed file, a device that does not exist.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A check that ran and failed: a validation-layer error, a result that does not match its
// reference, a regression.
struct CheckFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace pb
