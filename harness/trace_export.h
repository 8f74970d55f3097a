// Chrome/Perfetto trace-event JSON of one run's timeline: a CPU track with record, submit and
// wait, and GPU tracks with per-submit and per-phase slices, on one clock (calibrated
// timestamps where the device has them). Opens in ui.perfetto.dev and chrome://tracing.
#pragma once

#include <nlohmann/json.hpp>

namespace pb {

// `run` is one entry of a result file's `runs`; `device` its `device` block. Throws
// UsageError when the run has no timeline (it failed before its first repetition).
nlohmann::json chrome_trace(const nlohmann::json& run, const nlohmann::json& device);

}  // namespace pb
