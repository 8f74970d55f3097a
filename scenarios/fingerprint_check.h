// Every variant of a sweep must compute the same thing. Runs that share a model, weights,
// seed and workload form a group; the fingerprint that agrees with the most others in its
// group is taken as the group's answer, and every run that disagrees with it is marked
// `incorrect` with the reason. Re-run after each run is added, so the file is always
// consistent with what it holds.
#pragma once

#include <nlohmann/json.hpp>

namespace pb {

// Updates "status" and "incorrect_reason" of the runs in place (failed runs are left alone;
// runs without barriers are checked too, but their disagreement is what "unsafe" predicts).
void check_fingerprints(nlohmann::json& runs);

}  // namespace pb
