// docs/ERRORS.md and `collcheck explain`: every code collcheck can report and
// every named warning its sources can emit has a section; the binary carries
// the file as it is; explain prints a section, lists them, and refuses an
// unknown code with a suggestion.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "model/finding.h"
#include "report/error_docs.h"
#include "test_util.h"
#include "text/suggest.h"

namespace cc::test {
namespace {

namespace fs = std::filesystem;

std::string errors_md() { return slurp(fs::path(source_dir()) / "docs" / "ERRORS.md"); }

// The section of docs/ERRORS.md (as on disk) whose heading starts with `heading`.
std::string section_on_disk(const std::string& heading) {
  std::string md = errors_md();
  std::size_t at = md.find("\n## " + heading);
  if (at == std::string::npos) return {};
  ++at;
  std::size_t end = md.find("\n## ", at);
  std::string s = md.substr(at, end == std::string::npos ? std::string::npos : end - at);
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

// Every named-warning tag the sources can emit: string literals such as
// "CCU-W-SYNC-EMPTY" (a "-W-" tag), or any capitals-and-dashes literal on a
// line that sets a finding's tag ("ATOMIC-REDUCE-ORDER").
std::set<std::string> tags_in_sources() {
  std::set<std::string> tags;
  std::regex literal("\"([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)\"");
  for (const auto& e : fs::recursive_directory_iterator(fs::path(source_dir()) / "src")) {
    std::string ext = e.path().extension().string();
    if (!e.is_regular_file() || (ext != ".cc" && ext != ".h")) continue;
    std::istringstream in(slurp(e.path()));
    std::string line;
    while (std::getline(in, line)) {
      for (std::sregex_iterator it(line.begin(), line.end(), literal), end; it != end; ++it) {
        std::string tag = (*it)[1];
        if (tag.find("-W-") != std::string::npos || line.find("tag") != std::string::npos) tags.insert(tag);
      }
    }
  }
  return tags;
}

TEST(ErrorDocs, EveryCodeHasASection) {
  std::set<std::string> documented;
  for (const ErrorDoc& d : error_docs()) documented.insert(std::string(d.code));
  int codes = 0;
  for (int c = 1; c < 1000; ++c) {
    std::string_view name = code_name(static_cast<u16>(c));
    if (name.empty()) continue;
    ++codes;
    const ErrorDoc* d = find_error_doc(std::to_string(c));
    ASSERT_NE(d, nullptr) << c << " " << name << " has no section in docs/ERRORS.md";
    EXPECT_EQ(d->name, name) << c;
  }
  EXPECT_GE(codes, 30);
  // And no section for a code collcheck does not have.
  for (const ErrorDoc& d : error_docs()) {
    if (d.code == d.name) continue;
    EXPECT_EQ(code_name(static_cast<u16>(std::stoi(std::string(d.code)))), d.name) << d.code;
  }
}

TEST(ErrorDocs, EveryWarningTagInTheSourcesHasASection) {
  std::set<std::string> tags = tags_in_sources();
  // The scan must see the known families, or it would pass by finding nothing.
  for (const char* t : {"ATOMIC-REDUCE-ORDER", "STLOG-W-NOTIFY-AMBIGUOUS", "HCCLVM-W-NEVER-SYNCED",
                        "CCU-W-SYNC-EMPTY", "AIV-W-FLAG-RESENT", "MSCCL-W-LEGACY"})
    EXPECT_TRUE(tags.count(t)) << t << " not found in src/: the scan is broken";
  for (const std::string& t : tags) {
    const ErrorDoc* d = find_error_doc(t);
    ASSERT_NE(d, nullptr) << t << " is emitted by src/ but has no section in docs/ERRORS.md";
    EXPECT_EQ(d->code, t);
    EXPECT_EQ(d->name, t);
  }
  // And no section for a tag nothing emits.
  for (const ErrorDoc& d : error_docs()) {
    if (d.code == d.name) {
      EXPECT_TRUE(tags.count(std::string(d.code))) << d.code << " is documented, never emitted";
    }
  }
}

TEST(ErrorDocs, SectionsHaveTheirParts) {
  ASSERT_FALSE(error_docs().empty());
  std::string previous;
  for (const ErrorDoc& d : error_docs()) {
    SCOPED_TRACE(std::string(d.code));
    EXPECT_TRUE(parse_stage_tag(d.stage).has_value()) << "stage \"" << d.stage << "\"";
    EXPECT_GT(d.summary.size(), 20u);
    EXPECT_LT(d.summary.size(), 300u) << d.summary;
    EXPECT_EQ(d.summary.back(), '.') << d.summary;
    EXPECT_EQ(d.summary.find('\n'), std::string_view::npos);
    for (const char* part : {"**Trigger.** ", "**Example**", "**Usual cause.** ", "**Fix.** "})
      EXPECT_NE(d.body.find(part), std::string_view::npos) << "no " << part;
    EXPECT_EQ(d.section.substr(0, 3), "## ");
    EXPECT_EQ(d.section.substr(d.section.size() - d.body.size()), d.body);
    // Codes ascending, then tags in alphabetical order.
    std::string key = (d.code == d.name ? "1" : "0") + std::string(d.code);
    EXPECT_LT(previous, key);
    previous = key;
  }
}

TEST(ErrorDocs, TheBinaryCarriesTheFileAsItIs) {
  std::string md = errors_md();
  for (const ErrorDoc& d : error_docs())
    EXPECT_NE(md.find(std::string(d.section)), std::string::npos) << d.code << ": rebuild after editing ERRORS.md";
}

TEST(ErrorDocs, FilesItNamesExist) {
  std::string md = errors_md();
  std::regex path("`((?:tests|examples|docs)/[A-Za-z0-9_./-]+\\.[a-z]+)`");
  int n = 0;
  for (std::sregex_iterator it(md.begin(), md.end(), path), end; it != end; ++it, ++n) {
    std::string p = (*it)[1];
    if (p.find('*') != std::string::npos) continue;
    EXPECT_TRUE(fs::exists(fs::path(source_dir()) / p)) << p;
  }
  EXPECT_GT(n, 50);
}

TEST(ErrorDocs, LookupIgnoresCase) {
  const ErrorDoc* d = find_error_doc("302");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->name, "MEMCONFLICT_DETECTED");
  EXPECT_EQ(d->stage, "MemConflict");
  EXPECT_EQ(find_error_doc("memconflict_detected"), d);
  EXPECT_EQ(find_error_doc(" MemConflict_Detected "), d);
  const ErrorDoc* w = find_error_doc("atomic-reduce-order");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->code, "ATOMIC-REDUCE-ORDER");
  EXPECT_EQ(find_error_doc("999"), nullptr);
  EXPECT_EQ(find_error_doc("Exit status"), nullptr);
  EXPECT_EQ(find_error_doc(""), nullptr);
}

TEST(Explain, PrintsTheSection) {
  for (const char* arg : {"302", "memconflict_detected"}) {
    RunResult r = run_collcheck(std::string("explain ") + arg);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, section_on_disk("302 ") + "\n") << arg;
  }
  RunResult w = run_collcheck("explain Stlog-W-Notify-Ambiguous");
  EXPECT_EQ(w.status, 0) << w.err;
  EXPECT_EQ(w.out, section_on_disk("STLOG-W-NOTIFY-AMBIGUOUS\n") + "\n");
}

