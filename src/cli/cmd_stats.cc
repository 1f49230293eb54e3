// `collcheck stats`: ranks, streams, tasks, sync edges and bytes moved of
// each operator of an input, without checking it.
#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.h"
#include "graph/graph.h"
#include "graph/stats.h"

namespace cc {

namespace {

struct StatsArgs : InputArgs {
  std::string input;
};

int run_stats(const StatsArgs& a) {
  InputOptions load;
  ExpandOptions expand;
  if (!load_options(a, load, expand)) return 2;
  auto cases = load_file(a.input, load, expand);
  if (!cases) {
    print_error(cases.error().message);
    return 2;
  }
  for (LoadedCase& c : cases.value()) {
    const Trace& t = c.read.trace;
    TaskGraph g = build_graph(t);
    if (cases.value().size() > 1) std::printf("== %s\n", c.name.c_str());
    std::string s = format_stats(t, compute_stats(t, g));
    std::fwrite(s.data(), 1, s.size(), stdout);
  }
  return 0;
}

}  // namespace

CommandRun add_stats_command(CLI::App& app) {
  auto a = std::make_shared<StatsArgs>();
  CLI::App* c = app.add_subcommand("stats", "ranks, streams, tasks, edges, bytes moved");
  c->add_option("INPUT", a->input, "any input check reads (- = standard input)")->required();
  add_input_options(c, *a);
  return [a] { return run_stats(*a); };
}

}  // namespace cc
