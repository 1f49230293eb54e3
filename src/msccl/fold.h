// What the runtime stores of a thread block (msccl.md §5.1) and the hidden
// step counter its dependencies refer to (§5.2): nops folded into the next
// real step, fused `re` chains, and every transmission's level.
#pragma once

#include <vector>

#include "msccl/diag.h"
#include "model/msccl_program.h"

namespace cc::msccl {

// One dependency "TB depid of this rank has published level >= deps".
struct Dep {
  i32 depid = -1;
  i32 deps = -1;
  u32 step = 0;  // index (in Tb::steps) of the step that carries it
};

// One transmission: a real step, or a fused chain of `re` steps, with the
// dependencies of the nops before it.
struct Transmission {
  StepType type = StepType::Nop;
  u32 first_step = 0, last_step = 0;  // indices in Tb::steps (a chain may enclose nops)
  // `re`: the steps whose sources the chain reduces, in file order (each
  // reads srcbuf[srcoff of that step, +cnt)); one entry for other types.
  std::vector<u32> sources;
  Buf srcbuf = Buf::I, dstbuf = Buf::O;
  i32 srcoff = -1, dstoff = -1;
  i32 cnt = 0;           // the last step's (a chain keeps the last cnt)
  bool hasdep = false;   // the last step's
  u32 dep_begin = 0, dep_count = 0;  // into FoldedTb::deps
  i32 level = 0;         // §5.2
};

struct FoldedTb {
  std::vector<Transmission> tx;
  std::vector<Dep> deps;
  // Step index -> the transmission it belongs to (a nop: the one it folds
  // into); kNone for dropped trailing nops.
  std::vector<u32> tx_of_step;
};

// Folds `tb` (of gpu `gpu_index`, at index `tb_index` of Gpu::tbs) as the
// runtime does. Adds 101 (a nop chain not ended by a step with a
// dependency, an unknown step type) and the warnings MSCCL-W-NOP-NODEP,
// -NOP-TRAILING and -STEP-NUMBER to `diags`.
FoldedTb fold_tb(const Tb& tb, u32 gpu_index, u32 tb_index, std::vector<Diag>& diags);

}  // namespace cc::msccl
