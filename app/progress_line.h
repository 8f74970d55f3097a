// A one-line progress display on a terminal (run i of N, its config, repetition, median +- CI
// so far, elapsed), redrawn in place; silent when the output is not a terminal.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "scenarios/measure_run.h"

namespace pb::app {

class ProgressLine {
 public:
  explicit ProgressLine(std::ostream& out);
  void update(size_t run, size_t runs, const nlohmann::json& config, const Progress& progress);
  void finish();  // clears the line

 private:
  std::ostream& out_;
  bool tty_;
  bool drawn_ = false;
};

}  // namespace pb::app
