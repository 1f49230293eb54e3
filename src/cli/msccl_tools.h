// `collcheck gen --format msccl` and `collcheck mutate` on MSCCL files: the
// MSCCL halves of those subcommands, called from cmd_gen.cc and
// cmd_mutate.cc.
#pragma once

#include <string>

#include "msccl/options.h"

namespace cc {

// Writes the MSCCL XML of `algo` (ring, all-pairs) for `op_type` (default
// AllReduce) on `ranks` GPUs to `output` (standard output when "" or "-");
// `list` prints the algorithms. Returns the exit status.
int run_gen_msccl(const std::string& algo, const std::string& op_type, unsigned ranks, const std::string& output,
                  bool list);

// The fault kinds of MSCCL files, for `mutate --list`.
std::string msccl_mutate_list_text();
bool is_msccl_kind(const std::string& kind);

// Writes MSCCL mutants of `input` to `output_dir` (DIR/STEM.KIND.SITE.xml),
// each labelled in its <algo name>. `kind` is an MSCCL fault kind or all.
int run_mutate_msccl(const std::string& input, const std::string& kind, unsigned long long seed, unsigned count,
                     const std::string& output_dir, const msccl::Options& options);

}  // namespace cc
