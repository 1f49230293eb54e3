// Findings an importer raised that a converted trace carries in its header
// ("importFindings"): checking the converted trace reports them again, so
// `collcheck convert` keeps its promise that a converted trace gives the
// same findings as its input (cli.md). Tasks are named by position.
#pragma once

#include <simdjson.h>

#include <string>
#include <vector>

#include "model/result.h"
#include "model/finding.h"
#include "model/trace.h"

namespace cc {

// The JSON array of `findings` (tasks as {"rank","stream","index"}).
std::string carried_findings_json(const Trace& trace, const std::vector<Finding>& findings);

// A finding read from a header, its tasks not yet resolved.
struct CarriedFinding {
  Finding finding;
  struct Position {
    u64 rank = 0, stream = 0, index = 0;
  };
  std::vector<Position> positions;
};

// Parses the array; "" or what is wrong.
Status parse_carried_findings(simdjson::dom::element e, std::vector<CarriedFinding>& out);

// Resolves positions to task ids of the finalized trace and appends the
// findings to `out`; "" or what is wrong (a position the trace lacks).
Status resolve_carried_findings(const Trace& trace, std::vector<CarriedFinding>& carried,
                                     std::vector<Finding>& out);

// Trace::task_notes the same way ("taskNotes": [{"rank","stream","index","note"}]).
std::string task_notes_json(const Trace& trace);
Status parse_task_notes(simdjson::dom::element e, std::vector<CarriedFinding>& out);
// Resolves and stores them in trace.task_notes.
Status resolve_task_notes(Trace& trace, std::vector<CarriedFinding>& notes);

}  // namespace cc
