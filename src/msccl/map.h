// An MSCCL program as a collcheck trace, for one call mode (msccl.md §4,
// §6, §8, §11): one stream per thread block, one iteration of every
// transmission (a chunk's bytes stand for its slices of all iterations:
// every iteration does the same on its own slice), sends and receives
// through a per-message slot of a FIFO_<A>_<B>_<chan> buffer on the
// receiver, and every happens-before edge (a send and its receive, a
// dependency and the publication that releases it, the kernel's start and
// end on thread block 0) as one RECORD/WAIT pair of its own. The trace is
// what `convert` writes, so a converted file is checked exactly alike.
#pragma once

#include <string>
#include <vector>

#include "model/finding.h"
#include "model/result.h"
#include "model/trace.h"
#include "msccl/analyze.h"
#include "msccl/simulate.h"

namespace cc::msccl {

struct MappedCase {
  std::string mode;  // "inplace" / "outofplace"
  Trace trace;
  // The findings of the program (analysis, simulation, rank order) with
  // their steps resolved into this trace's tasks.
  std::vector<Finding> findings;
};

// Maps `p` for one mode. Only pairs and dependencies that the simulation
// completed in iteration 0 become edges, so the trace's own graph always
// completes: a hang is the simulation's 102, never a second one.
Result<MappedCase> map_mode(const Program& p, const Analysis& a, const SimResult& sim, bool inplace);

// Every mode of `p` the options select (§4.3), checked as separate cases.
// An error is an option or size problem (exit 2).
Result<std::vector<MappedCase>> map_program(const Program& p, const Options& options);

}  // namespace cc::msccl
