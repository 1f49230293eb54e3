// The golden cases of tests/cases/: every input file with its expectation
// (`# expect: exit=N codes=A,B[ args=...]` in the file or in FILE.expect),
// found and parsed once for the tests that run the binary over all of them
// (golden_test.cc: exit status and codes; threads_determinism_test.cc:
// the same reports at every --threads).
//
// The expectation is a comment line in the case (JSON Lines traces)
//     # expect: exit=1 codes=102,103
//     # expect: exit=2 error="t.jsonl:3: missing"      (substring of stderr)
// or the same text in a sidecar file CASE.expect (formats without comments).
// `codes` lists every distinct code reported, errors and warnings alike;
// `warnings=TAG,...` (optional; may be empty) is then exactly the set of
// named warnings (code 0, e.g. ATOMIC-REDUCE-ORDER) reported;
// `args=...` (optional, last) adds options to the command line, with
// `{dir}` standing for the case's directory. An input holding several
// operators (an ST log) may list each in further lines of the sidecar,
//     case: NAME verdict=FAIL codes=302 warnings=STLOG-W-NOTIFY-AMBIGUOUS
// and then exactly these cases must be reported, each as given.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "model/trace.h"

namespace cc::test {

// The named warnings an expectation pins, if it pins them.
using WarningSet = std::optional<std::set<std::string>>;

struct ExpectedOperator {
  std::string name;  // CASE of FILE#CASE
  std::string verdict;
  std::set<int> codes;
  WarningSet warnings;
};

struct GoldenCase {
  std::string path;
  std::vector<ExpectedOperator> operators;
  int exit = -1;
  std::set<int> codes;
  WarningSet warnings;
  bool check_codes = false;
  int roots = -1, consequences = -1;  // roots=N consequences=M: cascades (rootCauses, consequences)
  std::string error;  // expected substring of standard error
  std::string args;
};

// Every case below tests/cases/, sorted by path; one without an
// expectation has exit -2 (a failure of the test that runs it).
std::vector<GoldenCase> discover_golden_cases();

void PrintTo(const GoldenCase& c, std::ostream* os);

// Calls fn(trace, "PATH#CASE") for every checked operator of the sampled
// golden cases (gen_cases.h) that load without their args, until fn
// returns false; returns how many it was called for.
u64 for_each_golden_trace(const std::function<bool(const Trace&, const std::string&)>& fn);

// A test name for a case: "graph/102_cycle.jsonl" -> "graph_102_cycle_jsonl".
std::string golden_case_name(const std::string& path);

}  // namespace cc::test
