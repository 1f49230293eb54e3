// `collcheck check`: verify every operator of the inputs, in parallel, and
// print the reports in input order.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>


#include "pipeline/stages.h"
#include "pipeline/batch.h"
#include "cli/commands.h"
#include "graph/graph.h"
#include "report/dot.h"
#include "report/html/index.h"
#include "report/html/page.h"
#include "io/read.h"
#include "report/output_path.h"
#include "report/json.h"
#include "report/junit.h"
#include "report/sarif.h"
#include "report/text.h"

namespace cc {

namespace {

namespace fs = std::filesystem;

struct CheckArgs : InputArgs {
  std::vector<std::string> inputs;
  std::string json, dot, html, sarif, junit, stages;
  std::string fail_on = "error";
  bool exit_zero = false;
  u32 max_errors = 20;
  bool all_pairs = false;
  bool strict_reduce = false;
  unsigned jobs = 0;
  bool quiet = false, verbose = false;
  std::string shard;
  LongRunArgs run;
  CcuOptions ccu;
};

// Report files that could not be written: errors of the run (exit 2), not
// findings of an operator, which a correct operator would turn into FAIL.
struct WriteFailures {
  std::mutex m;
  std::vector<std::string> messages;

  void write(const std::string& path, const std::string& data) {
    std::string why = write_output(path, data);
    if (why.empty()) return;
    std::lock_guard<std::mutex> lock(m);
    messages.push_back(std::move(why));
  }
};

// Checks one case (pipeline/pipeline.h) and writes its per-case report
// files from the graph the check built.
CaseOutcome check_one(const CheckArgs& args, const CheckOptions& opt, LoadedCase& c, const std::string& file,
                      bool several, WriteFailures& failed) {
  CheckedCase checked = check_case(std::move(c), opt);
  CaseOutcome out;
  CheckResult& r = out.result;
  r = std::move(checked.result);
  const Trace& trace = checked.trace;
  if (!args.dot.empty()) {
    DotOptions dot;
    dot.title = verdict_line(r);
    failed.write(case_output_path(args.dot, file, r.input, several), format_dot(trace, checked.graph, r.findings, dot));
  }
  if (!args.html.empty())
    failed.write(case_output_path(args.html, file, r.input, several), format_html_report(trace, checked.graph, r));
  Verbosity v = args.quiet ? Verbosity::Quiet : args.verbose ? Verbosity::Verbose : Verbosity::Normal;
  out.text = format_text_report(r, &trace, v, opt.max_errors);
  return out;
}

// The operators of a run, counted for its final line.
struct Tally {
  u64 operators = 0, pass = 0, fail = 0, unusable = 0;
  u64 pass_with_warnings = 0;  // PASS, but --fail-on warning fails them

  void add(const CheckResult& r, bool failed) {
    ++operators;
    ++(r.pass ? pass : fail);
    pass_with_warnings += r.pass && failed;
  }

