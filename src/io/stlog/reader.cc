#include "io/stlog/reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>

#include "io/line_reader.h"
#include "io/input.h"
#include "io/stlog/params.h"
#include "io/stlog/syntax.h"
#include "model/finding.h"

namespace cc {

namespace {

namespace fs = std::filesystem;

// Error lines of the reference checker kept per dump (stlog.md §7).
constexpr std::size_t kMaxNotes = 40;
// Test name of dumps printed before any gtest start line.
constexpr std::string_view kNoTest = "dump";

// The tuple a notify id is interned from (§5.3): a cross-rank
// (notifyType, link, topic) or a local topic.
struct NotifyKey {
  bool local = false;
  u8 type = 0, link = 0;
  u64 topic = 0;
  bool operator<(const NotifyKey& o) const {
    return std::tie(local, type, link, topic) < std::tie(o.local, o.type, o.link, o.topic);
  }
};

// "K(READY,SDMA)", "K(CCU,SDMA,5)", "Lk(5)": the notation of stlog.md §8.
std::string key_name(const NotifyKey& k) {
  if (k.local) return fmt::format("Lk({})", k.topic);
  auto type = static_cast<StNotifyType>(k.type);
  auto link = static_cast<StLink>(k.link);
  if (type == StNotifyType::CCU || k.topic != 0) return fmt::format("K({},{},{})", name(type), name(link), k.topic);
  return fmt::format("K({},{})", name(type), name(link));
}

Link model_link(StLink l) {
  switch (l) {
    case StLink::SDMA: return Link::SDMA;
    case StLink::RDMA: return Link::RDMA;
    case StLink::CCU: return Link::CCU;
    case StLink::INVALID_A: return Link::NONE;
  }
  return Link::NONE;
}

std::string unsupported_reason(std::string_view kind) {
  if (kind.substr(0, 5) == "Being" || kind.find("Shadow") != std::string_view::npos)
    return "the reference checker creates it in a later stage (revamp); it does not belong in a task dump";
  if (kind.substr(0, 4) == "Loop") return "a CCU loop marker; CCU microcode is not in the dump";
  return "an AIV per-block task; AIV work is not in a primary-queue dump";
}

struct Dump {
  std::string test;
  u32 index = 0;
  u64 line = 0;  // of "rank id is 0"
  ReadTrace read;
  std::map<NotifyKey, u32> keys;
};

class Parser {
 public:
  explicit Parser(std::string display) : display_(std::move(display)) {}

  // Takes one line; "" or what is wrong with it.
  Status line(std::string_view text, u64 no);
  void finish() { end_dump(); }
  std::vector<std::unique_ptr<Dump>>& dumps() { return dumps_; }

 private:
  bool in_dump() const { return cur_ != nullptr; }
  void end_dump();
  void start_dump(u64 no);
  Status task_line(std::string_view text, u64 no);
  Status add_task(const StTask& s, u32 no, std::string_view text);

