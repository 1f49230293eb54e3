// From opDetails rows to the operator instances HCCL VM's checker verifies:
// sync windows and op groups (hcclvm-db.md §4).
#pragma once

#include <string>
#include <vector>

#include "io/hcclvm/rows.h"

namespace cc::hcclvm {

// Op group `index` of window `window`: the index-th row of every rank's
// bucket of that window, ranks ascending.
struct OpGroup {
  u64 window = 0;
  u32 index = 0;
  // Window <= the last synchronised one: the reference checks it. A group
  // of a later window was never synchronised and is not checked (§4).
  bool synced = true;
  std::vector<const OpRow*> members;  // ascending rankId

  std::string name() const;  // "w<window>-op<index>" (cli.md)
};

// Every group of every window, windows ascending, groups by index. Rows are
// taken in id order (the collcheck rule; the reference query has no ORDER
// BY). Rows beyond the last synchronised window form groups the same way,
// with `synced` false.
std::vector<OpGroup> form_groups(const DbRows& rows);

// "opDetails row 7 (rank 1)".
std::string member_name(const OpRow& r);

}  // namespace cc::hcclvm
