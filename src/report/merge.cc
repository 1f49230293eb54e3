#include "report/merge.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <tuple>

#include "collcheck_version.h"
#include "report/json.h"

namespace cc {

namespace {

struct Entry {
  u64 file = 0, index = 0;
  std::string name;
  std::string json;  // the entry as written by its report, minified
  bool fail = false;
};

// The order key [file, case] of an entry; reports written before it existed
// have none and keep their position.
bool order_of(simdjson::dom::element e, u64& file, u64& index) {
  simdjson::dom::array order;
  if (e["order"].get(order)) return false;
  std::size_t n = order.size();
  if (n < 1 || order.at(0).get(file)) return false;
  if (n >= 2 && order.at(1).get(index)) return false;
  return true;
}

}  // namespace

Result<MergedReport> merge_reports(const std::vector<std::string>& paths) {
  std::vector<Entry> inputs, errors;
  simdjson::dom::parser parser;
  u64 fallback = 0;
  for (const std::string& path : paths) {
    simdjson::dom::element doc;
    auto err = parser.load(path).get(doc);
    if (err) return Error{fmt::format("{}: not a readable JSON report: {}", path, simdjson::error_message(err))};
    std::string_view tool;
    simdjson::dom::array list;
    if (doc["tool"].get(tool) || tool != "collcheck" || doc["inputs"].get(list))
      return Error{fmt::format("{}: not a collcheck JSON report", path)};
    for (simdjson::dom::element in : list) {
      Entry e;
      std::string_view name, verdict;
      if (in["file"].get(name) || in["verdict"].get(verdict))
        return Error{fmt::format("{}: an input entry lacks \"file\" or \"verdict\"", path)};
      e.name = std::string(name);
      e.fail = verdict == "FAIL";
      if (!order_of(in, e.file, e.index)) e.file = fallback++;
      e.json = simdjson::to_string(in);
      inputs.push_back(std::move(e));
    }
    simdjson::dom::array errs;
    if (!doc["errors"].get(errs)) {
      for (simdjson::dom::element in : errs) {
        Entry e;
        std::string_view name;
        if (in["file"].get(name)) return Error{fmt::format("{}: an error entry lacks \"file\"", path)};
        e.name = std::string(name);
        if (!order_of(in, e.file, e.index)) e.file = fallback++;
        e.json = simdjson::to_string(in);
        errors.push_back(std::move(e));
      }
    }
  }
  auto by_order = [](const Entry& a, const Entry& b) {
    return std::tie(a.file, a.index, a.name) < std::tie(b.file, b.index, b.name);
  };
  std::stable_sort(inputs.begin(), inputs.end(), by_order);
  std::stable_sort(errors.begin(), errors.end(), by_order);
  for (std::size_t i = 1; i < inputs.size(); ++i)
    if (inputs[i].name == inputs[i - 1].name && inputs[i].file == inputs[i - 1].file)
      return Error{fmt::format("operator {} appears in two reports (shards of different runs?)", inputs[i].name)};
  // Every shard that opened an unusable file reports it: keep it once.
  errors.erase(std::unique(errors.begin(), errors.end(),
                           [](const Entry& a, const Entry& b) { return a.name == b.name && a.json == b.json; }),
               errors.end());
  MergedReport m;
  for (const Entry& e : inputs) m.failed += e.fail;
  m.inputs = inputs.size();
  m.errors = errors.size();
  ReportSummary sum;
  sum.operators = m.inputs;
  sum.fail = m.failed;
  sum.pass = m.inputs - m.failed;
  sum.unusable = m.errors;
  sum.exit_status = merged_exit_status(m);
  m.json = fmt::format("{{\"tool\":\"collcheck\",\"version\":\"{}\",\"schemaVersion\":{},{},\"inputs\":[",
                       kCollcheckVersion, kReportSchemaVersion, json_summary(sum));
  for (std::size_t i = 0; i < inputs.size(); ++i) m.json += (i ? ",\n" : "") + inputs[i].json;
  m.json += "],\"errors\":[";
  for (std::size_t i = 0; i < errors.size(); ++i) m.json += (i ? "," : "") + errors[i].json;
  m.json += "]}\n";
  return m;
}

}  // namespace cc