  std::string display_;
  std::vector<std::unique_ptr<Dump>> dumps_;
  std::string test_{kNoTest};
  std::map<std::string, u32, std::less<>> dumps_per_test_;
  Dump* cur_ = nullptr;    // the dump being read
  Dump* notes_ = nullptr;  // the dump the next error lines belong to
  std::int64_t rank_ = -1, queue_ = -1;
  u32 next_index_ = 0;
  StTask st_;
};

void Parser::end_dump() {
  if (!cur_) return;
  cur_->read.trace.op.ranks = static_cast<u32>(rank_ + 1);
  cur_ = nullptr;
}

void Parser::start_dump(u64 no) {
  end_dump();
  auto d = std::make_unique<Dump>();
  d->test = test_;
  d->index = dumps_per_test_[test_]++;
  d->line = no;
  d->read.trace.file = display_;
  d->read.trace.op.known = false;
  cur_ = notes_ = d.get();
  dumps_.push_back(std::move(d));
  rank_ = 0;
  queue_ = -1;
}

Status Parser::line(std::string_view text, u64 no) {
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  StLine c = classify_st_line(text);
  switch (c.cls) {
    case StLineClass::GtestStart:
      end_dump();
      notes_ = nullptr;
      test_ = std::string(c.text);
      return {};
    case StLineClass::GtestEnd:
      end_dump();
      notes_ = nullptr;
      return {};
    case StLineClass::RankHeader:
      if (c.number == 0) {
        start_dump(no);
        return {};
      }
      if (!in_dump()) return Error{fmt::format("\"rank id is {}\" outside a dump (a dump begins with rank id 0)", c.number)};
      if (static_cast<std::int64_t>(c.number) != rank_ + 1)
        return Error{fmt::format("\"rank id is {}\" where rank id {} was expected (ranks come in order 0, 1, ...)",
                           c.number, rank_ + 1)};
      rank_ = static_cast<std::int64_t>(c.number);
      queue_ = -1;
      return {};
    case StLineClass::QueueHeader:
      if (!in_dump()) return Error{fmt::format("\"stream/queue id is {}\" outside a dump", c.number)};
      if (static_cast<std::int64_t>(c.number) != queue_ + 1)
        return Error{fmt::format("\"stream/queue id is {}\" where queue id {} was expected (queues come in order 0, 1, ...)",
                           c.number, queue_ + 1)};
      queue_ = static_cast<std::int64_t>(c.number);
      next_index_ = 0;
      return {};
    case StLineClass::TaskLine:
      return task_line(text, no);
    case StLineClass::ErrorLog:
      if (notes_ && notes_->read.notes.size() <= kMaxNotes)
        notes_->read.notes.push_back(notes_->read.notes.size() == kMaxNotes
                                         ? std::string("reference: ... (more error lines follow in the log)")
                                         : fmt::format("reference {}:{}: {}", display_, no, c.text));
      return {};
    case StLineClass::Other:
      return {};
  }
  return {};
}

Status Parser::task_line(std::string_view text, u64 no) {
  CC_TRY(parse_st_task(text, st_));
  if (!in_dump() || queue_ < 0)
    return Error{"a task line outside a dump's queue block (no \"rank id is\" and \"stream/queue id is\" before it)"};
  if (st_.rank != rank_ || st_.queue != queue_)
    return Error{fmt::format("task of rank {} queue {} inside the block of rank {} queue {}", st_.rank, st_.queue, rank_,
                       queue_)};
  if (st_.index != next_index_)
    return Error{fmt::format("index {} where index {} was expected (indices run 0, 1, ... without gaps)", st_.index,
                       next_index_)};
  if (no > 0xffffffffu) return Error{"more than 2^32 lines are not supported"};
  if (next_index_ == 0xffffffffu) return Error{"more than 2^32 tasks in one queue"};
  ++next_index_;
  return add_task(st_, static_cast<u32>(no), text);
}

Status Parser::add_task(const StTask& s, u32 no, std::string_view text) {
  Trace& t = cur_->read.trace;
  if (t.tasks.size() >= 0xfffffffeu || t.slices.size() >= 0xfffffff0u - s.srcs.size())
    return Error{"too many tasks in one dump"};
  Task k;
  k.rank = s.rank;
  k.stream = s.queue;
  k.line = no;
  u32 remote = s.remote > 0xffffffffu ? kNone : static_cast<u32>(s.remote);  // outside the ranks: 101/201
  bool too_many_buffers = false;
  auto slice = [&](u32 rank, const StSlice& x) {
    Slice out;
    out.rank = rank;
    out.buf = t.buffers.intern(x.buf);
    too_many_buffers |= out.buf == kNoBuf;
    out.offset = x.offset;
    out.len = x.size;
    t.slices.push_back(out);
    return static_cast<u32>(t.slices.size() - 1);
  };
  // One group: sources first, so that they are contiguous.
  auto group = [&](TaskType type, u32 src_rank, const StSlice* srcs, std::size_t n, u32 dst_rank,
                   const StSlice& dst, Link link) {
    k.type = type;
    k.link = link;
    k.set_first_group(static_cast<u32>(t.groups.size()));
    k.set_group_count(1);
    Group g;
    g.first_src = static_cast<u32>(t.slices.size());
    for (std::size_t i = 0; i < n; ++i) slice(src_rank, srcs[i]);
    g.src_count = static_cast<u32>(n);
    g.dst = slice(dst_rank, dst);
    // HCCL records some copies' destinations with the buffer's whole
    // remaining capacity, not the bytes moved; its checker copies the
    // source's size, and so does collcheck (§5.2). The recorded size stays
    // for the bound check and the reports. A smaller destination, and any
    // difference in a reduce, is left to stage 2 (201).
    if (type == TaskType::TRANS_MEM && n == 1 && dst.size > srcs[0].size) {
      t.slices[g.dst].len = srcs[0].size;
      t.recorded_lens.emplace_back(g.dst, dst.size);
    }
    t.groups.push_back(g);
  };
  auto sync = [&](TaskType type, u32 peer, const NotifyKey& key) {
    k.type = type;
    k.set_peer(peer);
    auto [it, added] = cur_->keys.emplace(key, static_cast<u32>(cur_->keys.size() + 1));
    if (added) t.notify_names.emplace_back(it->second, key_name(key));
    // A cross-rank key prints neither the transport nor the plane of its
    // notify (§5.3): one key may stand for several notifies. Local keys and
    // the CCU form print their topic and name one. Ids grow: sorted.
    if (added && !key.local && key.type != static_cast<u8>(StNotifyType::CCU))
      t.inexact_notifies.push_back(it->second);
    k.set_notify(it->second);
  };
  auto unknown = [&](u16 code, std::string message) {
    k.type = TaskType::UNKNOWN;
    k.tag = t.intern_tag(s.kind == StKind::CcuGraph ? std::string_view("[CCU GRAPH]") : s.kind_name);
    Finding f = make_finding(code, StageTag::GenGraph, std::move(message));
    std::string_view record = text.substr(text.find("] ") + 2);
    f.details.push_back(fmt::format("Task : {}/{}/{} ({}:{}) {}{}", s.rank, s.queue, s.index, display_, no,
                                    record.substr(0, 200), record.size() > 200 ? " ..." : ""));
    f.tasks.push_back(static_cast<u32>(t.tasks.size()));  // append order; renumbered after finalize
    cur_->read.findings.push_back(std::move(f));
  };
  u32 r = s.rank;
  Link link = model_link(s.link);
  bool reduce = false;
  switch (s.kind) {
    case StKind::LocalCopy:
      group(TaskType::TRANS_MEM, r, s.srcs.data(), s.srcs.size(), r, s.dst, Link::LOCAL);
      break;
    case StKind::LocalReduce:
    case StKind::LocalBatchReduce:
      group(TaskType::REDUCE, r, s.srcs.data(), s.srcs.size(), r, s.dst, Link::LOCAL);
      reduce = true;
      break;
    case StKind::Read:
    case StKind::ReadReduce:
      group(s.kind == StKind::Read ? TaskType::TRANS_MEM : TaskType::REDUCE, remote, &s.remote_slice, 1, r,
            s.local, link);
      reduce = s.kind == StKind::ReadReduce;
      break;
    case StKind::Write:
    case StKind::WriteReduce:
      group(s.kind == StKind::Write ? TaskType::TRANS_MEM : TaskType::REDUCE, r, &s.local, 1, remote,
            s.remote_slice, link);
      reduce = s.kind == StKind::WriteReduce;
      break;
    case StKind::LocalPostTo:
    case StKind::LocalWaitFrom:
      sync(s.kind == StKind::LocalPostTo ? TaskType::RECORD : TaskType::WAIT, r, NotifyKey{true, 0, 0, s.topic});
      break;
    case StKind::Post:
    case StKind::Wait: {
      sync(s.kind == StKind::Post ? TaskType::RECORD : TaskType::WAIT, remote,
           NotifyKey{false, static_cast<u8>(s.notify_type), static_cast<u8>(s.link), s.topic});
      k.link = link;
      // INVALID is the constructor's default: no transport call named it.
      if (!s.tag.empty() && s.tag != "INVALID") k.tag = t.intern_tag(s.tag);
      // Generic Post(idx)/Wait(idx) use the notify index as their topic,
      // which only the CCU form prints.
      if (!s.ccu_form && s.tag == (s.kind == StKind::Post ? "POST" : "WAIT")) k.flags |= kTaskNotifyIndexLost;
      break;
    }
    // The work these launch is not in the dump: the dump is incomplete and
    // refused as a whole, so no stage reports on the part that is there.
    case StKind::AivTaskStub:
      unknown(111,
              "AIV kernel launch (AivTaskStub): the kernel's per-block work is not in the dump, so the dump is "
              "incomplete and is not checked.");
      t.unchecked = true;
      break;
    case StKind::CcuGraph:
      unknown(111, "CCU graph task (\"[CCU GRAPH]\", legacy tree): its microcode is not in the dump, so the dump is "
                   "incomplete and is not checked.");
      t.unchecked = true;
      break;
    case StKind::Unsupported:
      unknown(111, fmt::format("Unsupported task kind \"{}\": {}.", s.kind_name,
                               unsupported_reason(s.kind_name)));
      break;
    case StKind::Unknown:
      unknown(101, fmt::format("Unknown task kind \"{}\": the record cannot become a node.", s.kind_name));
      break;
  }
  if (reduce) {
    k.data_type = s.data_type;
    k.reduce_op = s.reduce_op;
  }
  if (too_many_buffers) return Error{"too many buffer types"};
  t.tasks.push_back(k);
  return {};
}

// Operator parameters per case: --op, else sidecars found next to the log.
class ParamSource {
 public:
  ParamSource(const std::string& path, const StLogOptions& opt) : path_(path), opt_(opt) {}

