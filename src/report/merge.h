// merge-reports: combine JSON reports (e.g. of the N shards of one run) into
// one, with the inputs in the order one unsharded run gives.
#pragma once

#include <string>
#include <vector>

#include "model/result.h"
#include "model/types.h"

namespace cc {

struct MergedReport {
  std::string json;  // the combined report
  std::size_t inputs = 0, failed = 0, errors = 0;
};

// What merge-reports exits with: 2 if an input was unusable (as the
// unsharded run would), else 1 if an operator failed, else 0.
inline int merged_exit_status(const MergedReport& m) { return m.errors ? 2 : m.failed ? 1 : 0; }

// Fails (exit 2) when a report cannot be read or two reports hold the same
// operator (shards of different runs mixed up).
Result<MergedReport> merge_reports(const std::vector<std::string>& paths);

}  // namespace cc
