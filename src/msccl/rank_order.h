// Rank consistency of an allreduce (msccl.md §9): every rank must produce
// each output chunk by the same reduction tree (operands commutative,
// association significant), or floating-point results differ from rank to
// rank. A chunk-level simulation in the order the execution model ran
// iteration 0 builds each chunk's tree, hash-consed so that equal trees
// have equal ids.
#pragma once

#include <optional>

#include "msccl/analyze.h"
#include "msccl/layout.h"
#include "msccl/simulate.h"

namespace cc::msccl {

// MSCCL-W-RANK-ORDER for the first output chunk two ranks reduce by
// different trees, or nothing. Only for allreduce with SUM or PROD of a
// floating-point type (MAX and MIN, and integer sums, do not depend on the
// association), and only when the simulation completed without ambiguous
// or broken structure.
std::optional<Diag> rank_order_warning(const Program& p, const Analysis& a, const SimResult& sim, const Layout& lay);

}  // namespace cc::msccl
