#include "pipeline/stages.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>

#include "check/aiv_rules.h"
#include "check/pairing.h"
#include "check/race_links.h"
#include "check/mem_conflict.h"
#include "check/semantic/semantic.h"
#include "check/single_task.h"
#include "check/sync.h"
#include "graph/data_order.h"
#include "graph/graph.h"
#include "graph/reach.h"
#include "model/describe.h"
#include "model/jobs.h"
#include "pipeline/stopwatch.h"

namespace cc {

namespace {

Finding setting_warning(std::string message) {
  return make_finding(902, StageTag::Setting, std::move(message));
}

// Resolves task ids for the writers, adds the importer's task notes and
// the totals.
CheckResult finish_result(const Trace& trace, FindingSink& sink, CheckResult res, Clock::time_point t_all) {
  res.findings = std::move(sink.findings());
  for (Finding& f : res.findings) {
    f.refs.clear();
    for (u32 id : f.tasks) {
      const Task& k = trace.tasks[id];
      TaskRef ref;
      ref.rank = k.rank, ref.stream = k.stream, ref.index = trace.task_index(id), ref.line = k.line;
      if (k.line) ref.file = trace.file;
      f.refs.push_back(ref);
      if (k.flags & kTaskAiv) aiv_task_ref(trace, id, f.refs.back());
      if (k.flags & kTaskCcu) ccu_task_ref(trace, id, f.refs.back());
      if (f.code == 0) continue;  // a named warning carries its own explanation
      for (const auto& [task, note] : trace.task_notes)
        if (task == id) f.details.push_back("Note : " + note);
    }
  }
  res.totals = sink.totals();
  res.errors = sink.errors();
  res.warnings = sink.warnings();
  res.root_causes = sink.root_causes();
  res.consequences = sink.consequences();
  res.pass = res.errors == 0;
  res.ms = ms_since(t_all);
  return res;
}

// What stages 4 and 5 found and took, each timed on its own.
struct LateStages {
  MemConflictStats mem;
  SemanticStats semantic;
  double mem_ms = 0, semantic_ms = 0;
  double order_ms = 0;  // the list of memory tasks both read (counted with the graph)
};

// Stages 4 and 5 read the trace, the graph and the list of its memory tasks
// in τ (made here once for both), and nothing the other writes, so on
// several threads they run side by side: stage 5 as one job
// on its own sink, stage 4 as pieces (shards of its domains, twice as many
// as threads, so that the threads stay busy whichever stage is longer),
// all taken by the same `opt.threads` workers. Stage 5's findings then
// follow stage 4's, as when they run one after the other (FindingSink::
// absorb), so the report is the same for every thread count.
//
// Neither reads the graph's `order` (τ as a list of every task): the list
// of memory tasks stands for it. It is set aside while they run (4 bytes
// per task, 40 MB at 10^7 tasks, at the check's peak) and made again from
// `tau` for the writers after.
LateStages run_late_stages(const Trace& trace, TaskGraph& graph, Reachability& reach, const CheckOptions& opt,
                           FindingSink& sink, bool mem, bool semantic) {
  LateStages late;
  if (!mem && !semantic) return late;
  unsigned threads = std::max(1u, opt.threads);
  MemConflictOptions mem_opt{opt.all_pairs, 64, opt.strict_reduce, threads};
  auto t_order = Clock::now();
  DataOrder order = data_order(trace, graph, threads);
  auto executed = static_cast<u32>(graph.order.size());
  std::vector<u32>().swap(graph.order);
  late.order_ms = ms_since(t_order);
  struct RestoreOrder {
    TaskGraph& graph;
    u32 executed;
    ~RestoreOrder() { restore_order(graph, executed); }
  } restore{graph, executed};
  if (threads == 1 || !mem || !semantic) {
    if (mem) {
      auto t0 = Clock::now();
      check_mem_conflict(trace, graph, order, reach, mem_opt, sink, nullptr, &late.mem);
      late.mem_ms = ms_since(t0);
    }
    if (semantic) {
      auto t0 = Clock::now();
      check_semantic(trace, order, sink, &late.semantic);
      late.semantic_ms = ms_since(t0);
    }
    return late;
  }
  FindingSink semantic_sink(opt.max_errors);
  auto start = Clock::now();
  auto sweeps = plan_mem_conflict(trace, graph, order, reach, mem_opt, std::min(64u, 2 * threads), sink);
  std::vector<Job> jobs;
  jobs.push_back([&] {
    auto t0 = Clock::now();
    check_semantic(trace, order, semantic_sink, &late.semantic);
    late.semantic_ms = ms_since(t0);
  });
  std::atomic<unsigned> pieces_left{sweeps->pieces()};
  Clock::time_point mem_end;
  for (unsigned p = 0; p < sweeps->pieces(); ++p)
    jobs.push_back([&, p] {
      sweeps->run(p);
      if (pieces_left.fetch_sub(1) == 1) mem_end = Clock::now();
    });
  run_jobs(threads, jobs);
  auto t0 = Clock::now();
  sweeps->finish(&late.mem);
  // Stage 4's time: from the start to its last piece, plus its report.
  late.mem_ms = std::chrono::duration<double, std::milli>(mem_end - start).count() + ms_since(t0);
  sink.absorb(std::move(semantic_sink));
  return late;
}

}  // namespace

CheckResult run_stages(const Trace& trace, TaskGraph& graph, std::vector<Finding> pre, const CheckOptions& opt,
                       double graph_ms) {
  // The whole check's time includes the graph's, built before this call.
  auto t_all = Clock::now() - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(graph_ms));
  CheckResult res;
  res.input = trace.file;
  res.file = trace.file;
  res.ranks = trace.op.ranks;
  res.streams = static_cast<u32>(trace.streams.size());
  res.tasks = trace.tasks.size();
  FindingSink sink(opt.max_errors);
  // An importer that found a hang (102) or an ambiguous pairing (602) of the
  // schedule it maps (MSCCL, msccl.md §6, §7) could not give a graph whose
  // races and results mean anything.
  bool import_broken = false;
  for (const Finding& f : pre) import_broken |= (f.code == 102 || f.code == 602) && f.severity == Severity::Error;
  for (Finding& f : pre) sink.add(std::move(f));
  if (trace.unchecked) return finish_result(trace, sink, std::move(res), t_all);

