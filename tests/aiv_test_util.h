// Helpers of the AIV tests: a trace read and expanded as `collcheck check`
// loads it, checked with every finding kept, and names of its AIV nodes.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "aiv/expand.h"
#include "check/check_result.h"
#include "io/jsonl/reader.h"

namespace cc::test {

struct AivChecked {
  Trace trace;
  std::vector<Finding> expansion;  // the findings of the expansion
  CheckResult result;              // all stages, every finding kept
  std::string error;               // a reader or expansion error
};
AivChecked check_aiv_text(const std::string& text, const AivOptions& options = {});
AivChecked check_aiv_trace(Trace t, const AivOptions& options = {});
// A case of tests/cases/aiv/.
AivChecked check_aiv_case(const std::string& name, const AivOptions& options = {});

// The distinct codes of a result (named warnings as their tags).
std::set<std::string> aiv_codes(const CheckResult& r);
// Every finding with `code` (and `tag` for 0).
std::vector<const Finding*> findings_of(const CheckResult& r, int code, const std::string& tag = "");

// The task of the AIV node rank `rank` (launch index `launch`), block `block`,
// `pipe` ("S", "MTE2", "MTE3") position `pos`; kNone if none.
u32 aiv_task(const Trace& t, u32 rank, u64 launch, u32 block, const std::string& pipe, u32 pos);
// The matched pipe-event and flag edges (from SET_FLAG/SEND_FLAG to
// WAIT_FLAG/RECV_FLAG), as "rank0 L0.b0.MTE2[1] -> rank0 L0.b0.MTE3[0]".
std::set<std::string> aiv_sync_edges(const Trace& t);

// A text trace of `snapshots` (JSON objects) with one AIV_GRAPH per rank.
std::string aiv_trace_text(const std::string& op_json, const std::vector<std::string>& snapshots,
                           const std::string& buffers = R"({"CCL":4096})");

}  // namespace cc::test
