// Reader of the collcheck trace format (JSON Lines, trace-format.md; version
// 2 adds CCU data, docs/CCU_FORMAT.md).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "model/finding.h"
#include "model/result.h"
#include "model/trace.h"

namespace cc {

// The newest trace format version this collcheck reads and writes.
inline constexpr u64 kTraceVersion = 2;

struct ReadTrace {
  Trace trace;
  // Findings the reader itself raises (101 for an unknown task type).
  std::vector<Finding> findings;
  // Lines an importer keeps for the user that are not findings (an ST log's
  // reference-checker error lines, stlog.md §7); `convert` writes them as
  // comments.
  std::vector<std::string> notes;
};

// Reads and finalizes a trace. `display` is the name used in messages.
Result<ReadTrace> read_jsonl_file(const std::string& path);
Result<ReadTrace> read_jsonl_stream(std::FILE* f, const std::string& display);
Result<ReadTrace> read_jsonl_string(const std::string& text, const std::string& display);

}  // namespace cc
