// libFuzzer target: AIV snapshots (docs/AIV_MODE.md). The input is read
// twice: as a snapshot file (the parser a database's snapshot files go
// through), and as a trace with "aiv" lines, which is then expanded (the
// co-simulation) and checked by every stage. A malformed snapshot must be
// a finding or an input error, never a crash, hang, sanitizer report or leak.
#include <cstddef>
#include <cstdint>
#include <string>

#include "aiv/expand.h"
#include "io/aiv/snapshot_reader.h"
#include "io/jsonl/reader.h"
#include "pipeline/stages.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)cc::aiv_io::parse_snapshot_text(text, "hcclvm_aiv_rank0_launch0_task.json");
  cc::Result<cc::ReadTrace> r = cc::read_jsonl_string(text, "fuzz.jsonl");
  if (!r.ok()) return 0;
  cc::Trace& t = r.value().trace;
  if (t.tasks.size() > 4000 || t.op.ranks > 4096 || t.aiv.snapshots.size() > 64) return 0;
  cc::Result<cc::AivExpansion> x = cc::expand_aiv(t);
  if (!x.ok() || t.tasks.size() > 200000) return 0;
  std::vector<cc::Finding> pre = std::move(r.value().findings);
  for (cc::Finding& f : x.value().findings) pre.push_back(std::move(f));
  cc::run_checks(t, std::move(pre), cc::CheckOptions{});
  return 0;
}
