// From command-line inputs to read operators: directory expansion, format
// detection, and the reader of each format. Reading only: expanding CCU
// microcode is the pipeline's next stage (pipeline/pipeline.h).
#pragma once

#include <string>
#include <vector>

#include "io/input.h"
#include "model/result.h"

namespace cc {

// Files named on the command line, with every supported file below each
// directory (sorted, so runs are reproducible). A named file is kept as it
// is, even missing ("-" is standard input): reading it tells what is wrong.
// The files of a directory that are no input go to `skipped`.
Result<std::vector<std::string>> expand_inputs(const std::vector<std::string>& args,
                                               std::vector<std::string>* skipped = nullptr);

// Reads every case of one file that matches the options' case glob.
Result<std::vector<LoadedCase>> read_file(const std::string& path, const InputOptions& options);

}  // namespace cc
