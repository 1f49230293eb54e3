// What checking one operator takes (the options) and gives (the findings,
// their counts and the statistics): shared by the stages, the pipeline that
// runs them and the reports that format the outcome.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "check/sink.h"
#include "model/result.h"

namespace cc {

enum StageBits : u32 {
  kStageGraph = 1,
  kStageSingle = 2,
  kStageSync = 4,
  kStageMem = 8,
  kStageSemantic = 16,
  kAllStages = 31,
};

// Parses "graph,single,sync,mem,semantic" into kStage* bits; an unknown
// name is an Error.
Result<u32> parse_stages(std::string_view list);

struct CheckOptions {
  u32 stages = kAllStages;
  u32 max_errors = 20;  // per code
  bool all_pairs = false;
  bool strict_reduce = false;  // stage 4: SDMA reduces of one class conflict too
  // Threads the operator may use inside itself (its share of --threads,
  // pipeline/batch.h): stage 4 splits its memory domains over them. The
  // findings never depend on it.
  unsigned threads = 1;
};

struct StageTime {
  std::string stage;
  double ms = 0;
};

struct CheckResult {
  std::string input;  // file, or FILE#CASE
  std::string file;   // the input file alone (reports that locate findings in it)
  // Position in an unsharded run: index of the input file, of the case in it
  // (merge-reports puts shard reports back in this order).
  u32 order_file = 0, order_case = 0;
  bool pass = true;
  std::vector<Finding> findings;  // capped per code, in stage order
  CountMap totals;                // found per (severity, code, tag), before capping
  u64 errors = 0, warnings = 0;
  // Of those: root causes of cascades, and findings that are consequences
  // of one (Finding::cause_id, consequence_of).
  u64 root_causes = 0, consequences = 0;
  u32 ranks = 0, streams = 0;
  u64 tasks = 0;
  double ms = 0;  // whole check, excluding reading
  double read_ms = 0;
  std::vector<StageTime> times;
  std::vector<std::string> stats;  // "-v" lines: per-stage statistics
};

}  // namespace cc
