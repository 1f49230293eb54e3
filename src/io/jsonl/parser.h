// The parser of one trace file (JSON Lines), shared by the sequential reader
// (reader.cc: the whole file on one thread) and the parallel one
// (parallel_reader.cc: the header first, then parts of the file on several
// threads, merged in file order). Internal to io/jsonl.
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>
#include <vector>

#include "io/input.h"
#include "io/jsonl/carried.h"
#include "io/jsonl/ccu_lines.h"
#include "io/line_reader.h"
#include "model/result.h"

namespace cc::jsonl {

// What is wrong with a line, before "FILE:LINE: " is put in front.
struct LineError {
  u64 line = 0;
  std::string what;
  bool io = false;  // the input could not be read (not a bad line)
};

// The 101 finding of a task line whose type collcheck does not know; the
// task already holds its line and tag. `version` is the file's format version.
Finding unknown_type_finding(const Trace& t, std::string_view type, const Task& task, u64 version);

class JsonlParser {
 public:
  explicit JsonlParser(const std::string& display) { out_.trace.file = display; }

  // A parser for the task lines of one part of the file after `header`'s
  // header line: a copy of what the header set that task lines read (op,
  // version, buffer names, tags) and results of its own. Its lines are
  // numbered from 1 within the part; its 101 findings wait for their text
  // (unknown_types()); and it stops at the first line that depends on
  // earlier lines beyond the header (stateful()).
  static JsonlParser part_of(const JsonlParser& header);

  // The whole input, on this thread.
  Result<ReadTrace> run(LineReader& lines);

  // Reads blank lines and comments up to and including the header line.
  Status read_header(LineReader& lines);
  // Reads the lines after the header until the input ends or the next line
  // would start at byte `end` or later. The first `skipped` lines of
  // `lines` are not counted (a part's reader skips the end of a line that
  // began in the part before it). False on the first bad line: error().
  bool read_tasks(LineReader& lines, u64 end, u64 skipped);
  // After the last line: CCU and AIV lines completed, the trace finalized,
  // the findings put in order.
  Result<ReadTrace> finish();

  void reserve(std::size_t tasks) {
    out_.trace.tasks.reserve(tasks);
    out_.trace.groups.reserve(tasks / 2);
    out_.trace.slices.reserve(tasks);
  }

  ReadTrace& result() { return out_; }
  u64 version() const { return version_; }
  u32 header_line() const { return header_line_; }
  // Lines read by read_tasks (skipped ones excepted).
  u64 lines_read() const { return lines_read_; }
  const LineError& error() const { return error_; }
  // A part met a line it cannot parse alone: a CCU or AIV data line or a
  // CCU_GRAPH or AIV_GRAPH task (version 2), which add to tables that
  // earlier lines fill. It stopped there.
  bool stateful() const { return stateful_; }
  // A part's unknown task types: (task index in the part, type as written).
  const std::vector<std::pair<u32, std::string>>& unknown_types() const { return unknown_; }

 private:
  Status header(simdjson::dom::element e);
  Status task(simdjson::dom::element e);
  Status slice(simdjson::dom::element e, std::string_view what, u32& index);
  Status group_srcs(simdjson::dom::element e, std::string_view what, Group& g);
  Status data_groups(simdjson::dom::element e, Task& t, bool batch, bool reduce);
  Status notify_names(simdjson::dom::element e);
  Status inexact_notifies(simdjson::dom::element e);
  Status finish_findings(const std::vector<u32>& new_id);
  // Parses one non-blank line: the header when `header` is set.
  Status parse_line(simdjson::dom::parser& parser, std::string_view text, bool header);

  ReadTrace out_;
  std::vector<CarriedFinding> carried_;  // header "importFindings"
  std::vector<CarriedFinding> notes_;    // header "taskNotes"
  u64 line_ = 0;
  u64 version_ = 0;
  u32 header_line_ = 0;
  std::string_view text_;  // the line being parsed
  CcuLineState ccu_;
  LineError error_;
  u64 lines_read_ = 0;
  bool part_ = false;
  bool stateful_ = false;
  std::vector<std::pair<u32, std::string>> unknown_;
};

}  // namespace cc::jsonl
