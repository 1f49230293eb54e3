// `collcheck dot`: the task graph of one operator for Graphviz, its
// findings highlighted, or only the neighbourhood of some tasks.
#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.h"
#include "pipeline/pipeline.h"
#include "report/dot.h"
#include "report/text.h"

namespace cc {

namespace {

struct DotArgs : InputArgs {
  std::string input, output;
  std::vector<std::string> focus;
  u32 radius = 3;
  bool no_check = false;
};


// "r/s/i" -> task id.
bool parse_task_position(const Trace& t, const std::string& text, u32& id) {
  unsigned r, s, i;
  char tail;
  if (std::sscanf(text.c_str(), "%u/%u/%u%c", &r, &s, &i, &tail) != 3) return false;
  for (const Stream& st : t.streams)
    if (st.rank == r && st.id == s && i < st.task_count) {
      id = st.first_task + i;
      return true;
    }
  return false;
}

// The --focus values: tasks "r/s/i", or "findings" for the tasks of every finding.
bool parse_focus(const Trace& t, const std::vector<std::string>& focus,
                 const std::vector<Finding>& findings, std::vector<u32>& out) {
  for (const std::string& f : focus) {
    if (f == "findings") {
      for (const Finding& x : findings) out.insert(out.end(), x.tasks.begin(), x.tasks.end());
      continue;
    }
    u32 id;
    if (!parse_task_position(t, f, id)) {
      print_error(fmt::format("--focus {}: no such task (write RANK/STREAM/INDEX or \"findings\")", f));
      return false;
    }
    out.push_back(id);
  }
  return true;
}

constexpr std::size_t kDotLargeGraph = 5000;

int run_dot(const DotArgs& a) {
  InputOptions load;
  ExpandOptions expand;
  if (!load_options(a, load, expand)) return 2;
  auto cases = load_file(a.input, load, expand);
  if (!cases) {
    print_error(cases.error().message);
    return 2;
  }
  if (cases.value().size() != 1) {
    print_error(fmt::format("{}: holds {} cases; choose one with --case", a.input,
                            cases.value().size()));
    return 2;
  }
  LoadedCase& c = cases.value().front();
  std::string name = c.name;
  // The graph is built once, by the check (or alone with --no-check).
  CheckedCase checked;
  if (a.no_check) {
    checked.trace = std::move(c.read.trace);
    checked.graph = build_graph(checked.trace);
  } else {
    checked = check_case(std::move(c), CheckOptions{});
  }
  const Trace& t = checked.trace;
  const TaskGraph& g = checked.graph;
  DotOptions opt;
  opt.radius = a.radius;
  opt.title = a.no_check ? name : verdict_line(checked.result);
  std::vector<Finding> findings = std::move(checked.result.findings);
  if (!parse_focus(t, a.focus, findings, opt.focus)) return 2;
  if (!a.focus.empty() && opt.focus.empty()) {
    print_error("--focus findings: the input has no finding that names a task");
    return 2;
  }
  // Graphviz's layout grows much faster than linearly: say how to get a picture.
  if (opt.focus.empty() && t.tasks.size() > kDotLargeGraph)
    std::fprintf(stderr,
                 "collcheck: note: %zu tasks; Graphviz may take very long to lay this out: "
                 "--focus TASK|findings --radius K draws a neighbourhood\n",
                 t.tasks.size());
  std::string dot = format_dot(t, g, findings, opt);
  if (std::string why = write_output(a.output.empty() ? "-" : a.output, dot); !why.empty()) {
    print_error(why);
    return 2;
  }
  return 0;
}

void common(CLI::App* c, DotArgs& a) {
  c->add_option("INPUT", a.input, "any input check reads (- = standard input)")->required();
  add_input_options(c, a);
}

}  // namespace

CommandRun add_dot_command(CLI::App& app) {
  auto a = std::make_shared<DotArgs>();
  CLI::App* c = app.add_subcommand("dot", "the task graph as Graphviz DOT");
  common(c, *a);
  c->add_option("-o,--output", a->output, "output file (default: standard output)");
  c->add_option("--focus", a->focus,
                 "draw only the neighbourhood of task RANK/STREAM/INDEX, or of every finding's "
                 "tasks (\"findings\"); may be repeated");
  c->add_option("--radius", a->radius, "with --focus: edges away from the task (default 3)")
      ->check(whole_number(0, ~u32{0}));
  c->add_flag("--no-check", a->no_check, "draw the graph without running the checks (no highlights)");
  return [a] { return run_dot(*a); };
}

}  // namespace cc
