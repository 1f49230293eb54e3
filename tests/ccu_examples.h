// Test helper: the worked examples of ccu.md §14 as CCU programs.
#pragma once

#include "ccu_program.h"

namespace cc::test {

// §14.1: 2-rank exchange over one channel with SetCKE/wait.
CcuProgram spec_example1();
// §14.2: one LoopGroup, one Loop, two copies, two iterations (rank 0 of a
// one-rank AllReduce of 0x400 bytes, so the copies are the whole operator).
CcuProgram spec_example2();

}  // namespace cc::test
