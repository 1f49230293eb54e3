// A finding: one error or warning with its code, message and the tasks it is about.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/types.h"

namespace cc {

enum class Severity : u8 { Error, Warning };

// The stage tags of checks.md, as printed in `[Stage]`.
enum class StageTag : u8 {
  GenGraph,
  SingleTaskCheck,
  StreamCheck,
  SyncCheck,
  MemConflict,
  SemanticCheck,
  Setting,  // 902 and other run-level findings
  Dump,     // 501
  Runtime,  // 901
};

std::string_view name(StageTag s);
std::optional<StageTag> parse_stage_tag(std::string_view s);

// A task as reports name it: rank/stream/index and its source line.
struct TaskRef {
  u32 rank = 0, stream = 0, index = 0, line = 0;
  std::string file;  // the file `line` is in ("" when line is 0)
  // A node of the AIV expansion (aiv.md §4.1): its launch, block, pipe
  // ("S", "MTE2", "MTE3"; "START", "END", "BARRIER", "SYNCALL" for the
  // boundary and merged nodes), lane position and taskId. Empty pipe: not
  // an AIV node.
  std::string aiv_pipe;
  u64 aiv_launch = 0;
  u32 aiv_block = 0, aiv_pos = 0, aiv_task_id = kNone;
  // A node of a CCU mission's expansion: its position in the mission
  // ("0/0/3:7" names node 7 of the mission placed at 0/0/3); kNone: not one.
  u32 ccu_node = kNone;
};

// The bytes a finding is about, where it names one range (a race's first
// overlap, a wrong piece of the result, overlapping slices of one task):
// machine-readable reports give them as fields besides the text.
struct ByteRange {
  u32 rank = 0;
  std::string buffer;      // the buffer's name ("INPUT", "CCL", ...)
  u64 begin = 0, end = 0;  // [begin, end)
};

struct Finding {
  u16 code = 0;  // 0: a named warning without an HCCL code (tag in `tag`)
  Severity severity = Severity::Error;
  StageTag stage = StageTag::GenGraph;
  std::string tag;                   // overrides the code's name when non-empty
  std::string message;               // the headline
  std::vector<std::string> details;  // further lines, printed indented
  std::vector<u32> tasks;            // task ids in the trace, in order of mention
  std::vector<TaskRef> refs;         // the same tasks, resolved (run_checks fills it)
  // Cascades (one stuck WAIT blocking sixty streams): the finding to fix
  // carries cause_id > 0, unique within one check; each finding it causes
  // carries consequence_of = that id. 0 and 0: an independent finding.
  u32 cause_id = 0;
  u32 consequence_of = 0;
  std::optional<ByteRange> bytes;    // where the finding names one range
};

// Name of an error code (e.g. 302 -> "MEMCONFLICT_DETECTED"); "" if unknown.
std::string_view code_name(u16 code);
// Severity a code has by definition (404, 902: warnings).
Severity code_severity(u16 code);

inline std::string finding_name(const Finding& f) {
  return f.tag.empty() ? std::string(code_name(f.code)) : f.tag;
}

Finding make_finding(u16 code, StageTag stage, std::string message);

}  // namespace cc
