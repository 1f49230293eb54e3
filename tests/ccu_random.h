// Test helper: random CCU programs (straight-line code with LoopGroups) for
// property tests. Most are well formed; random slips (a missing set, ids
// shared between copies, overlapping strides, addresses past a buffer)
// make some of them fail in every way the checks can tell.
#pragma once

#include <random>

#include "ccu_program.h"

namespace cc::test {

struct RandomCcuShape {
  u32 max_ranks = 2;    // each rank runs its own mission on die 0 (same image)
  u32 max_items = 8;    // top-level items of a mission
  double slip = 0.15;   // chance of each deliberate mistake
};

CcuProgram random_ccu_program(std::mt19937_64& rng, const RandomCcuShape& shape = {});

}  // namespace cc::test
