#include "io/aiv/snapshot_reader.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

namespace cc::aiv_io {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

simdjson::dom::array array_of(element e) {
  simdjson::dom::array a;
  if (e.get_array().get(a)) return {};
  return a;
}

// A snapshot of a hostile size could name millions of problems; the first
// ones say enough, the rest are counted.
constexpr std::size_t kMaxProblems = 64;

class SnapshotParser {
 public:
  explicit SnapshotParser(AivSnapshot& s) : s_(s) {}

  void run(element root) {
    simdjson::dom::object o;
    if (root.get_object().get(o)) {
      problem({}, "the snapshot is not a JSON object");
      return;
    }
    field_u32(o, "rank", s_.rank, true);
    field_u64(o, "launchIndex", s_.launch, true);
    field_u32(o, "rankSize", s_.rank_size, false);
    field_u64(o, "inputGlobalOffsetBase", s_.input_base, false);
    field_u64(o, "outputGlobalOffsetBase", s_.output_base, false);
    s_.has_in_size = field_u64(o, "inBufferSize", s_.in_size, false);
    s_.has_out_size = field_u64(o, "outBufferSize", s_.out_size, false);
    s_.has_ccl_size = field_u64(o, "cclBufferSize", s_.ccl_size, false);
    field_u64(o, "aivCommInfoSize", s_.comm_size, false);
    field_u64(o, "ubBufferSize", s_.ub_size, false);
    element cur;
    if (o["curOp"].get(cur) == simdjson::SUCCESS && cur.is_object()) s_.cur_op = simdjson::to_string(cur);
    element cores;
    if (o["aivCores"].get(cores) != simdjson::SUCCESS) {
      problem("aivCores", "is missing");
    } else if (!cores.is_array()) {
      problem("aivCores", "must be an array");
    } else {
      simdjson::dom::array a = array_of(cores);
      s_.cores.reserve(a.size());
      Scope in(*this, "aivCores");
      std::size_t i = 0;
      for (element c : a) {
        Scope at(*this, i++);
        core(c);
      }
    }
    if (extra_ > 0)
      s_.problems.push_back({107, fmt::format("… and {} more problem{}", extra_, extra_ > 1 ? "s" : "")});
  }

 private:
  // The JSON path of the value being read, as segments: built into text
  // only for a problem (a snapshot has hundreds of thousands of fields).
  struct Seg {
    std::string_view key;
    std::size_t index = 0;
  };
  struct Scope {
    Scope(SnapshotParser& p, std::string_view key) : p_(p) { p_.path_.push_back({key, 0}); }
    Scope(SnapshotParser& p, std::size_t index) : p_(p) { p_.path_.push_back({{}, index}); }
    ~Scope() { p_.path_.pop_back(); }
    SnapshotParser& p_;
  };

  std::string path(std::string_view leaf) const {
    std::string out;
    for (const Seg& g : path_) {
      if (g.key.empty()) out += fmt::format("[{}]", g.index);
      else out += (out.empty() ? "" : ".") + std::string(g.key);
    }
    if (!leaf.empty()) out += (out.empty() ? "" : ".") + std::string(leaf);
    return out;
  }

  void problem(std::string_view leaf, std::string what) {
    if (s_.problems.size() >= kMaxProblems) {
      ++extra_;
      return;
    }
    std::string p = path(leaf);
    s_.problems.push_back({107, p.empty() ? what : p + " " + what});
  }