  auto timed = [&](const char* stage, auto&& fn) {
    auto t0 = Clock::now();
    fn();
    res.times.push_back({stage, ms_since(t0)});
  };

  // The graph is always built (every later stage needs it); its findings
  // are reported only when the graph stage is selected. The reachability
  // index is built from it and counted in its time.
  auto t_reach = Clock::now();
  Reachability reach(trace, graph, ReachOptions{.workers = std::max(1u, opt.threads)});
  res.times.push_back({"graph", graph_ms + ms_since(t_reach)});
  if (opt.stages & kStageGraph) {
    check_gen_graph(trace, graph, sink);
  } else {
    sink.add(setting_warning("Stage GenGraph findings (101-103) not reported: --stages excludes graph."));
  }
  u64 scanned_elsewhere = 0;  // by stage 4's other shards, each with its own oracle
  if (opt.stages & kStageSingle) {
    timed("single", [&] {
      check_single_tasks(trace, sink);
      check_slave_streams(trace, sink);
      check_aiv_single(trace, sink);
    });
  } else {
    sink.add(setting_warning("Stage SingleTaskCheck skipped: --stages excludes single."));
  }
  if (opt.stages & kStageSync) {
    timed("sync", [&] {
      check_sync(trace, graph, reach, sink);
      check_aiv_sync(trace, graph, reach, sink);
    });
  } else {
    sink.add(setting_warning("Stage SyncCheck skipped: --stages excludes sync."));
  }
  // Stages 4 and 5 build their own maps: the key tables' memory is theirs now.
  std::size_t pairs = graph.pairs.size();
  release_sync_keys(graph);

  // A record that could not become a node (101, and an importer's 110 and
  // 111, hcclvm-db.md §12.3), or a CCU mission that could not be expanded,
  // leaves the graph without its work.
  bool graph_broken =
      sink.has(101) || sink.has(110) || sink.has(111) || !graph.complete || trace.ccu.failed || trace.aiv.failed || import_broken;
  u32 later = opt.stages & (kStageMem | kStageSemantic);
  if (graph_broken && later) {
    sink.add(setting_warning(
        "Stages MemConflict and SemanticCheck skipped: the task graph could not be fully built "
        "(101/102/110/111, a CCU mission or AIV launch that could not be expanded, or an MSCCL schedule that "
        "hangs or pairs its sends ambiguously, 602)."));
  } else {
    // Stage 4 (MemConflict) and stage 5 (SemanticCheck), each only when
    // selected by --stages; on several threads, side by side.
    bool mem = opt.stages & kStageMem;
    bool semantic = (opt.stages & kStageSemantic) && trace.op.known;
    // (Stage 4's place in the findings, before stage 5's, holds for its
    // skip notice too.)
    if (!mem) sink.add(setting_warning("Stage MemConflict skipped: --stages excludes mem."));
    LateStages late = run_late_stages(trace, graph, reach, opt, sink, mem, semantic);
    res.times.front().ms += late.order_ms;  // derived from the graph, like the reachability index
    if (mem) {
      res.times.push_back({"mem", late.mem_ms});
      scanned_elsewhere = late.mem.scanned;
      res.stats.push_back(fmt::format("mem: {} accesses, {} ordering queries, {} conflicting pairs, {} unordered "
                                      "SDMA reduce pairs (atomic)",
                                      late.mem.accesses, late.mem.queries, late.mem.pairs, late.mem.atomic_pairs));
    }
    if (!(opt.stages & kStageSemantic)) {
      sink.add(setting_warning("Stage SemanticCheck skipped: --stages excludes semantic."));
    } else if (!trace.op.known) {
      sink.add(setting_warning(
          "Stage SemanticCheck skipped: the operator parameters are unknown (ST log without --op or a "
          "sidecar CASE.op.json / LOG.op.json, README.md \"Supported inputs\"; an MSCCL send, recv or alltoallv, whose XML "
          "carries neither counts nor peers)."));
    } else {
      res.times.push_back({"semantic", late.semantic_ms});
      link_results_to_races(trace, sink);
      const SemanticStats& ss = late.semantic;
      res.stats.push_back(fmt::format("semantic: {} data tasks, {} segments, {} contribution sets, {} unions "
                                      "({} from the memo)",
                                      ss.data_tasks, ss.segments, ss.sets, ss.unions, ss.memo_hits));
    }
  }
  res.stats.push_back(fmt::format("graph: {} sync keys, {} pairs, {} explicit edges, complete={}",
                                  graph.key_count, pairs, graph.out_to.size(),
                                  graph.complete ? "yes" : "no"));
  res.stats.push_back(fmt::format("reachability: {} tasks scanned", reach.scanned() + scanned_elsewhere));

  return finish_result(trace, sink, std::move(res), t_all);
}

CheckResult run_checks(const Trace& trace, std::vector<Finding> pre, const CheckOptions& opt) {
  auto t0 = Clock::now();
  TaskGraph graph = build_graph(trace, nullptr, std::max(1u, opt.threads));
  double graph_ms = ms_since(t0);
  return run_stages(trace, graph, std::move(pre), opt, graph_ms);
}

}  // namespace cc
