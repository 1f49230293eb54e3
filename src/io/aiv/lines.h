// AIV data in the trace format (aiv.md §3, docs/AIV_MODE.md): the
// `{"aiv":{…}}` snapshot lines and the `launch` of AIV_GRAPH task lines,
// read (export/jsonl writes them); and the snapshot files beside an HCCL VM
// database (aiv.md §2.2). Parsers return an Error saying what is wrong (the
// caller adds FILE:LINE and exits 2).
#pragma once

#include <simdjson.h>

#include <string>
#include <vector>

#include "model/finding.h"
#include "model/trace.h"

namespace cc::aiv_io {

// A line whose object has the key "aiv": `value` is its value, `text` the
// line, `single_key` whether "aiv" is the object's only key.
Status parse_aiv_line(simdjson::dom::element value, std::string_view text, bool single_key, Trace& t, u32 line);
// The fields of an AIV_GRAPH task line: its record, task.notify = its index.
Status parse_aiv_task(simdjson::dom::element task_line, Trace& t, Task& task);
// After the last line (tasks not yet finalized, so positions are file
// order): the names AIV_UB and AIV_COMM are reserved in a trace with AIV
// data. Returns "" or what is wrong, with `line` the line to name.
Status finish_aiv_lines(const Trace& t, u32 header_line, u32& line);

// HCCL VM databases: reads the snapshot file of every AIV_GRAPH task of `t`
// (positions are append order, before finalize_trace) from `dir`. A file
// that is absent, unreadable, not JSON, or names another launch is a 107
// at its record (carried by convert); the snapshots read go to t.aiv, and
// the other snapshot files of `dir` to t.aiv's unused list (-v).
void attach_snapshot_files(Trace& t, const std::string& dir, std::vector<Finding>& findings);

}  // namespace cc::aiv_io