TEST(Explain, ListsEveryCode) {
  RunResult r = run_collcheck("explain --list");
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> lines;
  std::istringstream in(r.out);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), error_docs().size());
  EXPECT_EQ(lines.front(), "101 GRAPH_TRANSLATE_FAILED");
  EXPECT_NE(std::find(lines.begin(), lines.end(), "302 MEMCONFLICT_DETECTED"), lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(), "ATOMIC-REDUCE-ORDER"), lines.end());
}

TEST(Explain, UnknownCodeIsExit2WithASuggestion) {
  RunResult r = run_collcheck("explain MEMCONFLICT_DETECTD");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(r.err.rfind("collcheck: error: unknown code \"MEMCONFLICT_DETECTD\"", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("did you mean MEMCONFLICT_DETECTED?"), std::string::npos) << r.err;
  RunResult far = run_collcheck("explain no-such-thing-at-all");
  EXPECT_EQ(far.status, 2);
  EXPECT_EQ(far.err.rfind("collcheck: error: unknown code \"no-such-thing-at-all\"", 0), 0u) << far.err;
  EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;
  EXPECT_EQ(run_collcheck("explain").status, 2);
}

TEST(Suggest, ClosestWord) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("Check", "cHECK"), 0u);
  EXPECT_EQ(edit_distance("chekc", "check"), 1u);
  std::vector<std::string_view> words = {"check", "stats", "convert", "explain"};
  EXPECT_EQ(closest_word("chekc", words), std::optional<std::string_view>("check"));
  EXPECT_EQ(closest_word("EXPLAN", words), std::optional<std::string_view>("explain"));
  EXPECT_EQ(closest_word("zzzzzz", words), std::nullopt);
}

}  // namespace
}  // namespace cc::test
