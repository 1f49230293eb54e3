// The operator parameters an op group's opExtInfo carries (hcclvm-db.md
// §6): V counts, all-to-all matrices, BatchSendRecv items, each
// cross-checked between the members (collcheck rules: every member's counts
// must match the ranks they name; AllToAllV rows and columns are merged cell
// by cell, the first disagreeing cell reported, no blind OR).
#pragma once

#include "model/result.h"
#include "io/hcclvm/op.h"

namespace cc::hcclvm {

// Each completes `out.op` or refuses the group (405) in `out`. They return
// exit-2 text when a blob does not decode, else "".
Status v_counts_of(Db& db, const OpGroup& group, GroupOp& out);
Status matrix_of(Db& db, const OpGroup& group, GroupOp& out, bool full);
Status batch_items_of(Db& db, const OpGroup& group, GroupOp& out);

}  // namespace cc::hcclvm
