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
// The lane of stream `stream` of `rank`: "tb 1 →2 ←0" (sends to rank 2,
// receives from rank 0; " ch1" when its channel is not 0), "tb 0" without
// peers; nothing for a trace not mapped from MSCCL.
std::optional<std::string> msccl_lane(const Trace& t, u32 rank, u32 stream);
// Whether `task` is the RECORD that hands a sent message to its receive
// (DOT and HTML draw these pairs as message arrows).
bool msccl_message_post(const Trace& t, u32 task);

}  // namespace cc
