// Test helper: a CCU AllReduce over n ranks written with the test encoder,
// and the mutants of the issue (each must FAIL with its codes).
//
// Rank r owns chunk r (c bytes) of every buffer. Handshake bits of rank q
// are bit q%16 of CKE 100 + q/16 ("ready") and 200 + q/16 ("done"), so any
// number of ranks fits. Its mission: post "ready"
// to every peer (SyncCKE from a constant-source CKE), copy INPUT chunk r to
// OUTPUT chunk r through an MS slot in a loop of 4 pieces, wait for every
// peer's "ready", reduce each peer's INPUT chunk r into OUTPUT chunk r
// (0x1008 with reduce, one at a time), write OUTPUT chunk r into every
// peer's OUTPUT (0x1009), wait for those writes, post "done", and wait for
// every peer's "done". Arguments beyond 13 go to a second SQE (§2).
#pragma once

#include "ccu_program.h"

namespace cc::test {

enum class AllReduceMutant {
  None,
  DropSetCke,        // the prologue SetCKE that fills the constant source
  WrongChannel,      // rank 0's channel to rank 1 leads to another rank
  LoopCountPlusOne,  // rank 0's staging loop runs one piece too many (into chunk 1)
  LoopCountPlusOneLast,  // the last rank's does (its extra piece starts past INPUT)
  UnalignedLoad,     // the last rank's OUTPUT address is loaded 2 bytes off
};

// `chunk` bytes per rank, staged in `piece`-byte pieces (chunk / piece
// loop iterations, at most 8191; piece at most one MS slot).
CcuProgram ccu_allreduce(u32 ranks, AllReduceMutant mutant = AllReduceMutant::None, u64 chunk = 0x400,
                         u64 piece = 0x100);

}  // namespace cc::test
