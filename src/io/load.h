// From command-line inputs to traces: directory expansion, format detection,
// and the reader or importer for each format.
#pragma once

#include <string>
#include <vector>

#include "ccu/expand.h"
#include "io/detect.h"
#include "io/jsonl_reader.h"
#include "model/result.h"

namespace cc {

struct LoadOptions {
  InputFormat format = InputFormat::Unknown;  // Unknown: detect from content
  std::string op;                             // --op: JSON text or a file name
  std::string case_glob;                      // --case
  // HCCL VM databases (hcclvm-db.md §10, §11).
  bool keep_stream_ids = false;  // --keep-stream-ids: no renumbering of a rank without stream 0
  bool recorded_peers = false;   // --recorded-peers: trust a notify peer the record stores
  // CCU traces are expanded (ccu.md) as they are loaded, with these options;
  // the CKE state of --ccu-carry-cke passes from one case of a file to the next.
  bool expand_ccu = true;
  CcuOptions ccu;
};

// One operator of an input: a trace file is one case; a database or an ST
// log may hold many, each named FILE#CASE.
struct LoadedCase {
  std::string name;
  ReadTrace read;
  double read_ms = 0;  // this case's share of the time spent reading its file
  double ccu_ms = 0;   // of which expanding its CCU missions
  std::string ccu_stats{};  // "-v" line of the expansion ("" without CCU missions)
};

// Files named on the command line, with every supported file below each
// directory (sorted, so runs are reproducible).
Result<std::vector<std::string>> expand_inputs(const std::vector<std::string>& args);

// Reads every case of one file that matches `case_glob`.
Result<std::vector<LoadedCase>> load_file(const std::string& path, const LoadOptions& options);

// Whether `name` matches the glob `pattern` (*, ?, [...]).
bool glob_match(const std::string& pattern, const std::string& name);

}  // namespace cc
