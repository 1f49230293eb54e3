// Runs a check over many inputs: files and their operators (cases) are
// spread over a pool of threads, results come back in input order, a
// deterministic shard of the operators can be selected, and a progress line
// is drawn on a terminal.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/pipeline.h"
#include "report/json.h"

namespace cc {

struct BatchOptions {
  unsigned jobs = 1;
  // Threads in all (--threads; 0: every core), shared by the operators read
  // at once: see operator_threads.
  unsigned threads = 0;
  u32 shard_index = 0;  // K-1 of --shard K/N
  u32 shard_count = 0;  // N; 0 = no sharding
  bool progress = false;
};

// Shard K of N of --shard K/N, as BatchOptions holds it.
struct Shard {
  u32 index = 0;  // K-1
  u32 count = 0;  // N
};

// The threads each operator may use inside itself when `jobs` inputs of
// `inputs` are worked on at once out of `threads` in all (0: every core):
// at least 1, and never more in all than `threads`, so that -j and
// --threads compose without oversubscribing the cores.
unsigned operator_threads(unsigned threads, unsigned jobs, std::size_t inputs);

// Parses "K/N" (1 <= K <= N); anything else is an Error.
Result<Shard> parse_shard(const std::string& text);

// Whether operator `name` (FILE or FILE#CASE) belongs to shard `index` of
// `count`: the same name gives the same answer on every machine.
bool in_shard(const std::string& name, u32 index, u32 count);

struct CaseOutcome {
  CheckResult result;
  std::string text;  // human report
};

struct FileOutcome {
  std::string file;
  std::vector<CaseOutcome> cases;
  std::optional<InputError> error;
};

// Checks one case of `file`; `several` tells whether the file holds more than one.
using CaseChecker = std::function<CaseOutcome(LoadedCase& c, const std::string& file, bool several)>;
// Receives each file's outcome, in input order.
using OutcomeSink = std::function<void(FileOutcome&&)>;

void run_batch(const std::vector<std::string>& files, const InputOptions& input, const ExpandOptions& expand,
               const BatchOptions& options, const CaseChecker& check, const OutcomeSink& emit);

}  // namespace cc