  // The entry for one dump (nullptr: none); an unreadable source is an error.
  Result<const StLogParamEntry*> find(const std::string& case_name, const std::string& test, u32 dump) {
    if (!opt_.op.empty()) {
      if (!op_) {
        auto p = load_stlog_params(opt_.op);
        if (!p) return p.error();
        op_ = std::make_unique<StLogParams>(std::move(p.value()));
      }
      return find_stlog_params(*op_, test, dump);
    }
    if (path_.empty()) return static_cast<const StLogParamEntry*>(nullptr);
    fs::path dir = fs::path(path_).parent_path();
    std::string safe = case_name;
    for (char& c : safe)
      if (c == '/') c = '_';
    for (const std::string& cand : {case_name, safe}) {
      fs::path p = dir / (cand + ".op.json");
      std::error_code ec;
      if (!fs::is_regular_file(p, ec)) continue;
      auto r = load(p.string());
      if (!r) return r.error();
      return find_stlog_params(*r.value(), test, dump);
    }
    fs::path log = log_sidecar();
    std::error_code ec;
    if (!fs::is_regular_file(log, ec)) return static_cast<const StLogParamEntry*>(nullptr);
    auto r = load(log.string());
    if (!r) return r.error();
    return find_stlog_params(*r.value(), test, dump);
  }

