// Everything a user reads points to files that ship in the repository: no
// --help, list, message, README or doc names the project's private
// specification (checks.md, stlog.md, …) or a folder outside the tree.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>

#include "test_util.h"

namespace cc::test {
namespace {

namespace fs = std::filesystem;

// The lines of `text` that name a private spec file or ../shared.
std::vector<std::string> spec_mentions(const std::string& text) {
  static const std::regex spec(
      "(^|[^A-Za-z0-9_-])(checks|stlog|hcclvm-db|ccu|aiv|msccl|algorithms|cli|trace-format|memconflict)\\.md"
      "|\\.\\./shared|shared/spec");
  std::vector<std::string> hits;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, spec)) hits.push_back(line);
  return hits;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += "\n  " + l;
  return s;
}

TEST(UserText, TheCheckFindsWhatItLooksFor) {
  EXPECT_EQ(spec_mentions("see checks.md §3").size(), 1u);
  EXPECT_EQ(spec_mentions("(stlog.md \u00a74.2)").size(), 1u);
  EXPECT_EQ(spec_mentions("../shared/spec/aiv.md").size(), 1u);
  EXPECT_EQ(spec_mentions("algorithms.md").size(), 1u);
  EXPECT_TRUE(spec_mentions("docs/MSCCL.md, docs/CCU_FORMAT.md, docs/ERRORS.md").empty());
}

TEST(UserText, HelpAndListsNameNoSpecFile) {
  RunResult top = run_collcheck("--help");
  ASSERT_EQ(top.status, 0);
  EXPECT_TRUE(spec_mentions(top.out).empty()) << joined(spec_mentions(top.out));
  // The subcommands --help lists, as cmake/cli-docs.sh reads them.
  std::vector<std::string> subs;
  std::istringstream in(top.out);
  bool in_subs = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "Subcommands:") {
      in_subs = true;
      continue;
    }
    if (!line.empty() && line[0] != ' ') in_subs = false;
    if (in_subs && line.size() > 2 && line[2] != ' ') subs.push_back(line.substr(2, line.find(' ', 2) - 2));
  }
  EXPECT_GE(subs.size(), 9u) << top.out;
  EXPECT_NE(std::find(subs.begin(), subs.end(), "explain"), subs.end());
  for (const std::string& s : subs) {
    RunResult h = run_collcheck(s + " --help");
    EXPECT_EQ(h.status, 0) << s;
    EXPECT_TRUE(spec_mentions(h.out).empty()) << s << " --help:" << joined(spec_mentions(h.out));
  }
  for (const char* list : {"gen --list", "mutate --list", "explain --list"}) {
    RunResult l = run_collcheck(list);
    EXPECT_EQ(l.status, 0) << list;
    EXPECT_FALSE(l.out.empty()) << list;
    EXPECT_TRUE(spec_mentions(l.out).empty()) << list << ":" << joined(spec_mentions(l.out));
  }
}

TEST(UserText, ReadmeDocsAndExamplesNameNoSpecFile) {
  fs::path root = source_dir();
  std::vector<fs::path> files = {root / "README.md"};
  for (const char* dir : {"docs", "examples"})
    for (const auto& e : fs::directory_iterator(root / dir))
      if (e.is_regular_file() && e.path().extension() != ".png") files.push_back(e.path());
  EXPECT_GT(files.size(), 12u);
  for (const fs::path& f : files) {
    std::vector<std::string> hits = spec_mentions(slurp(f));
    EXPECT_TRUE(hits.empty()) << f << ":" << joined(hits);
  }
}

// Messages are built at run time from string literals: none of src/ may
// name a spec file (comments may, for the developers).
TEST(UserText, NoStringLiteralInTheSourcesNamesASpecFile) {
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(source_dir()) / "src")) {
    std::string ext = e.path().extension().string();
    if (!e.is_regular_file() || (ext != ".cc" && ext != ".h")) continue;
    ++files;
    std::istringstream in(slurp(e.path()));
    int n = 0;
    for (std::string line; std::getline(in, line);) {
      ++n;
      // The string literals of the line, up to a // comment outside them.
      std::string literals;
      bool quoted = false;
      for (std::size_t i = 0; i < line.size(); ++i) {
        char c = line[i];
        if (quoted) {
          if (c == '\\' && i + 1 < line.size()) {
            literals += line.substr(i, 2);
            ++i;
          } else if (c == '"') {
            quoted = false;
            literals += '\n';
          } else {
            literals += c;
          }
        } else if (c == '"') {
          quoted = true;
        } else if (c == '\'' && i + 2 < line.size()) {
          i += line[i + 1] == '\\' ? 3 : 2;  // a character literal, which may be '"'
        } else if (c == '/' && i + 1 < line.size() && line[i + 1] == '/') {
          break;
        }
      }
      std::vector<std::string> hits = spec_mentions(literals);
      EXPECT_TRUE(hits.empty()) << e.path().string() << ":" << n << ": " << line;
    }
  }
  EXPECT_GT(files, 100);
}

}  // namespace
}  // namespace cc::test
