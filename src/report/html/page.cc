#include "report/html/page.h"

#include "html_assets.h"

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
  return fill(assets::kAsset_report_html, {{"/*CC:STYLE*/", assets::kAsset_report_css},
                                           {"/*CC:DATA*/", safe},
                                           {"/*CC:SCRIPT*/", assets::kAsset_report_js}});
}

}  // namespace cc
