// Notify peers of an op group (hcclvm-db.md §11). HCCL VM records a
// RECORD/WAIT with its notify id only; the peer is inferred from which
// ranks use that id. The default "compat" mode is HCCL's rule exactly (the
// lowest other rank using the id, else the own rank), so verdicts compare
// with the reference; "recorded" mode trusts a stored peer that differs
// from the own rank. Beyond HCCL, the ids on which the rule is doubtful are
// reported before matching.
#pragma once

#include <vector>

#include "io/hcclvm/tasks.h"

namespace cc::hcclvm {

// Sets Task::peer and Task::notify of every use. Appends the anomaly
// warnings to `findings` and, for ids only one rank uses with unequal
// RECORD and WAIT counts, a note on their tasks (it then appears in the
// 102/103 those tasks cause). Task ids are append positions; `uses` are in
// task order, and each use's task holds the peer its row stores. Runs on up
// to `threads` threads; nothing it sets or says depends on how many.
void infer_peers(Trace& trace, std::vector<SyncUse> uses, bool recorded_peers, unsigned threads,
                 std::vector<Finding>& findings);

}  // namespace cc::hcclvm
