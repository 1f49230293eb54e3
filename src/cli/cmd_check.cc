// `collcheck check`: verify every operator of the inputs, in parallel, and
// print the reports in input order.
#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>

#include <unistd.h>

#include "pipeline/stages.h"
#include "pipeline/batch.h"
#include "cli/commands.h"
#include "cli/memory_guard.h"
#include "graph/graph.h"
#include "report/dot.h"
#include "report/html/page.h"
#include "io/read.h"
#include "report/output_path.h"
#include "report/json.h"
#include "report/text.h"

namespace cc {

namespace {

struct CheckArgs : InputArgs {
  std::vector<std::string> inputs;
  std::string json, dot, html, stages;
  u32 max_errors = 20;
  bool all_pairs = false;
  bool strict_reduce = false;
  unsigned jobs = 0;
  bool quiet = false, verbose = false;
  std::string shard, max_memory;
  bool progress = false, no_progress = false;
  CcuOptions ccu;
};

bool write_file(const std::string& path, const std::string& data, std::string& why) {
  if (path == "-") {
    std::fwrite(data.data(), 1, data.size(), stdout);
    return true;
  }
  std::ofstream f(path, std::ios::binary);
  f << data;
  f.close();
  if (!f) {
    why = fmt::format("cannot write {}", path);
    return false;
  }
  return true;
}

Finding dump_failed(const std::string& why) {
  return make_finding(501, StageTag::Dump, fmt::format("Report file not written: {}.", why));
}

// Writes one requested report file; a failure becomes a 501 of the case.
void write_report(CheckResult& r, const std::string& path, const std::string& data) {
  std::string why;
  if (write_file(path, data, why)) return;
  r.findings.push_back(dump_failed(why));
  r.totals[{Severity::Error, 501, ""}]++;
  r.errors++;
  r.pass = false;
}

// Checks one case (pipeline/pipeline.h) and writes its per-case report
// files from the graph the check built.
CaseOutcome check_one(const CheckArgs& args, const CheckOptions& opt, LoadedCase& c, const std::string& file,
                      bool several) {
  CheckedCase checked = check_case(std::move(c), opt);
  CaseOutcome out;
  CheckResult& r = out.result;
  r = std::move(checked.result);
  const Trace& trace = checked.trace;
  if (!args.dot.empty()) {
    DotOptions dot;
    dot.title = verdict_line(r);
    write_report(r, case_output_path(args.dot, file, r.input, several), format_dot(trace, checked.graph, r.findings, dot));
  }
  if (!args.html.empty())
    write_report(r, case_output_path(args.html, file, r.input, several), format_html_report(trace, checked.graph, r));
  Verbosity v = args.quiet ? Verbosity::Quiet : args.verbose ? Verbosity::Verbose : Verbosity::Normal;
  out.text = format_text_report(r, &trace, v, opt.max_errors);
  return out;
}

int run_check(const CheckArgs& a) {
  CheckOptions opt;
  opt.max_errors = a.max_errors;
  opt.all_pairs = a.all_pairs;
  opt.strict_reduce = a.strict_reduce;
  if (!a.stages.empty()) {
    Result<u32> stages = parse_stages(a.stages);
    if (!stages) return print_error(stages.error().message), 2;
    opt.stages = *stages;
  }
  InputOptions load;
  ExpandOptions expand;
  if (!load_options(a, load, expand)) return 2;
  expand.ccu = a.ccu;
  Result<std::vector<std::string>> files = expand_inputs(a.inputs);
  if (!files) {
    print_error(files.error().message);
    return 2;
  }
  if (!a.dot.empty() && files.value().size() != 1) {
    print_error("--dot needs exactly one input");
    return 2;
  }
  if (!a.html.empty() && files.value().size() != 1) {
    print_error("--html needs exactly one input");
    return 2;
  }
  int to_stdout = (a.json == "-") + (a.dot == "-") + (a.html == "-");
  if (to_stdout > 1 || (!a.html.empty() && (a.html == a.json || a.html == a.dot)) ||
      (!a.dot.empty() && a.dot == a.json)) {
    print_error("--json, --dot and --html must name different files");
    return 2;
  }
  BatchOptions batch;
  batch.jobs = a.jobs ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
  if (!a.shard.empty()) {
    Result<Shard> shard = parse_shard(a.shard);
    if (!shard) return print_error(shard.error().message), 2;
    batch.shard_index = shard->index;
    batch.shard_count = shard->count;
  }
  batch.progress = a.progress ? true : a.no_progress ? false : isatty(2) != 0;
  if (!a.max_memory.empty()) {
    Result<u64> limit = parse_memory_size(a.max_memory);
    if (!limit) return print_error(limit.error().message), 2;
    start_memory_guard(*limit, a.max_memory);
  }
  std::vector<CheckResult> results;
  std::vector<InputError> errors;
  bool any_fail = false;
  // With "--json -" (or --dot -, --html -) standard output carries that
  // report alone.
  std::FILE* human = a.json == "-" || a.dot == "-" || a.html == "-" ? stderr : stdout;
  auto check = [&](LoadedCase& c, const std::string& file, bool several) {
    return check_one(a, opt, c, file, several);
  };
  run_batch(files.value(), load, expand, batch, check, [&](FileOutcome&& o) {
    if (o.error) {
      std::fflush(stdout);
      print_error(o.error->message);
      errors.push_back(std::move(*o.error));
      return;
    }
    for (CaseOutcome& c : o.cases) {
      std::fwrite(c.text.data(), 1, c.text.size(), human);
      any_fail |= !c.result.pass;
      if (!a.json.empty()) results.push_back(std::move(c.result));
    }
    std::fflush(human);
  });
  int status = !errors.empty() ? 2 : any_fail ? 1 : 0;
  if (!a.json.empty()) {
    std::string why;
    if (!write_file(a.json, format_json_report(results, errors), why)) {
      std::fputs(format_finding(dump_failed(why)).c_str(), stdout);
      if (status == 0) status = 1;
    }
  }
  return status;
}

}  // namespace

CommandRun add_check_command(CLI::App& app) {
  auto a = std::make_shared<CheckArgs>();
  CLI::App* c = app.add_subcommand("check", "verify operators (the main job)");
  c->add_option("INPUT", a->inputs, "trace files, HCCL VM databases, ST logs, or directories")
      ->required();
  c->add_option("--json", a->json, "write the JSON report to FILE (- = standard output)");
  c->add_option("--dot", a->dot, "write the task graph as Graphviz DOT (one input)");
  c->add_option("--html", a->html, "write the visual report, one self-contained HTML page (one input)");
  add_input_options(c, *a);
  c->add_option("--stages", a->stages, "run only these stages: graph,single,sync,mem,semantic");
  c->add_option("--max-errors", a->max_errors, "cap per error code (default 20)")
      ->check(CLI::PositiveNumber);
  c->add_flag("--all-pairs", a->all_pairs, "stage 4: enumerate every conflicting pair");
  c->add_flag("--strict-reduce", a->strict_reduce,
              "stage 4: unordered SDMA reduces into the same bytes (same operator and data type) are "
              "conflicts (302), as in HCCL's checker; by default the engine's atomic reduction is trusted");
  c->add_option("-j", a->jobs, "check N inputs in parallel (default: number of cores)");
  c->add_option("--shard", a->shard, "check only shard K of N deterministic shards of the operators (K/N)");
  c->add_option("--max-memory", a->max_memory, "stop with exit status 2 before growing past SIZE bytes (K, M, G)");
  c->add_flag("--progress", a->progress, "draw a progress line on standard error");
  c->add_flag("--no-progress", a->no_progress, "never draw the progress line");
  c->add_option("--ccu-max-steps", a->ccu.max_steps,
                "CCU: at most N executed words (a loop instance counts as one) per mission, else 105")
      ->check(CLI::PositiveNumber);
  c->add_flag("--ccu-drain-at-end", a->ccu.drain_at_end,
              "CCU: order every transfer whose completion nobody observes before its mission's END");
  c->add_flag("--ccu-carry-cke", a->ccu.carry_cke, "CCU: keep CKE state from one operator to the next");
  c->add_flag("--ccu-strict-ref", a->ccu.strict_ref,
              "CCU: reject SetCKE clearType 0 and ClearCKE clearMask != 0 as the reference does (111)");
  c->add_flag("--ccu-loop-merge", a->ccu.loop_merge, "CCU: emit eligible loops as BATCH nodes instead of unrolling");
  c->add_flag("-q,--quiet", a->quiet, "only the summary line");
  c->add_flag("-v,--verbose", a->verbose, "also per-stage timings and statistics");
  return [a] { return run_check(*a); };
}

}  // namespace cc
