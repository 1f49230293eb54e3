// Writes an MSCCL program as an algorithm file, in the layout msccl-tools
// writes (every attribute of msccl.md §2, one element per line), so that
// `collcheck gen --format msccl` and `collcheck mutate` make files the
// runtimes and collcheck's reader take.
#pragma once

#include <string>

#include "model/msccl_program.h"

namespace cc::msccl {

std::string write_xml(const Program& p);

}  // namespace cc::msccl
