// Report text for tasks mapped from an MSCCL algorithm (Trace::msccl):
// positions "gpu/tb/s" and what the step does, e.g. "cpy i[0] -> o[1]".
// describe.cc asks these first; they answer only for MSCCL tasks.
#pragma once

#include <optional>
#include <string>

#include "model/trace.h"

namespace cc {

// "1/0/0" for a step's task, "1/2/start" / "1/2/end" for the kernel's launch
// and exit of thread block 2 of rank 1.
std::optional<std::string> msccl_position(const Trace& t, u32 task);
// "cpy i[0] -> o[1]", "WAIT(1→1 #4): waits for 1/0/0 cpy i[0] -> o[1] (dependency)".
std::optional<std::string> msccl_description(const Trace& t, u32 task);

}  // namespace cc
