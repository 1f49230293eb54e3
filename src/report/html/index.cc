#include "report/html/index.h"

#include <fmt/format.h>

#include <algorithm>

#include "text/xml.h"

namespace cc {

std::string format_html_index(const std::string& input, const std::vector<HtmlIndexEntry>& entries) {
  u64 failed = static_cast<u64>(std::count_if(entries.begin(), entries.end(),
                                              [](const HtmlIndexEntry& e) { return !e.pass; }));
  std::vector<const HtmlIndexEntry*> order;
  for (const HtmlIndexEntry& e : entries) order.push_back(&e);
  // Failures first (what a reader came for), each group in input order.
  std::stable_partition(order.begin(), order.end(), [](const HtmlIndexEntry* e) { return !e->pass; });
  std::string title = fmt::format("{} · {} operators, {} FAIL — collcheck", input, entries.size(), failed);
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"generator\" content=\"collcheck\">\n<title>{}</title>\n<style>\n"
      "body{{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#1f2933}}"
      "table{{border-collapse:collapse}}td,th{{padding:.3em .8em;border-bottom:1px solid #e4e7eb;text-align:left}}"
      ".PASS{{color:#1b7a3a;font-weight:600}}.FAIL{{color:#b42318;font-weight:600}}"
      "td.n{{text-align:right;font-variant-numeric:tabular-nums}}\n</style>\n</head>\n<body>\n"
      "<h1>{}</h1>\n<p>{} operators: {} PASS, {} FAIL. Each links to its own report.</p>\n"
      "<table id=\"operators\">\n<tr><th>verdict</th><th>operator</th><th>errors</th><th>warnings</th></tr>\n",
      xml_escape(title), xml_escape(input), entries.size(), entries.size() - failed, failed);
  for (const HtmlIndexEntry* e : order) {
    const char* verdict = e->pass ? "PASS" : "FAIL";
    out += fmt::format(
        "<tr><td class=\"{0}\">{0}</td><td><a href=\"{1}\">{2}</a></td><td class=\"n\">{3}</td>"
        "<td class=\"n\">{4}</td></tr>\n",
        verdict, xml_escape(e->page), xml_escape(e->name), e->errors, e->warnings);
  }
  out += "</table>\n</body>\n</html>\n";
  return out;
}

}  // namespace cc
