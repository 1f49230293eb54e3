// Pairwise AllToAll and AllToAllV (algorithms.md §9): in step i every rank
// sends to ⟨r+i⟩ and receives from ⟨r−i⟩, through the CCL in op-base mode.
#pragma once

#include "gen/params.h"

namespace cc::gen {

Result<Trace> gen_pairwise(const GenParams& p);

}  // namespace cc::gen
