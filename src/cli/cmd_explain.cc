// `collcheck explain CODE`: the section of docs/ERRORS.md about one error
// code or named warning, as the binary carries it.
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "report/error_docs.h"
#include "text/suggest.h"

namespace cc {

namespace {

struct ExplainArgs {
  std::string code;
  bool list = false;
};

int run_explain(const ExplainArgs& a) {
  if (a.list) {
    for (const ErrorDoc& d : error_docs()) {
      std::string line = d.code == d.name ? std::string(d.name) : fmt::format("{} {}", d.code, d.name);
      std::printf("%s\n", line.c_str());
    }
    return 0;
  }
  if (a.code.empty()) {
    print_error("explain needs a CODE (a number such as 302, a name, or a warning tag); --list lists them");
    return 2;
  }
  if (const ErrorDoc* d = find_error_doc(a.code)) {
    std::fwrite(d->section.data(), 1, d->section.size(), stdout);
    std::printf("\n");
    return 0;
  }
  std::vector<std::string_view> known;
  for (const ErrorDoc& d : error_docs()) {
    known.push_back(d.code);
    if (d.name != d.code) known.push_back(d.name);
  }
  std::string message = fmt::format("unknown code \"{}\"", a.code);
  if (auto near = closest_word(a.code, known)) message += fmt::format("; did you mean {}?", *near);
  message += " (collcheck explain --list lists every code)";
  print_error(message);
  return 2;
}

}  // namespace

CommandRun add_explain_command(CLI::App& app) {
  auto a = std::make_shared<ExplainArgs>();
  CLI::App* c = app.add_subcommand("explain", "explain an error code or named warning (the text of docs/ERRORS.md)");
  c->add_option("CODE", a->code, "a code (302), its name (MEMCONFLICT_DETECTED) or a warning tag; any case");
  c->add_flag("--list", a->list, "list every code and named warning, one a line");
  return [a] { return run_explain(*a); };
}

}  // namespace cc
