#include "io/stlog/syntax.h"

#include <fmt/format.h>

#include <array>

namespace cc {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// Decimal digits only, at most 2^64-1.
std::optional<u64> parse_digits(std::string_view s) {
  if (s.empty()) return std::nullopt;
  u64 v = 0;
  for (char c : s) {
    if (!is_digit(c)) return std::nullopt;
    u64 d = static_cast<u64>(c - '0');
    if (v > (~u64{0} - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

// A `%d` field: optional '-' and digits, as a signed 64-bit integer.
std::optional<std::int64_t> parse_signed(std::string_view s) {
  bool neg = !s.empty() && s[0] == '-';
  auto v = parse_digits(neg ? s.substr(1) : s);
  if (!v) return std::nullopt;
  if (neg) {
    if (*v > u64{1} << 63) return std::nullopt;
    return static_cast<std::int64_t>(0 - *v);
  }
  if (*v >= u64{1} << 63) return std::nullopt;
  return static_cast<std::int64_t>(*v);
}

constexpr std::array<std::string_view, 11> kKindNames = {
    "LocalCopy", "LocalReduce", "LocalBatchReduce", "LocalPostTo", "LocalWaitFrom", "Post",
    "Wait",      "Read",        "ReadReduce",       "Write",       "WriteReduce"};

// Kinds with a Describe() format that never belong in a primary-queue dump
// of the v1 framework (§4.2).
constexpr std::array<std::string_view, 20> kUnsupportedKinds = {
    "BeingRead",  "BeingReadReduce", "BeingWritten",   "BeingWrittenReduce", "LocalPostToShadow",
    "LocalWaitFromShadow", "LoopStart", "LoopEnd",     "SetFlag",            "WaitFlag",
    "SendSync",   "RecvSync",        "SendSyncReduce", "SetValue",           "CompValue",
    "PipeBarrier", "AivStart",       "AivEnd",         "BlockStart",         "VirtualRankStart"};

constexpr std::array<std::string_view, 5> kNotifyTypeNames = {"READY", "FIN", "FIN_ACK", "CCU", "INVALID_A"};
constexpr std::array<std::string_view, 4> kLinkNames = {"SDMA", "RDMA", "CCU", "INVALID_A"};

// CheckerDataType value -> collcheck data type (§4.3).
constexpr std::array<DataType, 16> kCheckerDataTypes = {
    DataType::INT8,   DataType::INT16,  DataType::INT32, DataType::FP16,  DataType::FP32,  DataType::INT64,
    DataType::UINT64, DataType::UINT8,  DataType::UINT16, DataType::UINT32, DataType::FP64, DataType::BFP16,
    DataType::INT128, DataType::HIF8,   DataType::FP8E4M3, DataType::FP8E5M2};

// Splits `s` at the commas of bracket depth 0 and trims the pieces.
// False on unbalanced brackets or more than `max` pieces.
template <std::size_t N>
bool split_depth0(std::string_view s, std::array<std::string_view, N>& out, std::size_t& n) {
  n = 0;
  if (trim(s).empty()) return true;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    char c = i < s.size() ? s[i] : ',';
    if (c == '[') ++depth;
    else if (c == ']' && --depth < 0) return false;
    else if (c == ',' && depth == 0) {
      if (n == N) return false;
      out[n++] = trim(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return depth == 0;
}

struct Attr {
  std::string_view key, value;
};

// The attributes of a task line, looked up by key.
class Attrs {
 public:
  Status parse(std::string_view text) {
    std::array<std::string_view, 16> pieces;
    if (!split_depth0(text, pieces, n_)) return Error{"unbalanced brackets or too many attributes"};
    for (std::size_t i = 0; i < n_; ++i) {
      std::size_t eq = pieces[i].find('=');
      if (eq == std::string_view::npos) return Error{fmt::format("attribute \"{}\" has no '='", pieces[i])};
      attrs_[i] = {trim(pieces[i].substr(0, eq)), trim(pieces[i].substr(eq + 1))};
      for (std::size_t j = 0; j < i; ++j)
        if (attrs_[j].key == attrs_[i].key) return Error{fmt::format("attribute \"{}\" appears twice", attrs_[i].key)};
    }
    return {};
  }
  const std::string_view* find(std::string_view key) const {
    for (std::size_t i = 0; i < n_; ++i)
      if (attrs_[i].key == key) return &attrs_[i].value;
    return nullptr;
  }

 private:
  std::array<Attr, 16> attrs_;
  std::size_t n_ = 0;
};

// `Class::NAME` with NAME one of `names`.
template <std::size_t N>
std::optional<std::size_t> enum_value(std::string_view v, std::string_view cls,
                                      const std::array<std::string_view, N>& names) {
  if (!v.starts_with(cls) || v.substr(cls.size(), 2) != "::") return std::nullopt;
  v.remove_prefix(cls.size() + 2);
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == v) return i;
  return std::nullopt;
}

Status parse_slice(std::string_view v, std::string_view key, StSlice& out) {
  if (!v.starts_with("DataSlice[") || !v.ends_with("]"))
    return Error{fmt::format("{} must be DataSlice[BufferType::NAME, offset=O, size=S]", key)};
  std::array<std::string_view, 3> parts;
  std::size_t n = 0;
  if (!split_depth0(v.substr(10, v.size() - 11), parts, n) || n != 3)
    return Error{fmt::format("{} must be DataSlice[BufferType::NAME, offset=O, size=S]", key)};
  if (!parts[0].starts_with("BufferType::") || !st_buffer_type_valid(parts[0].substr(12)))
    return Error{fmt::format("{}: unknown buffer type \"{}\"", key, parts[0])};
  out.buf = parts[0].substr(12);
  for (std::size_t i = 1; i < 3; ++i) {
    std::size_t eq = parts[i].find('=');
    std::string_view k = eq == std::string_view::npos ? parts[i] : trim(parts[i].substr(0, eq));
    if ((i == 1 && k != "offset") || (i == 2 && k != "size"))
      return Error{fmt::format("{} must be DataSlice[BufferType::NAME, offset=O, size=S]", key)};
    auto num = parse_digits(trim(parts[i].substr(eq + 1)));
    if (!num) return Error{fmt::format("{}: {} must be an unsigned decimal of at most 64 bits", key, k)};
    (i == 1 ? out.offset : out.size) = *num;
  }
  return {};
}

// The attribute parsers below fail with what is wrong.
struct Fields {
  const Attrs& a;
  std::string_view kind;

  Status need(std::string_view key, std::string_view& v) const {
    const std::string_view* p = a.find(key);
    if (!p) return Error{fmt::format("{} lacks {}", kind, key)};
    v = *p;
    return {};
  }
  // A %d field that must not be negative.
  Status number(std::string_view key, u64& out) const {
    std::string_view v;
    CC_TRY(need(key, v));
    auto n = parse_signed(v);
    if (!n) return Error{fmt::format("{}: {} \"{}\" is not a decimal integer", kind, key, v)};
    if (*n < 0) return Error{fmt::format("{}: {} is negative ({})", kind, key, *n)};
    out = static_cast<u64>(*n);
    return {};
  }
  Status slice(std::string_view key, StSlice& out) const {
    std::string_view v;
    CC_TRY(need(key, v));
    if (Status st = parse_slice(v, key, out); !st) return Error{fmt::format("{}: {}", kind, st.message())};
    return {};
  }
  Status reduce(StTask& t) const {
    u64 d = 0, o = 0;
    CC_TRY(number("dataType", d));
    auto dt = st_data_type(static_cast<std::int64_t>(d));
    if (!dt) return Error{fmt::format("{}: dataType {} is not a CheckerDataType (0-15)", kind, d)};
    CC_TRY(number("reduceOp", o));
    auto op = st_reduce_op(static_cast<std::int64_t>(o));
    if (!op) return Error{fmt::format("{}: reduceOp {} is not a CheckerReduceOp (0-3)", kind, o)};
    t.data_type = *dt;
    t.reduce_op = *op;
    return {};
  }
  Status link(StTask& t) const {
    std::string_view v;
    CC_TRY(need("link", v));
    constexpr std::string_view kProto = "link prototyp=";
    auto l = v.starts_with(kProto) ? enum_value(v.substr(kProto.size()), "LinkProtoStub", kLinkNames)
                                    : std::nullopt;
    if (!l) return Error{fmt::format("{}: link \"{}\" is not \"link prototyp=LinkProtoStub::NAME\"", kind, v)};
    t.link = static_cast<StLink>(*l);
    return {};
  }
};

Status parse_attrs(std::string_view text, StTask& t) {
  // The attributes of kinds collcheck does not model are opaque.
  if (t.kind == StKind::AivTaskStub || t.kind == StKind::Unsupported || t.kind == StKind::Unknown) return {};
  Attrs a;
  if (Status st = a.parse(text); !st) return Error{fmt::format("{}: {}", t.kind_name, st.message())};
  Fields f{a, t.kind_name};
  // Every field is read (in order), and the first failure is the answer.
  auto all = [](std::initializer_list<Status> results) -> Status {
    for (const Status& r : results)
      if (!r) return r;
    return {};
  };
  switch (t.kind) {
    case StKind::LocalCopy:
      t.srcs.emplace_back();
      return all({f.slice("srcSlice", t.srcs[0]), f.slice("dstSlice", t.dst)});
    case StKind::LocalReduce:
      t.srcs.emplace_back();
      return all({f.reduce(t), f.slice("srcSlice", t.srcs[0]), f.slice("dstSlice", t.dst)});
    case StKind::LocalBatchReduce: {
      CC_TRY(f.reduce(t));
      std::string_view list;
      CC_TRY(f.need("srcSlice", list));
      std::array<std::string_view, 1024> items;
      std::size_t n = 0;
      if (!list.starts_with("[") || !list.ends_with("]") || !split_depth0(list.substr(1, list.size() - 2), items, n))
        return Error{fmt::format("{}: srcSlice must be a list [DataSlice[...],...] of at most 1024 slices", t.kind_name)};
      for (std::size_t i = 0; i < n; ++i) {
        StSlice s;
        if (Status st = parse_slice(items[i], "srcSlice", s); !st)
          return Error{fmt::format("{}: {}", t.kind_name, st.message())};
        t.srcs.push_back(s);
      }
      return f.slice("dstSlice", t.dst);
    }
    case StKind::LocalPostTo:
    case StKind::LocalWaitFrom:
      return f.number("topicId", t.topic);
    case StKind::Post:
    case StKind::Wait: {
      CC_TRY(all({f.number("remoteRank", t.remote), f.link(t)}));
      const std::string_view* type = a.find("notifyType");
      const std::string_view* topic = a.find("topicId");
      if (type && topic) return Error{fmt::format("{} has both notifyType and topicId", t.kind_name)};
      if (!type && !topic) return Error{fmt::format("{} lacks notifyType (or topicId in the CCU form)", t.kind_name)};
      if (type) {
        auto n = enum_value(*type, "NotifyTypeStub", kNotifyTypeNames);
        if (!n) return Error{fmt::format("{}: unknown notifyType \"{}\"", t.kind_name, *type)};
        t.notify_type = static_cast<StNotifyType>(*n);
      } else {
        t.ccu_form = true;
        t.notify_type = StNotifyType::CCU;
        CC_TRY(f.number("topicId", t.topic));
      }
      if (const std::string_view* tag = a.find("originated tag")) t.tag = *tag;
      return {};
    }
    case StKind::Read:
    case StKind::Write:
      return all({f.number("remoteRank", t.remote), f.link(t), f.slice("localSlice", t.local),
                  f.slice("remoteSlice", t.remote_slice)});
    case StKind::ReadReduce:
    case StKind::WriteReduce:
      return all({f.number("remoteRank", t.remote), f.link(t), f.reduce(t), f.slice("localSlice", t.local),
                  f.slice("remoteSlice", t.remote_slice)});
    case StKind::AivTaskStub:
    case StKind::Unsupported:
    case StKind::CcuGraph:
    case StKind::Unknown:
      return {};
  }
  return {};
}

// "[0-9: .-]+ *" then "][pid:N][LEVEL]": the prefix of a log line (§2).
bool log_level(std::string_view line, std::string_view& level, std::string_view& rest) {
  if (line.empty() || line[0] != '[') return false;
  std::size_t i = 1;
  while (i < line.size() && (is_digit(line[i]) || line[i] == ':' || line[i] == ' ' || line[i] == '.' || line[i] == '-'))
    ++i;
  if (i == 1 || !line.substr(i).starts_with("][pid:")) return false;
  i += 6;
  std::size_t d = i;
  while (i < line.size() && is_digit(line[i])) ++i;
  if (i == d || !line.substr(i).starts_with("][")) return false;
  i += 2;
  std::size_t close = line.find(']', i);
  if (close == std::string_view::npos) return false;
  level = line.substr(i, close - i);
  rest = line.substr(close + 1);
  return level == "ERROR" || level == "WARNING" || level == "INFO" || level == "DEBUG" || level == "EVENT";
}

}  // namespace

std::string_view st_kind_name(StKind k) {
  auto i = static_cast<std::size_t>(k);
  return i < kKindNames.size() ? kKindNames[i] : std::string_view();
}

std::string_view name(StNotifyType t) { return kNotifyTypeNames[static_cast<std::size_t>(t)]; }
std::string_view name(StLink l) { return kLinkNames[static_cast<std::size_t>(l)]; }

std::optional<StNotifyType> parse_st_notify_type(std::string_view s) {
  for (std::size_t i = 0; i < kNotifyTypeNames.size(); ++i)
    if (kNotifyTypeNames[i] == s) return static_cast<StNotifyType>(i);
  return std::nullopt;
}

std::optional<StLink> parse_st_link(std::string_view s) {
  for (std::size_t i = 0; i < kLinkNames.size(); ++i)
    if (kLinkNames[i] == s) return static_cast<StLink>(i);
  return std::nullopt;
}

std::optional<DataType> st_data_type(std::int64_t v) {
  if (v < 0 || v >= static_cast<std::int64_t>(kCheckerDataTypes.size())) return std::nullopt;
  return kCheckerDataTypes[static_cast<std::size_t>(v)];
}

int st_data_type_value(DataType t) {
  for (std::size_t i = 0; i < kCheckerDataTypes.size(); ++i)
    if (kCheckerDataTypes[i] == t) return static_cast<int>(i);
  return 0;  // FP8E8M0: HCCL's map lookup creates a default entry (§4.3)
}

std::optional<ReduceOp> st_reduce_op(std::int64_t v) {
  if (v < 0 || v >= kReduceOpCount) return std::nullopt;
  return static_cast<ReduceOp>(v);
}

const std::vector<std::string_view>& st_buffer_types() {
  static const std::vector<std::string_view> kNames = {
      "INPUT",     "OUTPUT",     "INPUT_CCL",    "OUTPUT_CCL",  "SCRATCH",
      "INPUT_AIV", "OUTPUT_AIV", "AIV_COMMINFO", "USERBUF_AIV", "MS"};
  return kNames;
}

bool st_buffer_type_valid(std::string_view s) {
  for (std::string_view n : st_buffer_types())
    if (n == s) return true;
  return false;
}

StLine classify_st_line(std::string_view line) {
  StLine out;
  auto name_ok = [](std::string_view n) {
    if (n.empty()) return false;
    for (char c : n)
      if (is_blank(c)) return false;
    return true;
  };
  if (line.starts_with(kStTaskPrefix)) {
    out.cls = StLineClass::TaskLine;
  } else if (line.starts_with(kStRunPrefix)) {
    if (name_ok(line.substr(kStRunPrefix.size()))) {
      out.cls = StLineClass::GtestStart;
      out.text = line.substr(kStRunPrefix.size());
    }
  } else if (line.starts_with(kStOkPrefix) || line.starts_with(kStFailPrefix)) {
    // "name (N ms)"; the summary repeats "[  FAILED  ] name" without a timing.
    std::size_t open = line.rfind(" (");
    if (open != std::string_view::npos && line.ends_with(" ms)") &&
        parse_digits(line.substr(open + 2, line.size() - open - 6)))
      out.cls = StLineClass::GtestEnd;
  } else if (line.starts_with(kStRankHeader) || line.starts_with(kStQueueHeader)) {
    bool rank = line.starts_with(kStRankHeader);
    auto n = parse_digits(line.substr(rank ? kStRankHeader.size() : kStQueueHeader.size()));
    if (n && *n <= 0xffffffffu) {
      out.cls = rank ? StLineClass::RankHeader : StLineClass::QueueHeader;
      out.number = *n;
    }
  } else {
    std::string_view level, rest;
    if (log_level(line, level, rest) && level == "ERROR") {
      out.cls = StLineClass::ErrorLog;
      out.text = rest;
    }
  }
  return out;
}

Status parse_st_task(std::string_view line, StTask& t) {
  std::vector<StSlice> keep = std::move(t.srcs);
  keep.clear();
  t = StTask{};
  t.srcs = std::move(keep);
  constexpr std::string_view kShape = "a task line must read [rankId:R, queueId:Q, index:I] Kind[...]";
  std::string_view p = line;
  std::array<u32*, 3> nums = {&t.rank, &t.queue, &t.index};
  constexpr std::array<std::string_view, 3> keys = {"[rankId:", ", queueId:", ", index:"};
  constexpr std::array<std::string_view, 3> names = {"rankId", "queueId", "index"};
  for (std::size_t i = 0; i < 3; ++i) {
    if (!p.starts_with(keys[i])) return Error{std::string(kShape)};
    p.remove_prefix(keys[i].size());
    std::size_t d = 0;
    while (d < p.size() && is_digit(p[d])) ++d;
    auto v = parse_digits(p.substr(0, d));
    if (!v && d > 0) return Error{fmt::format("{} {} does not fit in 32 bits", names[i], p.substr(0, d))};
    if (!v) return Error{!p.empty() && p[0] == '-' ? fmt::format("{} is negative", names[i]) : std::string(kShape)};
    if (*v > 0xffffffffu) return Error{fmt::format("{} {} does not fit in 32 bits", names[i], *v)};
    *nums[i] = static_cast<u32>(*v);
    p.remove_prefix(d);
  }
  if (!p.starts_with("] ")) return Error{std::string(kShape)};
  p.remove_prefix(2);
  if (p.starts_with("[CCU GRAPH]")) {
    t.kind = StKind::CcuGraph;
    t.kind_name = "CCU GRAPH";
    return {};
  }
  std::size_t k = 0;
  while (k < p.size() && (p[k] == '_' || (p[k] >= 'A' && p[k] <= 'Z') || (p[k] >= 'a' && p[k] <= 'z') ||
                          (k > 0 && is_digit(p[k]))))
    ++k;
  if (k == 0 || k >= p.size() || p[k] != '[' || p.back() != ']') return Error{std::string(kShape)};
  t.kind_name = p.substr(0, k);
  std::string_view attrs = p.substr(k + 1, p.size() - k - 2);
  t.kind = StKind::Unknown;
  for (std::size_t i = 0; i < kKindNames.size(); ++i)
    if (kKindNames[i] == t.kind_name) t.kind = static_cast<StKind>(i);
  if (t.kind_name == "AivTaskStub") t.kind = StKind::AivTaskStub;
  for (std::string_view u : kUnsupportedKinds)
    if (u == t.kind_name) t.kind = StKind::Unsupported;
  return parse_attrs(attrs, t);
}

}  // namespace cc
