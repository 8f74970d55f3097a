// Joins the result files of one side of an `ab` comparison (one per round) into one result
// file, as if the side had run all its repetitions in one sweep: the samples of runs with equal
// configs are concatenated in round order and every summary is recomputed from them.
#pragma once

#include <string>
#include <vector>

#include "results/result_file.h"

namespace pb::gate {

struct RoundFile {
  std::string label;  // the file's path, for messages and the merged file's `merged_from`
  ResultFile file;
};

// The first round's file with every later round's samples appended: repetitions (warm-up,
// measured, elapsed) add up; the status is the worst of the rounds (failed > incorrect > ok);
// a run whose fingerprint changes from one round to another is marked incorrect, since a
// deterministic engine gives the same output every time; the timeline is the last round's; the
// summary and the derived decode bandwidth are recomputed. A config that only some rounds
// have is kept with the samples it has. The merged document lists its sources in
// `merged_from`. Throws UsageError for no rounds, files of different schema versions, or
// malformed runs.
ResultFile merge_rounds(const std::vector<RoundFile>& rounds);

}  // namespace pb::gate
