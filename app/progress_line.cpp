#include "app/progress_line.h"

#include <unistd.h>

#include <cstdio>
#include <string>

namespace pb::app {

ProgressLine::ProgressLine(std::ostream& out) : out_(out), tty_(::isatty(STDERR_FILENO) != 0) {}

void ProgressLine::update(size_t run, size_t runs, const nlohmann::json& c, const Progress& p) {
  if (!tty_) return;
  char text[256];
  std::string stats = "";
  if (p.median) {
    char m[96];
    if (p.rel_ci) {
      std::snprintf(m, sizeof m, " median %.1f +-%.1f%%", *p.median, 100 * *p.rel_ci);
    } else {
      std::snprintf(m, sizeof m, " median %.1f", *p.median);
    }
    stats = m;
  }
  std::snprintf(text, sizeof text, "\r[run %zu/%zu] %s %s %s %s | %s %d%s | %.0f s\033[K", run, runs,
                c.value("model", "").c_str(), c.value("submit", "").c_str(), c.value("prefill", "").c_str(),
                c.value("barriers", "").c_str(), p.warmup ? "warm-up" : "rep", p.repetition, stats.c_str(),
                p.elapsed_s);
  out_ << text << std::flush;
  drawn_ = true;
}

void ProgressLine::finish() {
  if (tty_ && drawn_) out_ << "\r\033[K" << std::flush;
  drawn_ = false;
}

}  // namespace pb::app
