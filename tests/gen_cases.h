// The schedules the generator and mutation tests sweep: every algorithm and
// operator of the registry over ranks, counts, data types, roots, modes and
// notify modes. A small representative subset normally; everything with
// COLLCHECK_LONG_TESTS=1 (docs/DEVELOPING.md).
#pragma once

#include <string>
#include <vector>

#include "gen/params.h"

namespace cc::test {

bool long_tests();

struct GenCase {
  std::string algo;
  gen::GenParams p;
  std::string label() const;  // for failure messages
};

// The (algorithm, operator) pairs of the registry, as "algo/Op".
std::vector<std::string> registry_pairs();

// Cases of one "algo/Op" pair.
std::vector<GenCase> gen_cases(const std::string& pair, bool full);

}  // namespace cc::test
