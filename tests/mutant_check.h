// Independent judgement of mutants for the mutation tests: brute-force
// reachability and conflicts (reference.h), notify serialisation by
// reachability, and the byte-level provenance reference.
#pragma once

#include <string>
#include <vector>

#include "gen_cases.h"
#include "model/trace.h"

namespace cc::test {

struct MutantReference {
  std::string why;  // "" when every reference finds the mutant harmless
  bool provenance_ran = false, provenance_ok = true;
};
// `full`: also the quadratic references (for mutants collcheck passes);
// otherwise only the provenance reference runs. Unless
// `require_provenance`, a schedule whose buffers are too large for the
// byte-level reference (provenance_ran false) is judged by the others.
MutantReference reference_verdict(const Trace& t, bool full = true, bool require_provenance = true);

// Whether run_checks includes stage 5 (it lands separately).
bool semantic_stage_runs();
bool has_semantic_error(const std::vector<u16>& codes);

// The schedules the mutation sweep mutates (small enough for the
// quadratic references).
std::vector<GenCase> mutation_schedules(bool full);

}  // namespace cc::test