 private:
  // DIR/LOG.op.json for DIR/LOG.EXT (a .gz or .zst suffix dropped first).
  fs::path log_sidecar() const {
    fs::path p(path_);
    std::string ext = p.extension().string();
    if (ext == ".gz" || ext == ".zst") p = p.parent_path() / p.stem();
    return p.parent_path() / (p.stem().string() + ".op.json");
  }
  Result<const StLogParams*> load(const std::string& file) {
    auto it = files_.find(file);
    if (it == files_.end()) {
      auto p = load_stlog_params(file);
      if (!p) return p.error();
      it = files_.emplace(file, std::make_unique<StLogParams>(std::move(p.value()))).first;
    }
    return static_cast<const StLogParams*>(it->second.get());
  }

  std::string path_;
  const StLogOptions& opt_;
  std::unique_ptr<StLogParams> op_;
  std::map<std::string, std::unique_ptr<StLogParams>> files_;
};

Result<std::vector<StLogCase>> read_lines(LineReader& lines, const std::string& display, const std::string& path,
                                          const StLogOptions& opt) {
  Parser parser(display);
  std::string_view text;
  while (lines.next(text)) {
    if (Status st = parser.line(text, lines.line_number()); !st)
      return Error{fmt::format("{}:{}: {}", display, lines.line_number(), st.message())};
  }
  if (!lines.error().empty())
    return Error{fmt::format("{}:{}: {}", display, lines.line_number() + 1, lines.error())};
  parser.finish();
  auto& dumps = parser.dumps();
  if (dumps.empty())
    return Error{fmt::format("{}:1: no task dump in this log (\"rank id is 0\"; the test must enable the checker's "
                             "task printing)",
                             display)};
  std::map<std::string, u32, std::less<>> per_test;
  for (const auto& d : dumps) per_test[d->test]++;
  ParamSource params(path, opt);
  std::vector<StLogCase> cases;
  for (auto& d : dumps) {
    StLogCase c;
    c.test = d->test;
    c.dump = d->index;
    c.name = per_test[d->test] > 1 ? fmt::format("{}#{}", d->test, d->index) : d->test;
    if (!opt.case_glob.empty() && !glob_match(opt.case_glob, c.name)) continue;
    auto p = params.find(c.name, c.test, c.dump);
    if (!p) return p.error();
    c.read = std::move(d->read);
    Trace& t = c.read.trace;
    t.name = c.name;
    std::vector<u32> new_ids;
    std::vector<Finding> bounds;
    if (Status st = apply_stlog_params(t, p.value(), bounds, new_ids); !st)
      return Error{fmt::format("{}:{}: {}: {}", display, d->line, c.name, st.message())};
    for (Finding& f : c.read.findings)
      for (u32& id : f.tasks) id = new_ids[id];
    for (Finding& f : bounds) c.read.findings.push_back(std::move(f));
    d.reset();
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace

Result<std::vector<StLogCase>> read_stlog_file(const std::string& path, const StLogOptions& options) {
  LineReader lines;
  if (Status st = lines.open(path); !st) return Error{fmt::format("{}: cannot open: {}", path, st.message())};
  return read_lines(lines, path, path, options);
}

Result<std::vector<StLogCase>> read_stlog_string(const std::string& text, const std::string& display,
                                                 const StLogOptions& options) {
  LineReader lines;
  lines.attach_memory(text);
  return read_lines(lines, display, "", options);
}

}  // namespace cc
