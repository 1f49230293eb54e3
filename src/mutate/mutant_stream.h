// Mutants made one at a time and handed on at once, so that `mutate
// --count 0` on a trace of 10^5 tasks or more writes its first file within
// a second and holds a few traces in memory, not one per mutant.
#pragma once

#include <functional>
#include <vector>

#include "mutate/mutants.h"

namespace cc::mutate {

// Makes the mutants of `jobs` on `threads` threads (at least 1) and hands
// each to `emit` on the calling thread, in job order, as soon as it and
// every one before it are made. At most 2 * threads mutants wait at once.
// Stops at the first error, of a fault or of `emit`, and returns it.
Status stream_mutants(const Trace& t, const std::vector<MutantJob>& jobs, unsigned threads,
                      const std::function<Status(Mutant&&)>& emit);

}  // namespace cc::mutate