  // Reads an unsigned integer of at most `max`; false when wrong (a problem).
  bool number(element e, std::string_view leaf, u64 max, u64& out) {
    u64 v = 0;
    if (e.get_uint64().get(v) != simdjson::SUCCESS) {
      if (e.type() == element_type::INT64) problem(leaf, "must not be negative");
      else problem(leaf, "must be an unsigned integer");
      return false;
    }
    if (v > max) {
      problem(leaf, fmt::format("is {}, out of range (at most {})", v, max));
      return false;
    }
    out = v;
    return true;
  }
  // False when absent (a problem if required) or wrong.
  bool field_u64(simdjson::dom::object o, std::string_view key, u64& out, bool required) {
    element e;
    if (o[key].get(e) != simdjson::SUCCESS) {
      if (required) problem(key, "is missing");
      return false;
    }
    return number(e, key, std::numeric_limits<u64>::max(), out);
  }
  bool field_u32(simdjson::dom::object o, std::string_view key, u32& out, bool required) {
    element e;
    if (o[key].get(e) != simdjson::SUCCESS) {
      if (required) problem(key, "is missing");
      return false;
    }
    u64 v = 0;
    if (!number(e, key, 0xffffffffu, v)) return false;
    out = static_cast<u32>(v);
    return true;
  }
  void field_opt_u32(simdjson::dom::object o, std::string_view key, std::optional<u32>& out) {
    u32 v = 0;
    if (field_u32(o, key, v, false)) out = v;
  }
  void field_i32(simdjson::dom::object o, std::string_view key, i32& out) {
    element e;
    if (o[key].get(e) != simdjson::SUCCESS) {
      problem(key, "is missing");
      return;
    }
    std::int64_t v = 0;
    if (e.get_int64().get(v) != simdjson::SUCCESS) {
      u64 big = 0;
      if (e.get_uint64().get(big) == simdjson::SUCCESS) problem(key, fmt::format("is {}, out of range for i32", big));
      else problem(key, "must be an integer");
      return;
    }
    if (v < std::numeric_limits<i32>::min() || v > std::numeric_limits<i32>::max()) {
      problem(key, fmt::format("is {}, out of range for i32", v));
      return;
    }
    out = static_cast<i32>(v);
  }
  bool object_field(simdjson::dom::object o, std::string_view key, simdjson::dom::object& out) {
    element e;
    if (o[key].get(e) != simdjson::SUCCESS) {
      problem(key, "is missing");
      return false;
    }
    if (e.get_object().get(out) != simdjson::SUCCESS) {
      problem(key, "must be an object");
      return false;
    }
    return true;
  }

  void slice(simdjson::dom::object o, std::string_view key, AivSlice& out) {
    simdjson::dom::object so;
    if (!object_field(o, key, so)) return;
    Scope in(*this, key);
    field_u32(so, "bufferType", out.buffer, true);
    field_u64(so, "offset", out.offset, true);
    field_u64(so, "size", out.size, true);
  }

  void core(element c) {
    simdjson::dom::object o;
    if (c.get_object().get(o)) {
      problem({}, "must be an object");
      return;
    }
    AivCore& core = s_.cores.emplace_back();
    field_u32(o, "blockIdx", core.block, true);
    static constexpr std::string_view kLanes[kAivPipes] = {"scalarTasks", "mte2Tasks", "mte3Tasks"};
    for (u32 p = 0; p < kAivPipes; ++p) {
      element lane;
      if (o[kLanes[p]].get(lane) != simdjson::SUCCESS) continue;  // absent: empty
      if (!lane.is_array()) {
        problem(kLanes[p], "must be an array");
        continue;
      }
      simdjson::dom::array a = array_of(lane);
      core.lanes[p].reserve(a.size());
      Scope in(*this, kLanes[p]);
      std::size_t i = 0;
      for (element t : a) {
        Scope at(*this, i++);
        task(t, core.lanes[p]);
      }
    }
  }

