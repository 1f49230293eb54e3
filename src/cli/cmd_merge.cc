// `collcheck merge-reports`: combine JSON reports (shards) into one.
#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.h"
#include "report/merge.h"

namespace cc {

namespace {

struct MergeArgs {
  std::vector<std::string> reports;
  std::string output;
};

int run_merge(const MergeArgs& a) {
  Result<MergedReport> m = merge_reports(a.reports);
  if (!m) {
    print_error(m.error().message);
    return 2;
  }
  if (a.output == "-") {
    std::fwrite(m->json.data(), 1, m->json.size(), stdout);
  } else {
    if (std::string why = write_output(a.output, m->json); !why.empty()) {
      print_error(why);
      return 2;
    }
    std::printf("collcheck: merged %zu reports into %s: %zu operators, %zu FAIL, %zu unusable inputs\n",
                a.reports.size(), a.output.c_str(), m->inputs, m->failed, m->errors);
  }
  // An unusable input makes the unsharded run exit 2; the merge says the same.
  return merged_exit_status(*m);
}

}  // namespace

CommandRun add_merge_command(CLI::App& app) {
  auto a = std::make_shared<MergeArgs>();
  CLI::App* c = app.add_subcommand("merge-reports", "combine JSON reports (e.g. of shards) into one");
  c->add_option("REPORT", a->reports, "JSON reports written by check --json")->required();
  c->add_option("-o,--output", a->output, "the combined report (- = standard output)")->required();
  return [a] { return run_merge(*a); };
}

}  // namespace cc
