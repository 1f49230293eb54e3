// The flow of collcheck, in one place:
//
//   read    io/read.h        every operator (case) of an input, as its reader leaves it
//   map     pipeline/msccl.h an MSCCL program becomes one case per call mode (msccl/map.h)
//   expand  ccu/expand.h     CCU missions become task subgraphs
//           aiv/expand.h     AIV kernel launches become task subgraphs
//   graph   graph/graph.h    stream chains, RECORD/WAIT pairing, the order τ
//   stages  pipeline/stages.h the checks of check/, in their order
//
// The CLI, the tests and the benchmarks call these functions; the writers
// of report/ format what they return (the graph is built once and handed to
// the DOT and HTML writers too).
#pragma once

#include <string>
#include <vector>

#include "aiv/expand.h"
#include "ccu/expand.h"
#include "io/input.h"
#include "model/result.h"
#include "msccl/options.h"
#include "pipeline/stages.h"

namespace cc {

struct ExpandOptions {
  // Off for tools that show records as they are (convert, ccu-dis).
  bool enabled = true;
  CcuOptions ccu;
  // AIV launches are expanded after the CCU missions; off on its own for
  // mutate, whose AIV faults change snapshots before each mutant is expanded.
  bool aiv_enabled = true;
  AivOptions aiv;
  // How MSCCL programs are mapped (--msccl-*). A program is mapped whether
  // or not `enabled`: it has no records to show as they are.
  msccl::Options msccl;
};

// Expands the CCU missions of the cases of one file, in file order (with
// --ccu-carry-cke the CKE state passes from one case to the next), then
// their AIV launches. An Error only when a case cannot hold its nodes.
Result<bool> expand_cases(std::vector<LoadedCase>& cases, const ExpandOptions& options);

// Reads every case of `path` (io), maps an MSCCL program into its cases and
// expands them.
Result<std::vector<LoadedCase>> load_file(const std::string& path, const InputOptions& input,
                                          const ExpandOptions& expand);

// One operator checked: the trace the stages ran on, its task graph and
// the outcome.
struct CheckedCase {
  Trace trace;
  TaskGraph graph;
  CheckResult result;
};

// Builds the graph of a loaded, expanded case once and runs the stages on
// it; the reader's and the expansion's findings come first. The result is
// named after the case and carries the reading and expansion times.
CheckedCase check_case(LoadedCase&& c, const CheckOptions& options);

}  // namespace cc
