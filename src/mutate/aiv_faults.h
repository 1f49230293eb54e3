// The AIV fault kinds of `collcheck mutate` (aiv.md): each changes one task
// of a snapshot of a trace whose launches are not expanded yet (a mutant is
// expanded when it is labelled or checked).
#pragma once

#include <vector>

#include "mutate/faults.h"

namespace cc::mutate {

bool is_aiv_fault(FaultKind k);
// Site: task = snapshot index, other = core·3 + pipe, arg = position in the lane.
std::vector<Site> aiv_fault_sites(const Trace& t, FaultKind k);
Result<Applied> apply_aiv_fault(const Trace& t, FaultKind k, const Site& s);

}  // namespace cc::mutate
