// Operator parameters of an ST log's dumps (stlog.md §6, cli.md `--op`):
// the log holds task queues only, so the operator, its buffer sizes and the
// rank count it must agree with come from `--op` or a sidecar file.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/finding.h"
#include "model/result.h"
#include "model/trace.h"

namespace cc {

// One operator's parameters: for every dump (no test), every dump of one
// test (no dump index), or one dump.
struct StLogParamEntry {
  std::optional<std::string> test;
  std::optional<u64> dump;
  Trace header;       // op, buffers and rankBuffers; no tasks
  std::string where;  // "FILE:LINE" of the entry, for messages
};

struct StLogParams {
  std::vector<StLogParamEntry> entries;
};

// Parses either form of §6: one `op` object of trace-format.md (for every
// dump), or JSON Lines of {"test","dump","op","buffers","rankBuffers"}.
// `display` names the source in messages ("FILE:LINE: ...").
Result<StLogParams> parse_stlog_params(const std::string& text, const std::string& display);

// `--op`: JSON text when its first non-blank character is '{', else a file.
Result<StLogParams> load_stlog_params(const std::string& op_arg);

// The entry that applies to dump `dump` of `test`: one naming both, else
// one naming the test only, else one naming neither; nullptr if none.
const StLogParamEntry* find_stlog_params(const StLogParams& params, std::string_view test, u64 dump);

// The size HCCL's ST framework gives INPUT or OUTPUT (`buf`) on every rank
// where it differs from the operator's own (stlog.md §6): Scatter's INPUT
// and BatchSendRecv's INPUT and OUTPUT are ranks·count elements (of the
// first item for BatchSendRecv). nullopt where the framework gives the
// operator's sizes (Reduce's and SendRecv's already agree), or on overflow.
std::optional<u64> st_framework_size(const Op& op, BufId buf);

// Gives a dump's trace (op.known == false, op.ranks = its rank count, not
// yet finalized) its parameters, or none, and finalizes it. INPUT and
// OUTPUT the parameters do not declare get the ST framework's sizes. Then
// declares every touched buffer that still has no size as large as its
// furthest byte, with a 902 "bounds not checked" warning appended to
// `findings`, and warns once when a Scatter relays through non-root INPUT
// (STLOG-W-SCATTER-RELAY). Returns "" or what is wrong (the rank count
// disagrees with the operator).
Status apply_stlog_params(Trace& trace, const StLogParamEntry* params, std::vector<Finding>& findings,
                               std::vector<u32>& new_ids);

}  // namespace cc
