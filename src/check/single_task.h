// Stage 2 (SingleTaskCheck, StreamCheck): every slice valid (201), no two
// slices of one task overlapping (202), every slave stream well formed (203).
#pragma once

#include "check/sink.h"
#include "model/trace.h"

namespace cc {

void check_single_tasks(const Trace& trace, FindingSink& out);
void check_slave_streams(const Trace& trace, FindingSink& out);

// Whether a slice is usable by later stages: its rank and buffer exist and
// offset+len does not overflow (bounds are reported but not needed there).
bool slice_addressable(const Trace& trace, const Slice& s);

}  // namespace cc
