// MSCCL algorithms in the pipeline: the program io/msccl read becomes one
// case per call mode the file declares (FILE#outofplace, FILE#inplace),
// each a trace with the findings of the analysis, the execution model and
// the mapping (src/msccl/). This is the first thing load_file does after
// reading, before any expansion, and it runs for every tool: a program has
// no records to show "as they are".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "io/input.h"
#include "model/result.h"
#include "msccl/map.h"
#include "msccl/options.h"

namespace cc {

using MscclCase = msccl::MappedCase;

// Replaces every case holding an MSCCL program by its mapped modes whose
// name (the mode, or FILE#mode) matches `case_glob` ("" = all). The
// mapping's time is each new case's expansion time ("msccl").
Result<std::vector<LoadedCase>> map_msccl_cases(std::vector<LoadedCase> cases, const std::string& case_glob,
                                                const msccl::Options& options);

// An MSCCL file read and mapped in one call (tests, mutate's labels, the
// fuzz target), from a path or from text held in memory.
Result<std::vector<MscclCase>> read_msccl_file(const std::string& path, const msccl::Options& options,
                                               const std::string& case_glob = {});
Result<std::vector<MscclCase>> read_msccl_string(std::string_view text, const std::string& display,
                                                 const msccl::Options& options);

}  // namespace cc
