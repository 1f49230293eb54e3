// The user documentation stays true: every file and anchor README.md and
// docs/ point to exists, README's documentation list names every page of
// docs/, and the runs the reference pages show (`$ build/collcheck check …`
// followed by its output) print exactly that when run on this tree.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>

#include "test_util.h"

namespace cc::test {
namespace user_docs_test {

namespace fs = std::filesystem;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The text outside fenced code blocks.
std::string prose(const std::string& text) {
  std::string out;
  bool fenced = false;
  for (const std::string& l : lines_of(text)) {
    if (l.rfind("```", 0) == 0) {
      fenced = !fenced;
      continue;
    }
    if (!fenced) out += l + "\n";
  }
  return out;
}

// The anchor a Markdown renderer (GitHub's rule) gives a heading: lower
// case, punctuation dropped, spaces to '-'. Bytes of UTF-8 letters are kept.
std::string slug(const std::string& heading) {
  std::string s;
  for (unsigned char c : heading) {
    if (c >= 0x80 || std::isalnum(c) || c == '_' || c == '-') s += static_cast<char>(std::tolower(c));
    else if (c == ' ') s += '-';
  }
  return s;
}

std::vector<fs::path> user_pages() {
  fs::path root = source_dir();
  std::vector<fs::path> pages = {root / "README.md"};
  for (const auto& e : fs::directory_iterator(root / "docs"))
    if (e.path().extension() == ".md") pages.push_back(e.path());
  std::sort(pages.begin(), pages.end());
  return pages;
}

// The fenced blocks of `text` that show a run: a first line "$ COMMAND",
// then what it prints.
struct ShownRun {
  std::string command;
  std::string output;
};

std::vector<ShownRun> shown_runs(const std::string& text) {
  std::vector<ShownRun> runs;
  std::vector<std::string> block;
  bool fenced = false;
  for (const std::string& l : lines_of(text)) {
    if (l.rfind("```", 0) == 0) {
      if (fenced && !block.empty() && block[0].rfind("$ ", 0) == 0) {
        ShownRun r;
        r.command = block[0].substr(2);
        for (std::size_t i = 1; i < block.size(); ++i) r.output += block[i] + "\n";
        runs.push_back(r);
      }
      fenced = !fenced;
      block.clear();
      continue;
    }
    if (fenced) block.push_back(l);
  }
  return runs;
}

// Summary lines end with the time the check took, which varies.
std::string without_times(const std::string& s) {
  static const std::regex time(" in [0-9.]+ ms");
  return std::regex_replace(s, time, " in N ms");
}

TEST(UserDocs, FilesAndAnchorsTheyNameExist) {
  fs::path root = source_dir();
  static const std::regex named("`(docs/[A-Za-z0-9_.-]+|examples/[A-Za-z0-9_.-]+)`");
  static const std::regex link("\\]\\(([^)\\s]+)\\)");
  static const std::regex heading("^#+ (.*)$");
  int checked = 0;
  for (const fs::path& page : user_pages()) {
    std::string text = prose(slurp(page.string()));
    std::vector<std::string> anchors;
    for (const std::string& l : lines_of(text)) {
      std::smatch m;
      if (std::regex_match(l, m, heading)) anchors.push_back(slug(m[1]));
    }
    for (std::sregex_iterator it(text.begin(), text.end(), named), end; it != end; ++it, ++checked)
      EXPECT_TRUE(fs::exists(root / (*it)[1].str())) << page << " names " << (*it)[1];
    for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it, ++checked) {
      std::string target = (*it)[1];
      if (target.find("://") != std::string::npos) continue;
      std::size_t hash = target.find('#');
      if (hash == 0) {
        bool found = std::find(anchors.begin(), anchors.end(), target.substr(1)) != anchors.end();
        EXPECT_TRUE(found) << page << ": no heading for the anchor " << target;
        continue;
      }
      EXPECT_TRUE(fs::exists(page.parent_path() / target.substr(0, hash))) << page << " links to " << target;
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(UserDocs, TheAnchorRuleIsGitHubs) {
  EXPECT_EQ(slug("The operator (`op`)"), "the-operator-op");
  EXPECT_EQ(slug("What is an input error (exit 2) and what is a finding"),
            "what-is-an-input-error-exit-2-and-what-is-a-finding");
  EXPECT_EQ(slug("How the operator ran: CCU, AIV, AICPU"), "how-the-operator-ran-ccu-aiv-aicpu");
}

TEST(UserDocs, ReadmeListsEveryPage) {
  std::string readme = slurp(source_dir() + "/README.md");
  std::size_t from = readme.find("\n## Documentation\n");
  ASSERT_NE(from, std::string::npos);
  std::size_t to = readme.find("\n## ", from + 1);
  std::string list = readme.substr(from, to == std::string::npos ? std::string::npos : to - from);
  int pages = 0;
  for (const auto& e : fs::directory_iterator(fs::path(source_dir()) / "docs")) {
    if (e.path().extension() != ".md") continue;
    ++pages;
    std::string name = "`docs/" + e.path().filename().string() + "`";
    EXPECT_NE(list.find(name), std::string::npos) << name << " is missing from README.md's documentation list";
  }
  EXPECT_GE(pages, 14);
}

// The pages whose shown runs are rerun here. A run is skipped only when an
// input it names is not in the tree (a database of the reader's own).
TEST(UserDocs, ShownRunsPrintWhatThePagesShow) {
  static const std::regex input_arg("[A-Za-z0-9_./-]+\\.(jsonl|log|db|gz|zst|xml)");
  int run = 0, skipped = 0;
  for (const char* page : {"docs/TRACE_FORMAT.md", "docs/OPERATORS.md", "docs/HCCL_RECORDS.md"}) {
    std::string text = slurp(source_dir() + "/" + page);
    ASSERT_FALSE(text.empty()) << page;
    for (const ShownRun& r : shown_runs(text)) {
      if (r.command.find("build/collcheck check") == std::string::npos) continue;
      bool present = true;
      for (std::sregex_iterator it(r.command.begin(), r.command.end(), input_arg), end; it != end; ++it)
        present = present && fs::exists(fs::path(source_dir()) / (*it)[0].str());
      if (!present) {
        ++skipped;
        continue;
      }
      std::string command = r.command;
      command.replace(command.find("build/collcheck"), std::string("build/collcheck").size(), COLLCHECK_BINARY);
      std::string out = temp_path(fmt::format("user_docs_run{}.txt", run++));
      run_shell(fmt::format("cd '{}' && ( {} ) >'{}' 2>/dev/null", source_dir(), command, out));
      EXPECT_EQ(without_times(slurp(out)), without_times(r.output)) << page << ": $ " << r.command;
    }
  }
  EXPECT_GE(run, 6);
  EXPECT_LE(skipped, 2);
}

TEST(UserDocs, ShownRunsAreFoundAndTimesIgnored) {
  std::vector<ShownRun> runs = shown_runs("text\n```\n$ build/collcheck check a.jsonl\nline one\n```\n```\nno run\n```\n");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].command, "build/collcheck check a.jsonl");
  EXPECT_EQ(runs[0].output, "line one\n");
  EXPECT_EQ(without_times("PASS ranks=2 tasks=12 in 19 ms"), without_times("PASS ranks=2 tasks=12 in 3 ms"));
  EXPECT_NE(without_times("PASS ranks=2 tasks=12 in 19 ms"), without_times("FAIL ranks=2 tasks=12 in 19 ms"));
}

}  // namespace user_docs_test
}  // namespace cc::test