  void task(element e, std::vector<AivTask>& lane) {
    simdjson::dom::object o;
    if (e.get_object().get(o)) {
      problem({}, "must be an object");
      return;
    }
    AivTask& t = lane.emplace_back();
    field_u32(o, "taskType", t.type, true);
    field_u32(o, "taskId", t.id, true);
    field_opt_u32(o, "rankId", t.rank_id);
    field_opt_u32(o, "blockId", t.block_id);
    field_opt_u32(o, "curPipe", t.cur_pipe);
    simdjson::dom::object p;
    if (!object_field(o, "payload", p)) return;
    Scope in(*this, "payload");
    switch (t.type) {
      case 0:  // MEM_COPY
      case 1:  // REDUCE
        field_u32(p, "srcRank", t.src_rank, true);
        slice(p, "src", t.src);
        field_u32(p, "dstRank", t.dst_rank, true);
        slice(p, "dst", t.dst);
        if (t.type == 1) {
          field_u32(p, "dataType", t.data_type, true);
          field_u32(p, "reduceOp", t.reduce_op, true);
        }
        break;
      case 2:  // SET_FLAG
      case 3:  // WAIT_FLAG
        field_u32(p, "srcPipe", t.src_pipe, true);
        field_u32(p, "dstPipe", t.dst_pipe, true);
        field_i32(p, "eventId", t.event);
        break;
      case 4: {  // PIPE_BARRIER
        field_u32(p, "pipeType", t.pipe_type, true);
        element g;
        if (p["barrierGroupTaskIds"].get(g) != simdjson::SUCCESS) {
          problem("barrierGroupTaskIds", "is missing");
        } else if (!g.is_array()) {
          problem("barrierGroupTaskIds", "must be an array");
        } else {
          Scope list(*this, "barrierGroupTaskIds");
          std::size_t i = 0;
          for (element id : array_of(g)) {
            Scope at(*this, i++);
            u64 v = 0;
            if (number(id, {}, 0xffffffffu, v)) t.group.push_back(static_cast<u32>(v));
          }
        }
        break;
      }
      case 5:  // SYNC_ALL
        field_u32(p, "syncRound", t.round, true);
        break;
      case 6:  // SEND_FLAG
      case 7:  // RECV_FLAG
        field_u32(p, "rank", t.flag_rank, true);
        field_u64(p, "commInfoOffset", t.offset, true);
        field_i32(p, t.type == 6 ? "flagValue" : "targetValue", t.value);
        break;
      default:
        break;  // unknown kind: 111 in the expansion; its payload is not read
    }
  }

  AivSnapshot& s_;
  std::vector<Seg> path_;
  std::size_t extra_ = 0;
};

}  // namespace

void parse_snapshot(element root, AivSnapshot& out) { SnapshotParser(out).run(root); }

std::string minified(std::string_view text) {
  std::string out(text.size(), '\0');
  std::size_t len = 0;
  if (simdjson::minify(text.data(), text.size(), out.data(), len) != simdjson::SUCCESS) return {};
  out.resize(len);
  return out;
}

Result<AivSnapshot> parse_snapshot_text(std::string_view text, const std::string& file) {
  simdjson::dom::parser parser;
  element root;
  simdjson::padded_string padded(text);
  auto err = parser.parse(padded).get(root);
  if (err) return Error{fmt::format("{} is not JSON: {}", file, simdjson::error_message(err))};
  if (!root.is_object()) return Error{fmt::format("the root of {} is not a JSON object", file)};
  AivSnapshot s;
  s.file = file;
  parse_snapshot(root, s);
  s.json = minified(text);
  // The file names no launch unless both of these are read: such a
  // snapshot is not kept (a written trace could not carry it).
  for (const AivProblem& p : s.problems)
    if (p.message.starts_with("rank ") || p.message.starts_with("launchIndex "))
      return Error{fmt::format("{}: {}", file, p.message)};
  return s;
}

Result<AivSnapshot> read_snapshot_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Error{fmt::format("{} cannot be read: {}", path, std::strerror(errno))};
  std::stringstream ss;
  ss << f.rdbuf();
  if (f.bad()) return Error{fmt::format("{} cannot be read", path)};
  return parse_snapshot_text(ss.str(), path);
}

}  // namespace cc::aiv_io
