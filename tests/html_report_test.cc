// The HTML report: the data it embeds (unit tests), and the page itself in
// headless Chromium on failing golden cases.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "pipeline/msccl.h"
#include "report/html/page.h"
#include "test_util.h"

namespace cc::test {
namespace {

namespace fs = std::filesystem;

// The JSON between <script type="application/json" id="cc-data"> and </script>.
std::string embedded_data(const std::string& page) {
  std::string open = "<script type=\"application/json\" id=\"cc-data\">";
  std::size_t a = page.find(open);
  if (a == std::string::npos) return "";
  a += open.size();
  return page.substr(a, page.find("</script>", a) - a);
}

// A ring of `n` ranks, one stream each: copy, RECORD to the next rank, WAIT
// for the previous one; rank 0 writes its OUTPUT a second time, unordered
// with rank 1's read of it when `race`.
std::string ring(u32 n, u32 rounds, bool race) {
  std::string s = header(fmt::format(R"({{"type":"AllGather","ranks":{},"dataType":"INT8","count":64}})", n));
  for (u32 r = 0; r < n; ++r)
    for (u32 k = 0; k < rounds; ++k) {
      s += fmt::format(
          R"({{"rank":{},"stream":0,"type":"TRANS_MEM","src":{{"rank":{},"type":"INPUT","offset":0,"len":64}},"dst":{{"rank":{},"type":"OUTPUT","offset":{},"len":64}}}})"
          "\n",
          r, r, r, (r * 64) % (64 * n));
      s += fmt::format(R"({{"rank":{},"stream":0,"type":"RECORD","waitRank":{},"notifyId":{}}})" "\n", r, (r + 1) % n, k);
      s += fmt::format(R"({{"rank":{},"stream":0,"type":"WAIT","recordRank":{},"notifyId":{}}})" "\n", r, (r + n - 1) % n, k);
    }
  if (race)
    s += R"({"rank":0,"stream":0,"type":"TRANS_MEM","src":{"rank":0,"type":"INPUT","offset":0,"len":64},"dst":{"rank":0,"type":"OUTPUT","offset":0,"len":64}})" "\n"
         R"({"rank":1,"stream":0,"type":"TRANS_MEM","src":{"rank":0,"type":"OUTPUT","offset":0,"len":64},"dst":{"rank":1,"type":"OUTPUT","offset":0,"len":64}})" "\n";
  return s;
}

struct Page {
  std::string html;
  simdjson::dom::parser parser;
  simdjson::dom::element data;
};

void make_page(Page& p, const std::string& text, u64 max_tasks, const std::string& file = "t.jsonl") {
  Result<ReadTrace> r = read_jsonl_string(text, file);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Trace& t = r.value().trace;
  CheckResult res = run_checks(t, {}, CheckOptions{});
  res.input = file;
  HtmlOptions opt;
  opt.max_tasks = max_tasks;
  p.html = format_html_report(t, build_graph(t), res, opt);
  std::string json = embedded_data(p.html);
  ASSERT_EQ(p.parser.parse(json).get(p.data), simdjson::SUCCESS) << json.substr(0, 200);
}

TEST(HtmlReport, EmbedsEveryTaskAccessAndFinding) {
  Page p;
  make_page(p, ring(3, 2, true), 1000);
  EXPECT_EQ(std::string_view(p.data["verdict"]), "FAIL");
  EXPECT_EQ(p.data["tasks"]["col"].get_array().size(), 20u);
  EXPECT_EQ(std::string_view(p.data["note"]), "");
  EXPECT_EQ(uint64_t(p.data["totalTasks"]), 20u);
  // Accesses: 8 copies read INPUT/OUTPUT and write OUTPUT, grouped by (rank, buffer).
  u64 accesses = 0;
  for (auto m : p.data["memory"].get_array()) accesses += m["acc"].get_array().size() / 4;
  EXPECT_EQ(accesses, 16u);
  bool found302 = false;
  for (auto f : p.data["findings"].get_array())
    if (int64_t(f["code"]) == 302) {
      found302 = true;
      EXPECT_EQ(f["tasks"].get_array().size(), 2u);
      EXPECT_EQ(f["refs"].get_array().size(), 2u);
    }
  EXPECT_TRUE(found302);
  // Columns: a permutation of the execution order.
  std::set<int64_t> cols;
  for (auto c : p.data["tasks"]["col"].get_array()) cols.insert(int64_t(c));
  EXPECT_EQ(cols.size(), 20u);
  EXPECT_EQ(*cols.rbegin(), 19);
}

TEST(HtmlReport, DepthColumnsFollowEveryEdge) {
  Page p;
  make_page(p, ring(4, 3, true), 1000);
  auto depth = p.data["tasks"]["depth"].get_array();
  auto lane = p.data["tasks"]["lane"].get_array();
  auto index = p.data["tasks"]["index"].get_array();
  auto partner = p.data["tasks"]["partner"].get_array();
  auto type = p.data["tasks"]["type"].get_array();
  std::size_t n = depth.size();
  ASSERT_EQ(n, 38u);
  std::map<std::pair<int64_t, int64_t>, int64_t> by_pos;  // (lane, index) -> depth
  std::set<int64_t> used;
  for (std::size_t i = 0; i < n; ++i) {
    by_pos[{int64_t(lane.at(i)), int64_t(index.at(i))}] = int64_t(depth.at(i));
    used.insert(int64_t(depth.at(i)));
  }
  for (const auto& [key, d] : by_pos) {
    auto prev = by_pos.find({key.first, key.second - 1});
    if (prev != by_pos.end()) {
      EXPECT_GT(d, prev->second) << "stream edge";
    }
  }
  for (std::size_t i = 0; i < n; ++i)
    if (std::string_view(type.at(i)) == "WAIT" && int64_t(partner.at(i)) >= 0) {
      EXPECT_GT(int64_t(depth.at(i)), int64_t(depth.at(std::size_t(int64_t(partner.at(i)))))) << "sync edge";
    }
  EXPECT_EQ(int64_t(p.data["executedDepthCols"]), int64_t(used.size())) << "dense columns";
  EXPECT_EQ(*used.rbegin() + 1, int64_t(used.size()));
  EXPECT_LT(used.size(), n) << "tasks of different streams share columns";
}

TEST(HtmlReport, SelfContainedAndSafeAgainstHostileNames) {
  Page p;
  make_page(p, ring(2, 1, false), 1000, "</script><script>alert(1)</script>.jsonl");
  EXPECT_EQ(p.html.find("<script>alert(1)"), std::string::npos);
  EXPECT_EQ(std::string_view(p.data["file"]), "</script><script>alert(1)</script>.jsonl");
  EXPECT_EQ(p.html.find("http:"), std::string::npos)
      << "nothing is loaded from a network: " << p.html.substr(p.html.find("http:") - 100, 200);
  EXPECT_EQ(p.html.find("https:"), std::string::npos);
  EXPECT_FALSE(std::regex_search(p.html, std::regex("<[a-z]+[^>]*\\s(src|href)=")));
  EXPECT_EQ(p.html.find("/*CC:"), std::string::npos) << "every marker filled";
}

// The <title> names the input (without its directories) and the verdict,
// escaped as HTML.
TEST(HtmlReport, TitleNamesTheInputAndItsVerdict) {
  Page p;
  make_page(p, ring(3, 1, true), 1000, "runs/ring64.jsonl");
  EXPECT_NE(p.html.find("<title>FAIL \u00b7 ring64.jsonl \u2014 collcheck</title>"), std::string::npos)
      << p.html.substr(0, 400);
  Page q;
  make_page(q, ring(3, 1, false), 1000, "a<b>&c.jsonl");
  std::string verdict(std::string_view(q.data["verdict"]));
  EXPECT_NE(q.html.find("<title>" + verdict + " \u00b7 a&lt;b&gt;&amp;c.jsonl \u2014 collcheck</title>"),
            std::string::npos)
      << q.html.substr(0, 400);
}

TEST(HtmlReport, LargeTraceShowsTheNeighbourhoodOfTheFindings) {
  Page p;
  make_page(p, ring(10, 20, true), 100);
  std::string note(std::string_view(p.data["note"]));
  EXPECT_NE(note.find("This trace has 602 tasks"), std::string::npos) << note;
  EXPECT_NE(note.find("edges of the findings' tasks"), std::string::npos) << note;
  u64 shown = p.data["tasks"]["col"].get_array().size();
  EXPECT_LE(shown, 100u);
  EXPECT_GE(shown, 2u);
  for (auto f : p.data["findings"].get_array())
    for (auto id : f["tasks"].get_array()) EXPECT_GE(int64_t(id), 0) << "the findings' tasks are all shown";
}

TEST(HtmlReport, LargePassingTraceShowsTheBeginning) {
  Page p;
  make_page(p, ring(10, 20, false), 50);
  std::string note(std::string_view(p.data["note"]));
  EXPECT_NE(note.find("the first 50 in execution order"), std::string::npos) << note;
  EXPECT_EQ(p.data["tasks"]["col"].get_array().size(), 50u);
}

// The README promises the neighbourhood "above 200 000 tasks": the number
// it names is the page's default budget.
TEST(HtmlReport, TheReadmesTaskBudgetIsTheDefault) {
  std::string readme = slurp(source_dir() + "/README.md");
  std::size_t at = readme.find("Above 200 000");
  ASSERT_NE(at, std::string::npos) << "README no longer names the HTML report's task budget";
  EXPECT_NE(readme.find("neighbourhood of the findings", at), std::string::npos);
  EXPECT_EQ(HtmlOptions{}.max_tasks, 200000u);
}

TEST(HtmlReport, DeadlockedTasksAfterTheExecutedOnes) {
  Page p;
  make_page(p, header(R"({"type":"AllGather","ranks":2,"dataType":"INT8","count":64})") +
                   R"({"rank":0,"stream":0,"type":"RECORD","waitRank":1,"notifyId":1}
{"rank":0,"stream":0,"type":"WAIT","recordRank":1,"notifyId":9}
{"rank":0,"stream":0,"type":"RECORD","waitRank":1,"notifyId":2}
{"rank":1,"stream":0,"type":"WAIT","recordRank":0,"notifyId":1}
)",
            1000);
  EXPECT_FALSE(bool(p.data["complete"]));
  EXPECT_EQ(int64_t(p.data["executedCols"]), 2);
  auto cols = p.data["tasks"]["col"].get_array();
  auto taus = p.data["tasks"]["tau"].get_array();
  int blocked_after = 0;
  for (std::size_t i = 0; i < cols.size(); ++i)
    if (int64_t(taus.at(i)) < 0) blocked_after += int64_t(cols.at(i)) > 2;
  EXPECT_EQ(blocked_after, 2);  // the blocked WAIT and the RECORD behind it
  EXPECT_EQ(p.data["blocked"].get_array().size(), 1u);
}

// ---- in a browser ----------------------------------------------------------

std::string chromium() {
  for (const char* name : {"chromium", "chromium-browser"}) {
    std::string p = find_program(name);
    if (!p.empty()) return p;
  }
  return "";
}

// Loads every URL in one headless Chromium, each in a frame of its own of the
// window's size (1400x900), and returns their DOMs after their scripts ran,
// in order. One browser start per test, not per look: a start costs 4-5 s
// of CPU, which over the looks below was most of the release suite's time.
// The report page renders at the end of its body, so every frame is drawn
// when the outer page's load event fires; that handler copies each frame's
// DOM between markers into a text script, whose content Chromium dumps as is.
std::vector<std::string> dump_doms(const std::string& browser, const std::vector<std::string>& urls,
                                   const std::string& profile) {
  std::string outer = profile + ".frames.html", out = profile + ".dom";
  {
    std::ofstream f(outer, std::ios::binary);
    f << "<!doctype html><html><body>\n";
    for (const std::string& url : urls)
      f << "<iframe width=\"1400\" height=\"900\" src=\"" << url << "\"></iframe>\n";
    f << "<script type=\"text/plain\" id=\"dump\"></script><script>\n"
         "window.addEventListener('load', function () {\n"
         "  let s = '';\n"
         "  document.querySelectorAll('iframe').forEach(function (fr, k) {\n"
         "    s += '\\n@@frame ' + k + '@@\\n' + fr.contentDocument.documentElement.outerHTML;\n"
         "  });\n"
         "  document.getElementById('dump').textContent = s + '\\n@@end@@\\n';\n"
         "});\n</script></body></html>\n";
  }
  fs::remove_all(profile);
  int rc = run_shell(fmt::format(
      "timeout 120 '{}' --headless --no-sandbox --disable-gpu --disable-dev-shm-usage "
      "--disable-background-networking --disable-component-update --disable-sync --no-first-run "
      "--allow-file-access-from-files --disable-web-security "
      "--user-data-dir='{}' --window-size=1500,1000 --dump-dom 'file://{}' >'{}' 2>/dev/null",
      browser, profile, outer, out));
  EXPECT_EQ(rc, 0) << "chromium failed on " << outer;
  std::string dom = slurp(out);
  std::vector<std::string> doms;
  for (std::size_t k = 0; k < urls.size(); ++k) {
    std::string open = fmt::format("\n@@frame {}@@\n", k);
    std::size_t a = dom.find(open);
    std::size_t b = a == std::string::npos ? a : dom.find(k + 1 < urls.size() ? fmt::format("\n@@frame {}@@\n", k + 1)
                                                                             : std::string("\n@@end@@\n"), a);
    EXPECT_NE(b, std::string::npos) << "no DOM of " << urls[k] << " in " << dom.substr(0, 2000);
    doms.push_back(b == std::string::npos ? std::string() : dom.substr(a + open.size(), b - a - open.size()));
  }
  return doms;
}

std::string dump_dom(const std::string& browser, const std::string& url, const std::string& profile) {
  return dump_doms(browser, {url}, profile).front();
}

std::string body_attr(const std::string& dom, const std::string& name) {
  std::smatch m;
  std::regex body("<body([^>]*)>");
  if (!std::regex_search(dom, m, body)) return "<no body>";
  std::string attrs = m[1];
  std::smatch a;
  if (!std::regex_search(attrs, a, std::regex(" " + name + "=\"([^\"]*)\""))) return "<absent>";
  return a[1];
}

// What the JSON report says about a case: per finding, "r/s/i" of its tasks.
std::vector<std::vector<std::string>> finding_tasks(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  EXPECT_EQ(parser.load(json).get(doc), simdjson::SUCCESS);
  std::vector<std::vector<std::string>> out;
  for (auto input : doc["inputs"].get_array())
    for (auto f : input["findings"].get_array()) {
      std::vector<std::string> tasks;
      for (auto t : f["tasks"].get_array())
        tasks.push_back(fmt::format("{}/{}/{}", int64_t(t["rank"]), int64_t(t["stream"]), int64_t(t["index"])));
      out.push_back(tasks);
    }
  return out;
}

TEST(HtmlReportBrowser, FindingsListedAndActivatedInChromium) {
  std::string browser = chromium();
  if (browser.empty()) {
    if (tools_required()) FAIL() << "chromium is not installed (scripts/test installs it)";
    GTEST_SKIP() << "chromium is not installed (scripts/test installs it)";
  }
  struct Case {
    std::string path, args;
  };
  for (const Case& c : {Case{"graph/102_103_typo.jsonl", ""},
                        Case{"mem/302_ccl_reuse.jsonl", "--stages graph,single,sync,mem"}}) {
    SCOPED_TRACE(c.path);
    std::string html = temp_path("report.html"), json = temp_path("report.json");
    RunResult r = run_collcheck(fmt::format("check -q --html {} --json {} {} {}/tests/cases/{}", html, json,
                                            c.args, source_dir(), c.path));
    ASSERT_EQ(r.status, 1) << r.out << r.err;
    std::vector<std::vector<std::string>> findings = finding_tasks(json);
    ASSERT_GE(findings.size(), 1u);
    // Without a fragment (the first look): the list, nothing active yet.
    // "#finding=K" (the others) activates finding K: its tasks, and only
    // they, are highlighted. Every finding: the looks share a browser.
    std::vector<std::string> urls = {"file://" + html};
    for (std::size_t k = 0; k < findings.size(); ++k) urls.push_back(fmt::format("file://{}#finding={}", html, k + 1));
    std::vector<std::string> doms = dump_doms(browser, urls, temp_path("chromium-profile"));
    const std::string& dom = doms[0];
    EXPECT_EQ(body_attr(dom, "data-ready"), "1") << dom.substr(0, 2000);
    EXPECT_EQ(body_attr(dom, "data-error"), "<absent>");
    std::regex item("<li class=\"finding sev-");
    auto n = std::distance(std::sregex_iterator(dom.begin(), dom.end(), item), std::sregex_iterator());
    EXPECT_EQ(static_cast<std::size_t>(n), findings.size());
    EXPECT_EQ(body_attr(dom, "data-highlighted"), "");
    for (std::size_t k = 0; k < findings.size(); ++k) {
      const std::string& dom = doms[k + 1];
      EXPECT_EQ(body_attr(dom, "data-error"), "<absent>");
      EXPECT_EQ(body_attr(dom, "data-active"), std::to_string(k + 1));
      std::string want;
      for (const std::string& t : findings[k]) want += (want.empty() ? "" : ",") + t;
      EXPECT_EQ(body_attr(dom, "data-highlighted"), want) << "finding " << k + 1;
      EXPECT_NE(dom.find(fmt::format("<li class=\"finding sev-{}", "")), std::string::npos);
      std::regex active("<li class=\"finding sev-\\w+ active\" data-index=\"" + std::to_string(k + 1) + "\"");
      EXPECT_TRUE(std::regex_search(dom, active)) << "finding " << k + 1 << " not marked active";
      // Its tasks listed in the detail panel with their full description.
      for (const std::string& t : findings[k])
        EXPECT_NE(dom.find("<li class=\"task hl\" data-task=\"" + t + "\""), std::string::npos) << t;
    }
  }
}

// Findings of the later stages name byte ranges in their text; the memory
// view goes to that (rank, buffer), even one no task accessed.
TEST(HtmlReportBrowser, MemoryViewGoesToTheBytesAFindingNames) {
  std::string browser = chromium();
  if (browser.empty()) {
    if (tools_required()) FAIL() << "chromium is not installed (scripts/test installs it)";
    GTEST_SKIP() << "chromium is not installed (scripts/test installs it)";
  }
  Result<ReadTrace> read = read_jsonl_string(ring(3, 1, false), "t.jsonl");
  ASSERT_TRUE(read.ok());
  const Trace& t = read.value().trace;
  CheckResult r = run_checks(t, {}, CheckOptions{});
  Finding missing = make_finding(406, StageTag::SemanticCheck,
                                 "Rank 2 SCRATCH [0x40,0x80): AllGather needs rank 1 INPUT [0x0,0x40) here, found nothing.");
  Finding race = make_finding(302, StageTag::MemConflict, "Unordered tasks touch overlapping bytes; at least one writes.");
  race.details = {"Bytes   : rank 1 INPUT [0x0,0x40)", "Earlier : rank 0 OUTPUT [0x0,0x40) (not this one)"};
  race.tasks = {0, 3};
  r.findings = {missing, race};
  r.pass = false;
  std::string html = temp_path("ranges.html");
  {
    std::ofstream f(html, std::ios::binary);
    f << format_html_report(t, build_graph(t), r);
  }
  std::vector<std::string> doms = dump_doms(
      browser, {"file://" + html + "#finding=1", "file://" + html + "#finding=2&axis=depth"},
      temp_path("chromium-profile-ranges"));
  std::string dom = doms[0];
  EXPECT_EQ(body_attr(dom, "data-error"), "<absent>");
  EXPECT_EQ(body_attr(dom, "data-buffer"), "rank 2 SCRATCH") << "a buffer only the finding names";
  EXPECT_EQ(body_attr(dom, "data-highlighted"), "");
  dom = doms[1];
  EXPECT_EQ(body_attr(dom, "data-buffer"), "rank 1 INPUT") << "the Bytes line, not the other ranges";
  EXPECT_EQ(body_attr(dom, "data-highlighted"), "0/0/0,1/0/0");
  EXPECT_EQ(body_attr(dom, "data-axis"), "depth");
  EXPECT_EQ(body_attr(dom, "data-error"), "<absent>");
}
// Writes the report of ring(n, rounds, race) to a file for the browser.
std::string ring_page_file(u32 n, u32 rounds, bool race, const std::string& name) {
  Result<ReadTrace> read = read_jsonl_string(ring(n, rounds, race), name);
  EXPECT_TRUE(read.ok());
  const Trace& t = read.value().trace;
  CheckResult r = run_checks(t, {}, CheckOptions{});
  r.input = name;
  std::string html = temp_path(name + ".html");
  std::ofstream f(html, std::ios::binary);
  f << format_html_report(t, build_graph(t), r);
  return html;
}

// Above 16 ranks the timeline opens on dependency depth; "axis=tau" in the
// URL still wins; 16 ranks or fewer keep the execution order.
TEST(HtmlReportBrowser, DepthAxisIsTheDefaultAboveSixteenRanks) {
  std::string browser = chromium();
  if (browser.empty()) {
    if (tools_required()) FAIL() << "chromium is not installed (scripts/test installs it)";
    GTEST_SKIP() << "chromium is not installed (scripts/test installs it)";
  }
  std::string big = ring_page_file(17, 1, false, "ring17.jsonl");
  std::string small = ring_page_file(16, 1, false, "ring16.jsonl");
  std::vector<std::string> doms =
      dump_doms(browser, {"file://" + big, "file://" + big + "#axis=tau", "file://" + small},
                temp_path("chromium-profile-axis"));
  std::string dom = doms[0];
  EXPECT_EQ(body_attr(dom, "data-ready"), "1") << dom.substr(0, 2000);
  EXPECT_EQ(body_attr(dom, "data-error"), "<absent>");
  EXPECT_EQ(body_attr(dom, "data-axis"), "depth");
  dom = doms[1];
  EXPECT_EQ(body_attr(dom, "data-axis"), "tau");
  dom = doms[2];
  EXPECT_EQ(body_attr(dom, "data-ready"), "1");
  EXPECT_EQ(body_attr(dom, "data-axis"), "tau");
}

// The task box: "rank/stream/index" and Enter selects that task; a name no
// task has says so. Driven through "#search=", which types into the box.
TEST(HtmlReportBrowser, TaskBoxSelectsATaskOrSaysThereIsNone) {
  std::string browser = chromium();
  if (browser.empty()) {
    if (tools_required()) FAIL() << "chromium is not installed (scripts/test installs it)";
    GTEST_SKIP() << "chromium is not installed (scripts/test installs it)";
  }
  std::string html = ring_page_file(4, 3, false, "ring4.jsonl");
  std::vector<std::string> doms = dump_doms(
      browser, {"file://" + html + "#search=3/0/7", "file://" + html + "#search=3/0/12"},
      temp_path("chromium-profile-search"));
  std::string dom = doms[0];
  EXPECT_EQ(body_attr(dom, "data-error"), "<absent>");
  EXPECT_EQ(body_attr(dom, "data-selected"), "3/0/7");
  EXPECT_EQ(body_attr(dom, "data-search-message"), "");
  EXPECT_NE(dom.find("<h3>Task 3/0/7</h3>"), std::string::npos);
  dom = doms[1];
  EXPECT_EQ(body_attr(dom, "data-error"), "<absent>");
  EXPECT_EQ(body_attr(dom, "data-selected"), "");
  EXPECT_EQ(body_attr(dom, "data-search-message"), "no task 3/0/12");
  EXPECT_NE(dom.find(">no task 3/0/12<"), std::string::npos);
}

// The arrows box hides the RECORD -> WAIT arrows and shows them again.
TEST(HtmlReportBrowser, ArrowsCanBeSwitchedOff) {
  std::string browser = chromium();
  if (browser.empty()) {
    if (tools_required()) FAIL() << "chromium is not installed (scripts/test installs it)";
    GTEST_SKIP() << "chromium is not installed (scripts/test installs it)";
  }
  std::string html = ring_page_file(3, 2, false, "ring3.jsonl");
  std::vector<std::string> doms = dump_doms(browser, {"file://" + html, "file://" + html + "#arrows=off"},
                                            temp_path("chromium-profile-arrows"));
  std::string dom = doms[0];
  EXPECT_EQ(body_attr(dom, "data-arrows"), "on");
  EXPECT_NE(body_attr(dom, "data-arrows-drawn"), "0");
  EXPECT_NE(body_attr(dom, "data-arrows-drawn"), "<absent>");
  dom = doms[1];
  EXPECT_EQ(body_attr(dom, "data-error"), "<absent>");
  EXPECT_EQ(body_attr(dom, "data-arrows"), "off");
  EXPECT_EQ(body_attr(dom, "data-arrows-drawn"), "0");
}

// Ranks: "#ranks=" filters the timeline's lanes as the rank box does,
// "#collapse=" folds a rank into one line as a click on its label does, and
// selecting a task there opens it again.
TEST(HtmlReportBrowser, RanksFilteredAndCollapsed) {
  std::string browser = chromium();
  if (browser.empty()) {
    if (tools_required()) FAIL() << "chromium is not installed (scripts/test installs it)";
    GTEST_SKIP() << "chromium is not installed (scripts/test installs it)";
  }
  std::string html = ring_page_file(4, 1, false, "ring4r.jsonl");
  std::vector<std::string> doms;
  for (const char* fragment : {"", "#ranks=0-1,3", "#ranks=1-x", "#collapse=2,3", "#collapse=2,3&search=2/0/1",
                               "#ranks=0-1&search=3/0/1"})
    doms.push_back("file://" + html + fragment);
  doms = dump_doms(browser, doms, temp_path("chromium-profile-ranks"));
  std::string dom = doms[0];
  EXPECT_EQ(body_attr(dom, "data-slots"), "4");
  dom = doms[1];
  EXPECT_EQ(body_attr(dom, "data-error"), "<absent>");
  EXPECT_EQ(body_attr(dom, "data-slots"), "3");
  dom = doms[2];
  EXPECT_EQ(body_attr(dom, "data-slots"), "4") << "a filter that does not parse changes nothing";
  EXPECT_NE(dom.find(">ranks: e.g. 0-3,8<"), std::string::npos);
  dom = doms[3];
  EXPECT_EQ(body_attr(dom, "data-error"), "<absent>");
  EXPECT_EQ(body_attr(dom, "data-collapsed"), "2,3");
  dom = doms[4];
  EXPECT_EQ(body_attr(dom, "data-selected"), "2/0/1");
  EXPECT_EQ(body_attr(dom, "data-collapsed"), "3") << "selecting a task opens its rank";
  dom = doms[5];
  EXPECT_EQ(body_attr(dom, "data-error"), "<absent>");
  EXPECT_EQ(body_attr(dom, "data-selected"), "3/0/1");
  EXPECT_EQ(body_attr(dom, "data-slots"), "3") << "a task searched for shows its rank";
  EXPECT_EQ(body_attr(dom, "data-rank-filter"), "0-1,3");
}

// AIV launches (docs/AIV_MODE.md): a row per block and pipe of each launch,
// shown under the host stream that started it, and AIV node names.
TEST(HtmlReport, AivLanesUnderTheirHostStream) {
  std::string html = temp_path("aiv_report.html");
  RunResult r = run_collcheck(
      fmt::format("check -q --html {} {}/tests/cases/aiv/example2_missing_wait.jsonl", html, source_dir()));
  ASSERT_EQ(r.status, 1) << r.out << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element data;
  ASSERT_EQ(parser.parse(embedded_data(slurp(html))).get(data), simdjson::SUCCESS);
  u32 launches = 0;
  for (auto l : data["lanes"].get_array())
    if (l.get_array().size() == 4) {
      ++launches;
      EXPECT_EQ(int64_t(l.at(3)), 0);  // started by stream 0
    }
  EXPECT_EQ(launches, 2u);
  std::set<int64_t> subs;
  std::set<std::string> sub_names, names;
  auto sub = data["tasks"]["sub"].get_array();
  auto sub_name = data["tasks"]["subName"].get_array();
  auto name = data["tasks"]["name"].get_array();
  for (std::size_t i = 0; i < sub.size(); ++i) {
    subs.insert(int64_t(sub.at(i)));
    sub_names.insert(std::string(std::string_view(sub_name.at(i))));
    names.insert(std::string(std::string_view(name.at(i))));
  }
  EXPECT_EQ(subs, (std::set<int64_t>{-1, 0, 1, 2, 3}));  // placeholders, START/END, S, MTE2, MTE3
  EXPECT_TRUE(sub_names.count("L0.b0.MTE2"));
  EXPECT_TRUE(sub_names.count("L0"));
  EXPECT_TRUE(names.count("0/0/0:L0.b0.MTE2[0]"));
}

TEST(HtmlReportBrowser, AivReportLoadsAndHighlightsAivNodes) {
  std::string browser = chromium();
  if (browser.empty()) {
    if (tools_required()) FAIL() << "chromium is not installed (scripts/test installs it)";
    GTEST_SKIP() << "chromium is not installed (scripts/test installs it)";
  }
  std::string html = temp_path("aiv_browser.html");
  RunResult r = run_collcheck(
      fmt::format("check -q --html {} {}/tests/cases/aiv/example2_missing_wait.jsonl", html, source_dir()));
  ASSERT_EQ(r.status, 1) << r.out << r.err;
  std::string profile = temp_path("chromium-profile-aiv");
  // Finding 2 is the first 302: MTE2[0] against MTE3[0] of rank 0.
  std::string dom = dump_dom(browser, fmt::format("file://{}#finding=2", html), profile);
  EXPECT_EQ(body_attr(dom, "data-ready"), "1") << dom.substr(0, 2000);
  EXPECT_EQ(body_attr(dom, "data-error"), "<absent>");
  EXPECT_EQ(body_attr(dom, "data-highlighted"), "0/0/0:L0.b0.MTE2[0],0/0/0:L0.b0.MTE3[0]");
}

// An MSCCL file: thread blocks are lanes named after their peers, tasks are
// named by their steps (gpu/tb/s), sends -> receives are message arrows.
TEST(HtmlReport, MscclThreadBlocksAsLanesAndMessages) {
  Result<std::vector<MscclCase>> cases =
      read_msccl_file(source_dir() + "/tests/cases/msccl/ex2_ring_allgather_4_missing_dep.xml", {});
  ASSERT_TRUE(cases.ok()) << cases.error().message;
  MscclCase& c = cases.value().front();
  const Trace& t = c.trace;
  CheckResult res = run_checks(t, std::move(c.findings), CheckOptions{});
  std::string html = format_html_report(t, build_graph(t), res, HtmlOptions{});
  Page p;
  ASSERT_EQ(p.parser.parse(embedded_data(html)).get(p.data), simdjson::SUCCESS);
  std::set<std::string> lanes;  // [rank, stream, tasks, host stream or -1, lane name]
  for (auto l : p.data["lanes"].get_array()) lanes.insert(std::string(std::string_view(l.at(4))));
  EXPECT_TRUE(lanes.count("tb 0"));
  EXPECT_TRUE(lanes.count("tb 1 \u2192" "2 \u2190" "0")) << "rank 1's ring block";
  std::set<std::string> pos;
  for (auto x : p.data["tasks"]["pos"].get_array()) pos.insert(std::string(std::string_view(x)));
  EXPECT_TRUE(pos.count("1/0/0") && pos.count("1/1/0") && pos.count("1/1/start"));
  int messages = 0;
  for (auto m : p.data["tasks"]["msg"].get_array()) messages += int64_t(m) == 1;
  EXPECT_EQ(messages, 12);  // 3 sends on each of 4 ranks
  // Not in a trace of HCCL's: the lanes keep three fields, no pos or msg.
  Page q;
  make_page(q, ring(3, 1, false), 1000);
  EXPECT_EQ(q.data["lanes"].at(0).get_array().size(), 3u);
  EXPECT_EQ(q.data["tasks"]["pos"].error(), simdjson::NO_SUCH_FIELD);

  std::string browser = chromium();
  if (browser.empty()) return;  // the page itself: in the browser tests' environment only
  std::string file = temp_path("msccl.html");
  {
    std::ofstream f(file, std::ios::binary);
    f << html;
  }
  std::string dom = dump_dom(browser, "file://" + file + "#finding=1", temp_path("chromium-profile-msccl"));
  EXPECT_EQ(body_attr(dom, "data-ready"), "1");
  EXPECT_EQ(body_attr(dom, "data-error"), "<absent>");
  EXPECT_EQ(body_attr(dom, "data-highlighted"), "1/0/0,1/1/0") << "the 302's two steps, named gpu/tb/s";
}

}  // namespace
}  // namespace cc::test
