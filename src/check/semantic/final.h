// The final comparison of stage 5: each rank's result buffer against the
// operator's required layout; 405-409, and one 902 when required bytes were
// written by tasks the stage cannot follow.
#pragma once

#include "check/semantic/memory.h"
#include "check/semantic/semantic.h"

namespace cc {

void compare_results(const Trace& t, ContribSets& sets, const ProvMemory& mem, FindingSink& out,
                     SemanticDetail& detail);

}  // namespace cc