  // "collcheck: 12 operators: 10 PASS, 2 FAIL, 0 unusable"
  std::string line(bool warnings_fail) const {
    std::string warned = warnings_fail && pass_with_warnings
                             ? fmt::format(" ({} with warnings)", pass_with_warnings)
                             : std::string();
    return fmt::format("collcheck: {} operator{}: {} PASS{}, {} FAIL, {} unusable\n", operators,
                       operators == 1 ? "" : "s", pass, warned, fail, unusable);
  }
};

// Files of a directory that are no input: named (a few), not read.
void print_skipped(std::vector<std::string> skipped) {
  std::sort(skipped.begin(), skipped.end());
  constexpr std::size_t kNamed = 5;
  std::string names;
  for (std::size_t i = 0; i < std::min(kNamed, skipped.size()); ++i) names += (i ? ", " : "") + skipped[i];
  if (skipped.size() > kNamed) names += fmt::format(" and {} more", skipped.size() - kNamed);
  std::fprintf(stderr, "collcheck: warning: skipped %zu file%s that %s no input: %s\n", skipped.size(),
               skipped.size() == 1 ? "" : "s", skipped.size() == 1 ? "is" : "are", names.c_str());
}

int run_check(const CheckArgs& a) {
  CheckOptions opt;
  opt.max_errors = a.max_errors == 0 ? ~u32{0} : a.max_errors;  // 0: no limit
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
  std::vector<std::string> skipped;
  Result<std::vector<std::string>> files = expand_inputs(a.inputs, &skipped);
  if (!files) {
    print_error(files.error().message);
    return 2;
  }
  if (!skipped.empty()) print_skipped(skipped);
  if (!a.dot.empty() && files.value().size() != 1) {
    print_error("--dot needs exactly one input");
    return 2;
  }
  if (!a.html.empty() && files.value().size() != 1) {
    print_error("--html needs exactly one input");
    return 2;
  }
  // Every report file requested must be a different file; one at most goes
  // to standard output.
  std::vector<std::string> outputs;
  for (const std::string* o : {&a.json, &a.dot, &a.html, &a.sarif, &a.junit})
    if (!o->empty()) outputs.push_back(*o);
  std::sort(outputs.begin(), outputs.end());
  if (std::adjacent_find(outputs.begin(), outputs.end()) != outputs.end()) {
    print_error("--json, --dot, --html, --sarif and --junit must name different files");
    return 2;
  }
  bool report_to_stdout = std::count(outputs.begin(), outputs.end(), "-") > 0;
  BatchOptions batch;
  batch.jobs = a.jobs ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
  batch.threads = load.threads;
  if (!a.shard.empty()) {
    Result<Shard> shard = parse_shard(a.shard);
    if (!shard) return print_error(shard.error().message), 2;
    batch.shard_index = shard->index;
    batch.shard_count = shard->count;
  }
  batch.progress = progress_wanted(a.run);
  if (!start_memory_limit(a.run)) return 2;
  std::vector<CheckResult> results;
  std::vector<InputError> errors;
  bool keep_results = !a.json.empty() || !a.sarif.empty() || !a.junit.empty();
  bool warnings_fail = a.fail_on == "warning";
  // An operator fails the run when it has errors, or any finding at all
  // with --fail-on warning.
  auto fails = [&](const CheckResult& r) { return !r.pass || (warnings_fail && r.warnings > 0); };
  bool any_fail = false;
  Tally tally;
  bool many_operators = files.value().size() > 1;  // then a tally at the end
  // With "--json -" (or another report to "-") standard output carries that
  // report alone.
  std::FILE* human = report_to_stdout ? stderr : stdout;
  WriteFailures failed;
  std::vector<HtmlIndexEntry> html_index;  // one input of several operators: a page each, and an index
  auto check = [&](LoadedCase& c, const std::string& file, bool several) {
    return check_one(a, opt, c, file, several, failed);
  };
  run_batch(files.value(), load, expand, batch, check, [&](FileOutcome&& o) {
    if (o.error) {
      std::fflush(stdout);
      print_error(o.error->message);
      errors.push_back(std::move(*o.error));
      return;
    }
    many_operators |= o.cases.size() > 1;
    for (CaseOutcome& c : o.cases) {
      if (!a.html.empty() && a.html != "-" && o.cases.size() > 1)
        html_index.push_back({c.result.input,
                              fs::path(case_output_path(a.html, o.file, c.result.input, true)).filename().string(),
                              c.result.pass, c.result.errors, c.result.warnings});
      bool failed = fails(c.result);
      // -q in a batch: only the operators that fail.
      if (!(a.quiet && many_operators && !failed)) std::fwrite(c.text.data(), 1, c.text.size(), human);
      any_fail |= failed;
      tally.add(c.result, failed);
      if (keep_results) results.push_back(std::move(c.result));
    }
    std::fflush(human);
  });
  tally.unusable = errors.size();
  int status = !errors.empty() ? 2 : any_fail && !a.exit_zero ? 1 : 0;
  auto write_report_file = [&](const std::string& path, const std::string& data) {
    if (!path.empty()) failed.write(path, data);
  };
  if (!html_index.empty()) write_report_file(a.html, format_html_index(files.value().front(), html_index));
  if (!a.json.empty()) write_report_file(a.json, format_json_report(results, errors, status));
  if (!a.sarif.empty()) write_report_file(a.sarif, format_sarif_report(results, errors));
  if (!a.junit.empty()) {
    JunitOptions junit;
    junit.warnings_fail = warnings_fail;
    write_report_file(a.junit, format_junit_report(results, errors, junit));
  }
  if (many_operators || tally.operators + tally.unusable > 1) {
    std::fflush(stdout);
    std::fputs(tally.line(warnings_fail).c_str(), human);
  }
  // A report that was asked for and not written: the run did not do its job.
  std::fflush(human);
  // Code 501 (DUMP_FAILED) names the failure; it is an error of the run
  // (exit status 2, an unusable command line), not a finding that would turn
  // a correct operator's verdict into FAIL.
  for (const std::string& m : failed.messages) print_error(m + " [ErrorCode: 501 DUMP_FAILED]");
  if (!failed.messages.empty()) status = 2;
  return status;
}

}  // namespace

CommandRun add_check_command(CLI::App& app) {
  auto a = std::make_shared<CheckArgs>();
  CLI::App* c = app.add_subcommand("check", "verify operators (the main job)");
  c->add_option("INPUT", a->inputs, "trace files, HCCL VM databases, ST logs, or directories (- = standard input)")
      ->required();
  c->add_option("--json", a->json, "write the JSON report to FILE (- = standard output)");
  c->add_option("--dot", a->dot, "write the task graph as Graphviz DOT (one input)");
  c->add_option("--html", a->html, "write the visual report, one self-contained HTML page (one input; of several operators: a page each, FILE.<case>.html, and an index at FILE)");
  c->add_option("--sarif", a->sarif, "write the findings as SARIF 2.1.0 to FILE, for code scanning (- = standard output)");
  c->add_option("--junit", a->junit, "write JUnit XML to FILE: a test case per operator (- = standard output)");
  c->add_flag("--exit-zero", a->exit_zero,
              "exit 0 even when operators fail (unusable inputs and bad options still exit 2)");
  c->add_option("--fail-on", a->fail_on,
                "what makes an operator fail the exit status: error (default) or warning (any finding)")
      ->check(CLI::IsMember({"error", "warning"}));
  add_input_options(c, *a);
  c->add_option("--stages", a->stages, "run only these stages: graph,single,sync,mem,semantic");
  c->add_option("--max-errors", a->max_errors, "findings shown per code (default 20; 0 = no limit)")
      ->check(whole_number(0, ~u32{0}));
  c->add_flag("--all-pairs", a->all_pairs, "stage 4: enumerate every conflicting pair");
  c->add_flag("--strict-reduce", a->strict_reduce,
              "stage 4: unordered SDMA reduces into the same bytes (same operator and data type) are "
              "conflicts (302), as in HCCL's checker; by default the engine's atomic reduction is trusted");
  c->add_option("-j", a->jobs, "check N inputs in parallel (default and 0: the number of cores)")
      ->check(whole_number(0, 4096));
  c->add_option("--shard", a->shard, "check only shard K of N deterministic shards of the operators (K/N)");
  add_long_run_options(c, a->run);
  c->add_option("--ccu-max-steps", a->ccu.max_steps,
                "CCU: at most N executed words (a loop instance counts as one) per mission, else 105")
      ->check(whole_number(1, ~u64{0}));
  c->add_flag("--ccu-drain-at-end", a->ccu.drain_at_end,
              "CCU: order every transfer whose completion nobody observes before its mission's END");
  c->add_flag("--ccu-carry-cke", a->ccu.carry_cke, "CCU: keep CKE state from one operator to the next");
  c->add_flag("--ccu-strict-ref", a->ccu.strict_ref,
              "CCU: reject SetCKE clearType 0 and ClearCKE clearMask != 0 as the reference does (111)");
  c->add_flag("--ccu-loop-merge", a->ccu.loop_merge, "CCU: emit eligible loops as BATCH nodes instead of unrolling");
  c->add_flag("-q,--quiet", a->quiet, "only the summary line; of several operators, only those that fail and the tally");
  c->add_flag("-v,--verbose", a->verbose, "also per-stage timings and statistics");
  return [a] { return run_check(*a); };
}

}  // namespace cc
