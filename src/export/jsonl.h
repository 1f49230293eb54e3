// Writes a trace in the collcheck trace format (trace-format.md): version 1,
// or version 2 when it carries CCU data (docs/CCU_FORMAT.md). Nodes made by
// the CCU expansion are not written: the trace keeps its input form.
#pragma once

#include <cstdio>
#include <string>

#include "model/result.h"
#include "model/finding.h"
#include "model/trace.h"

namespace cc {

// The header line (with its newline). `carried`: findings an importer raised
// that the trace must carry ("importFindings", io/carried_findings.h).
std::string jsonl_header(const Trace& trace, const std::vector<Finding>& carried = {});
// The "op" object of a header.
std::string jsonl_op(const Op& op);
// `,"buffers":{...},"rankBuffers":{...}` of the declared sizes, each buffer
// written as names[BufId] (skipped when "").
void append_buffer_sizes(std::string& out, const Trace& trace, const std::vector<std::string>& names);
// The CCU data lines (images, channels, addresses, die bases), "" if none.
std::string jsonl_ccu_lines(const Trace& trace);
// The AIV snapshot lines of a trace, in (rank, launch) order ("" if none).
std::string jsonl_aiv_lines(const Trace& trace);
// One task line (with its newline).
std::string jsonl_task(const Trace& trace, u32 task);
// Appends the task line to `out` (the fast path for large traces).
void append_jsonl_task(const Trace& trace, u32 task, std::string& out);

// Writes the whole trace, streams one after another. Returns "" or an error.
Status write_jsonl(const Trace& trace, std::FILE* f, const std::vector<Finding>& carried = {});
Status write_jsonl_file(const Trace& trace, const std::string& path,
                             const std::vector<Finding>& carried = {});
std::string to_jsonl(const Trace& trace, const std::vector<Finding>& carried = {});

}  // namespace cc
