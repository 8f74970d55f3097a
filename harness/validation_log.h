// Collects what the Khronos validation layer says. The layer's callback cannot throw, so it
// records here and the run checks the log at its synchronization points.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace pb {

class ValidationLog {
 public:
  void add_error(std::string message);
  void add_warning(std::string message);

  uint64_t error_count() const;
  uint64_t warning_count() const;
  std::vector<std::string> errors() const;  // the first kMaxKept errors

  // Throws CheckFailure with the first error (and the count) if any error was recorded
  // since the last call; `where` says which step the errors belong to.
  void throw_if_errors(const std::string& where);

 private:
  static constexpr size_t kMaxKept = 32;
  mutable std::mutex mutex_;
  uint64_t errors_ = 0;
  uint64_t warnings_ = 0;
  uint64_t errors_reported_ = 0;
  std::vector<std::string> kept_;
};

}  // namespace pb
