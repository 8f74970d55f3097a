#include "harness/validation_log.h"

#include "harness/errors.h"

namespace pb {

void ValidationLog::add_error(std::string message) {
  std::lock_guard lock(mutex_);
  ++errors_;
  if (kept_.size() < kMaxKept) kept_.push_back(std::move(message));
}

void ValidationLog::add_warning(std::string) {
  std::lock_guard lock(mutex_);
  ++warnings_;
}

uint64_t ValidationLog::error_count() const {
  std::lock_guard lock(mutex_);
  return errors_;
}

uint64_t ValidationLog::warning_count() const {
  std::lock_guard lock(mutex_);
  return warnings_;
}

std::vector<std::string> ValidationLog::errors() const {
  std::lock_guard lock(mutex_);
  return kept_;
}

void ValidationLog::throw_if_errors(const std::string& where) {
  std::lock_guard lock(mutex_);
  if (errors_ == errors_reported_) return;
  const uint64_t fresh = errors_ - errors_reported_;
  const size_t first = static_cast<size_t>(errors_reported_);
  errors_reported_ = errors_;
  std::string text = "validation layer reported " + std::to_string(fresh) + " error(s) during " +
                     where;
  if (first < kept_.size()) text += ": " + kept_[first];
  throw CheckFailure(text);
}

}  // namespace pb
