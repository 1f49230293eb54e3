// Everything about an MSCCL program that does not depend on the call mode:
// the structure checks of msccl.md §2 and §10 (101, the named warnings), the
// folded thread blocks (§5), the connections and the pairing of their
// sends and receives (§6: 602, 201 for unequal counts,
// MSCCL-W-REMOTE-FIELDS), and the parameters of the execution model (§7).
#pragma once

#include <vector>

#include "msccl/diag.h"
#include "msccl/fold.h"
#include "msccl/options.h"
#include "model/msccl_program.h"

namespace cc::msccl {

// A transmission named by (gpu, thread block index, transmission index).
struct TxRef {
  u32 gpu = 0, tb = 0, tx = 0;
  bool operator==(const TxRef&) const = default;
};

// How a transmission takes part in the FIFOs: the connection it pushes on
// and pops from and its position among that connection's pushing / popping
// transmissions (only those of cnt > 0 move data). kNone: none.
struct TxLink {
  u32 push_conn = kNone, push_pos = kNone;
  u32 pop_conn = kNone, pop_pos = kNone;
};

struct TbInfo {
  bool kept = true;      // false: left out (a negative or repeated id, 101)
  i32 send = -1, recv = -1;  // the peers as used: -1 when absent or invalid (101)
  FoldedTb fold;
  // Per dependency of fold.deps: the index (in Gpu::tbs) of the TB it
  // waits for, or kNone when no TB of the rank has that id (101).
  std::vector<u32> dep_tb;
  // Per dependency: the first transmission of that TB that publishes a
  // level >= deps (§5.3: the source of its happens-before edge), or kNone
  // when it publishes none (the wait is released only by a later
  // iteration, and in the last one never: 102).
  std::vector<u32> dep_pub;
  std::vector<TxLink> links;  // per transmission
};

struct GpuInfo {
  std::vector<TbInfo> tbs;  // parallel to Gpu::tbs
};

// (sender rank, receiver rank, channel) and who pushes and pops on it.
struct Connection {
  i32 from = 0, to = 0, chan = 0;
  std::vector<u32> pusher_tbs, popper_tbs;  // TB indices (in Gpu::tbs) that push / pop data on it
  std::vector<TxRef> pushes, pops;          // transmissions with cnt > 0, in program order
  // More than one pusher or popper TB: the message order depends on timing
  // (602) and no pairing is defined.
  bool ambiguous = false;
};

struct Analysis {
  const Program* program = nullptr;
  Options options;
  std::vector<GpuInfo> gpus;
  std::vector<Connection> conns;
  std::vector<Diag> diags;  // mode-independent findings, in the order they were found
  bool structural_errors = false;  // a 101 was found
  bool ambiguous = false;          // a 602 was found
  u32 max_count = 1;  // M of §7.2: chunks per call
  u32 fifo_calls = 2; // K of §7.1: calls a connection holds

  const Transmission& tx(const TxRef& r) const { return gpus[r.gpu].tbs[r.tb].fold.tx[r.tx]; }
  const TxLink& link(const TxRef& r) const { return gpus[r.gpu].tbs[r.tb].links[r.tx]; }
  const Tb& tb(u32 gpu, u32 tb) const { return program->gpus[gpu].tbs[tb]; }
  const Step& step(const TxRef& r, u32 index) const { return tb(r.gpu, r.tb).steps[index]; }
};

// Analyses `p` (which must outlive the result) with the options' execution
// parameters.
Analysis analyze(const Program& p, const Options& options);

// "1/1/2" for (gpu 1, tb id 1, step s=2), as reports name MSCCL steps.
std::string step_position(const Program& p, u32 gpu, u32 tb, u32 step);

}  // namespace cc::msccl
