// What reading an input takes and gives, shared by every reader (io/jsonl,
// io/stlog, io/hcclvm) and by the pipeline, so that no reader includes
// another reader or the dispatcher (io/read.h).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "io/detect.h"
#include "model/finding.h"
#include "model/trace.h"

namespace cc::msccl {
struct Program;  // model/msccl_program.h
}  // namespace cc::msccl

namespace cc {

// How inputs are read (check, stats, dot, mutate and convert share them).
struct InputOptions {
  InputFormat format = InputFormat::Unknown;  // Unknown: detect from content
  std::string op;                             // --op: JSON text or a file name
  std::string case_glob;                      // --case
  // HCCL VM databases (see docs/DESIGN.md, "HCCL VM databases").
  bool keep_stream_ids = false;  // --keep-stream-ids: no renumbering of a rank without stream 0
  bool recorded_peers = false;   // --recorded-peers: trust a notify peer the record stores
  // --aiv-dir: where a database's AIV snapshot files are (default: beside it).
  std::string aiv_dir;
  // Threads one input may read with (--threads; an HCCL VM database reads
  // its task tables in parallel; stage 4 takes its share from the batch,
  // LoadedCase::threads). The result never depends on it.
  unsigned threads = 1;
};

// One operator as a reader leaves it.
struct ReadTrace {
  Trace trace;
  // Findings the reader itself raises (101 for an unknown task type).
  std::vector<Finding> findings;
  // Lines an importer keeps for the user that are not findings (an ST log's
  // reference-checker error lines); `convert` writes them as comments.
  std::vector<std::string> notes;
};

// One operator of an input: a trace file is one case; a database or an ST
// log may hold many, each named FILE#CASE.
struct LoadedCase {
  std::string name;
  ReadTrace read;
  double read_ms = 0;  // this case's share of the time spent reading its file
  // An MSCCL algorithm (io/msccl) is a program, not a record: its reader
  // leaves it here with an empty trace, and the pipeline maps it into one
  // case per call mode (pipeline/msccl.h) before anything else runs.
  std::shared_ptr<const msccl::Program> msccl{};
  // Filled by the pipeline's expansion stage (pipeline/pipeline.h): the time
  // of each expansion that ran ("ccu", "aiv") and their "-v" lines (none
  // without CCU missions or AIV launches).
  std::vector<std::pair<std::string, double>> expand_times{};
  std::vector<std::string> expand_stats{};
  // Threads the check of this operator may use inside itself (its share of
  // --threads, set by the batch, pipeline/batch.h); 0: the CheckOptions'.
  unsigned threads = 0;
};

// Whether `name` matches the glob `pattern` (*, ?, [...]): how --case
// selects the operators of an input.
bool glob_match(const std::string& pattern, const std::string& name);

}  // namespace cc
