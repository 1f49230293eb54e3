// The --msccl-* options of `check`, `convert` and `mutate` (msccl.md §3,
// §4.2, §4.3, §7, §9).
#pragma once

#include <CLI/CLI.hpp>

#include "msccl/options.h"

namespace cc {

struct MscclArgs {
  msccl::Options options;
  std::string mode, reduce_op, data_type;
};

void add_msccl_options(CLI::App* c, MscclArgs& a);
// False, after printing the error, for an unusable value.
bool msccl_options(const MscclArgs& a, msccl::Options& out);

}  // namespace cc
