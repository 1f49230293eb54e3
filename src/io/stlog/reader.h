// Importer of HCCL ST-framework task dumps (stlog.md): a gtest log with any
// number of test cases, each with any number of dumps; every dump is one
// operator, mapped onto the model as §5 says.
#pragma once

#include <string>
#include <vector>

#include "io/input.h"
#include "model/result.h"

namespace cc {

struct StLogOptions {
  std::string op;         // --op: JSON text or a file; "" = sidecar files
  std::string case_glob;  // --case: only the dumps whose case name matches
};

struct StLogCase {
  // The gtest name, with "#<dump index>" when the test printed several dumps.
  std::string name;
  std::string test;
  u32 dump = 0;
  ReadTrace read;
};

// Reads every dump of the log at `path` (plain, gzip or zstd). Without
// `options.op`, operator parameters come from a sidecar next to the log:
// CASE.op.json for a case, else LOG.op.json (cli.md). Malformed lines are
// errors "FILE:LINE: ...". A log without any dump is an error.
Result<std::vector<StLogCase>> read_stlog_file(const std::string& path, const StLogOptions& options);

// The same for a log held in memory (no sidecars: only options.op).
Result<std::vector<StLogCase>> read_stlog_string(const std::string& text, const std::string& display,
                                                 const StLogOptions& options);

}  // namespace cc
