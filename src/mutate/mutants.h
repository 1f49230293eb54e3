// `collcheck mutate`: faulty variants of a trace, each labelled with what was
// changed, the codes that must catch it, and the outcome collcheck's own
// stages give it (algorithms.md §17; docs/DESIGN.md says why the label is
// computed rather than assumed).
#pragma once

#include <vector>

#include "pipeline/stages.h"
#include "mutate/faults.h"

namespace cc::mutate {

struct MutantLabel {
  bool pass = true;           // no error: an equivalent (harmless) mutant
  bool caught = false;        // FAIL with one of the kind's codes
  std::vector<u16> codes;     // error codes found, sorted, unique
  std::string text;           // "FAIL 102,103" / "PASS (equivalent: …)"
};

struct Mutant {
  Trace trace;  // header name records the change, the codes and the outcome
  FaultKind kind;
  Site site;
  u32 site_index = 0;  // position among every site of the kind in the trace
  std::string what;
  MutantLabel label;
};

// The label of a mutant whose cases were checked into `results` (one per
// case: an MSCCL file has one per call mode), for a kind caught by
// `kind_codes`; `equivalent` says why a passing mutant is harmless.
MutantLabel label_results(const std::vector<CheckResult>& results, const std::vector<u16>& kind_codes,
                          std::string_view equivalent);

// Runs every stage on a mutant and labels it for kind `k`.
MutantLabel label_mutant(const Trace& mutant, FaultKind k, const CheckOptions& options = {});

// One mutant to make: its kind, its site, and the site's position among
// every site of the kind in the trace (what the mutant's file is named by).
struct MutantJob {
  FaultKind kind;
  Site site;
  u32 site_index = 0;
};

// The mutants `kinds` give in `t`: for each kind in turn, up to `count` of
// its sites chosen by `seed` (count 0: every site), in site order.
std::vector<MutantJob> plan_mutants(const Trace& t, const std::vector<FaultKind>& kinds, u64 seed, u32 count);

// The mutant of one job, applied and labelled.
Result<Mutant> make_mutant(const Trace& t, const MutantJob& job);

// Up to `count` mutants of kind `k` at distinct sites chosen by `seed`
// (count 0: every site), in site order.
Result<std::vector<Mutant>> make_mutants(const Trace& t, FaultKind k, u64 seed, u32 count);

// Indices of the sites make_mutants chooses among `sites` sites, ascending.
std::vector<u32> choose_sites(u32 sites, u64 seed, u32 count);

}  // namespace cc::mutate
