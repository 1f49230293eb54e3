#include "report/html/page.h"

#include <string_view>

#include "html_assets.h"
#include "text/xml.h"

namespace cc {

namespace {

// The page template with each marker replaced, in the order the markers
// appear in it; inserted text is never searched for markers.
std::string fill(std::string_view tpl,
                 std::initializer_list<std::pair<std::string_view, std::string_view>> parts) {
  std::string page;
  for (const auto& [marker, text] : parts) {
    std::size_t at = tpl.find(marker);
    if (at == std::string_view::npos) continue;
    page.append(tpl.substr(0, at));
    page.append(text);
    tpl.remove_prefix(at + marker.size());
  }
  page.append(tpl);
  return page;
}

// "FAIL · ring64.jsonl — collcheck": a browser tab or a window list names the
// input and its verdict, the file name without its directories; escaped as
// XML, which is also valid HTML text.
std::string page_title(const CheckResult& r) {
  std::string_view file = r.input;
  std::size_t slash = file.find_last_of('/');
  if (slash != std::string_view::npos && slash + 1 < file.size()) file.remove_prefix(slash + 1);
  if (file.empty()) file = "report";
  return xml_escape(std::string(r.pass ? "PASS" : "FAIL") + " \u00b7 " + std::string(file) + " \u2014 collcheck");
}

}  // namespace

std::string format_html_report(const Trace& t, const TaskGraph& g, const CheckResult& r,
                               const HtmlOptions& opt) {
  std::string data = html_report_data(t, g, r, opt);
  // '<' appears only inside JSON strings, where \u003c means the same; so no
  // "</script>" or "<!--" in a file name or message can end the data block.
  std::string safe;
  safe.reserve(data.size());
  for (char c : data) {
    if (c == '<') safe += "\\u003c";
    else safe += c;
  }
  std::string title = page_title(r);
  return fill(assets::kAsset_report_html, {{"/*CC:TITLE*/", title},
                                           {"/*CC:STYLE*/", assets::kAsset_report_css},
                                           {"/*CC:DATA*/", safe},
                                           {"/*CC:SCRIPT*/", assets::kAsset_report_js}});
}

}  // namespace cc
