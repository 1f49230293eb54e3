#include "mutant_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "pipeline/stages.h"
#include "provenance_ref.h"
#include "reference.h"

namespace cc::test {

namespace {

// Whether the unserialised pairs i, i+1 of key k may be told apart only by
// what an ST dump does not print (the ST rule of stage 3, written out again
// here): a generic Post(idx)/Wait(idx) among the four tasks, or a notify-type
// key of the dump that is posted or waited on several streams.
bool st_ambiguous(const Trace& t, const TaskGraph& g, u32 k, u32 i) {
  u32 w1 = g.pairs[i], w2 = g.pairs[i + 1];
  for (u32 x : {w1, w2, g.partner[w1], g.partner[w2]})
    if (t.tasks[x].flags & kTaskNotifyIndexLost) return true;
  const Task& r1 = t.tasks[g.partner[w1]];
  if (!std::binary_search(t.inexact_notifies.begin(), t.inexact_notifies.end(), r1.notify())) return false;
  std::set<u32> posts, waits;
  for (u32 j = g.key_begin[k]; j < g.key_begin[k + 1]; ++j) {
    const Task& x = t.tasks[g.key_tasks[j]];
    (x.type == TaskType::RECORD ? posts : waits).insert(x.stream);
  }
  return posts.size() > 1 || waits.size() > 1;
}

}  // namespace

MutantReference reference_verdict(const Trace& t, bool full, bool require_provenance) {
  MutantReference out;
  TaskGraph g = build_graph(t);
  if (!g.complete) {
    out.why = "the pairing simulation deadlocks";
    return out;
  }
  if (!g.unconsumed_records.empty()) out.why = "a RECORD is never consumed";
  ProvenanceOutcome p = reference_provenance(t, g, 8u << 20);
  out.provenance_ran = p.ran;
  out.provenance_ok = !p.ran || p.ok();
  if (!full) return out;
  if (!p.ran && require_provenance) out.why = "the provenance reference could not run (buffers too large)";
  ReferenceReach ref(t, g);
  auto conflicts = reference_conflicts(t, g, ref);
  if (out.why.empty() && !conflicts.empty())
    out.why = fmt::format("brute force finds {} conflicting pairs", conflicts.size());
  for (u32 k = 0; out.why.empty() && k + 1 < g.pair_begin.size(); ++k)
    for (u32 i = g.pair_begin[k]; i + 1 < g.pair_begin[k + 1]; ++i)
      if (!ref.reaches(g.pairs[i], g.partner[g.pairs[i + 1]]) && !st_ambiguous(t, g, k, i)) {
        out.why = "two uses of one notify are not serialised";
        break;
      }
  if (out.why.empty() && !out.provenance_ok)
    out.why = "provenance reference: " + (p.first_problems.empty() ? std::string("wrong") : p.first_problems[0]);
  return out;
}

bool semantic_stage_runs() {
  Op op;
  op.type = OpType::AllReduce;
  op.ranks = 1;
  Trace t;
  t.op = op;
  (void)finalize_trace(t);  // one rank, no tasks: nothing to overflow
  CheckResult r = run_checks(t, {}, CheckOptions{});
  return std::any_of(r.times.begin(), r.times.end(), [](const StageTime& s) { return s.stage == "semantic"; });
}

bool has_semantic_error(const std::vector<u16>& codes) {
  return std::any_of(codes.begin(), codes.end(), [](u16 c) { return c >= 401 && c <= 409 && c != 404; });
}

std::vector<GenCase> mutation_schedules(bool full) {
  std::vector<GenCase> out;
  for (const std::string& pair : registry_pairs())
    for (const GenCase& c : gen_cases(pair, full)) {
      if (c.p.ranks > (full ? 8u : 5u)) continue;
      if (op_has_root(c.p.op) && c.p.root != 0 && c.p.root + 1 != c.p.ranks) continue;
      // Long: every shape of up to 8 ranks, counts 1, 77, 385 and 1000.
      // Normally a few per operator: multi-iteration op-base, graph mode with
      // physical notifies, folded CCL with non-inline reducers.
      bool keep = full ? c.p.count == 1 || c.p.count == 77 || c.p.count == 385 || c.p.count == 1000
                       : (c.p.count == 1000 && c.p.ranks == 4) || (c.p.count == 77 && c.p.ranks == 3) ||
                             (c.p.count == 1000 && c.p.ranks == 5 && c.p.fold_ccl);
      if (!full && op_has_root(c.p.op) && c.p.root != 0) keep = false;
      if (keep) out.push_back(c);
    }
  return out;
}

}  // namespace cc::test
