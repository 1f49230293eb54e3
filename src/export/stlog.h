// Writes a trace as an HCCL ST-framework task dump (stlog.md §3-§4), so the
// community ST-log visualizer can show any collcheck trace, and the
// operator parameters as a sidecar the ST-log reader picks up (§6).
//
// The mapping is the inverse of stlog.md §5: a trace read from an ST log is
// written back task for task. Where a trace holds what the ST format cannot
// say, the writer picks the most faithful form and says so in `notes`
// (DESIGN.md, "ST-log output"): batches and reduces the format has no kind
// for become consecutive tasks of the same queue, buffer types outside
// §4.3 are renamed onto unused ST types, notify ids without an ST name get
// CCU-form topics (or local topics) of their own.
#pragma once

#include <string>
#include <vector>

#include "model/result.h"
#include "model/trace.h"

namespace cc {

struct StLogOutput {
  std::string log;      // "[ RUN      ] TEST", the dump, "[       OK ] TEST (0 ms)"
  std::string sidecar;  // one JSON line {"test","dump","op","buffers","rankBuffers"}; "" if the op is unknown
  std::vector<std::string> notes;  // what could not be written exactly
};

// `test` names the gtest case ("" = derived from the trace name or file).
Result<StLogOutput> write_stlog(const Trace& trace, const std::string& test);

// The gtest name a trace is written under: its header name when that is one
// word, else "collcheck.<file stem>".
std::string stlog_test_name(const Trace& trace);

}  // namespace cc
