// The execution model of msccl.md §7: every thread block of every rank runs
// its transmissions for L iterations with monotone level flags (§5.3) and
// bounded FIFOs of K calls of up to M chunks. A schedule that completes
// with the smallest capacity completes with any larger one, so 102 here is
// a hang the runtime can show, and no 102 is a proof for every capacity.
#pragma once

#include <vector>

#include "msccl/analyze.h"

namespace cc::msccl {

inline constexpr u64 kNever = ~u64{0};

struct SimResult {
  bool complete = false;
  // Per (gpu, tb index, transmission), iteration 0: when its dependencies
  // were released, and when it completed (a global event counter), or
  // kNever.
  std::vector<std::vector<std::vector<u64>>> released0, done0;
  // Transmissions of iteration 0 in completion order.
  std::vector<TxRef> order0;
  std::vector<Diag> diags;  // 102 per blocked thread block, 103 per message never received
};

SimResult simulate(const Analysis& a);

}  // namespace cc::msccl
