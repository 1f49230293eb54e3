// Test helpers for MSCCL programs: random small programs (several GPUs and
// thread blocks, random dependencies and send/receive pairings), and
// references written independently of src/msccl/: a step-level race oracle
// (transitive closure over program order, dependencies and FIFO pairs) and
// a polling implementation of the deadlock model of msccl.md §7.
#pragma once

#include <random>
#include <set>
#include <utility>

#include "model/msccl_program.h"

namespace cc::test {

msccl::Program random_msccl_program(std::mt19937_64& rng);

// A step named by (gpu, thread block index, step index).
struct StepId {
  u32 gpu = 0, tb = 0, step = 0;
  auto operator<=>(const StepId&) const = default;
};

// Every unordered pair of steps of different thread blocks that touch a
// common chunk of one (rank, buffer), at least one writing, in call mode
// `inplace`. Only meaningful for a program without 101, 102 or 602.
std::set<std::pair<StepId, StepId>> reference_msccl_races(const msccl::Program& p, bool inplace);

// Whether every thread block finishes `iterations` iterations with FIFOs of
// `fifo_calls` calls of up to `max_count` chunks, and no chunk is left in a
// FIFO; by a naive polling simulation.
struct RefRun {
  bool complete = false;
  bool leftover = false;
};
RefRun reference_msccl_run(const msccl::Program& p, u32 iterations, u32 fifo_calls, u32 max_count);

}  // namespace cc::test
