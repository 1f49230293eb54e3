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
      problem("", "the snapshot is not a JSON object");
      return;
    }
    field_u32(o, "rank", "", s_.rank, true);
    field_u64(o, "launchIndex", "", s_.launch, true);
    field_u32(o, "rankSize", "", s_.rank_size, false);
    field_u64(o, "inputGlobalOffsetBase", "", s_.input_base, false);
    field_u64(o, "outputGlobalOffsetBase", "", s_.output_base, false);
    s_.has_in_size = field_u64(o, "inBufferSize", "", s_.in_size, false);
    s_.has_out_size = field_u64(o, "outBufferSize", "", s_.out_size, false);
    s_.has_ccl_size = field_u64(o, "cclBufferSize", "", s_.ccl_size, false);
    field_u64(o, "aivCommInfoSize", "", s_.comm_size, false);
    field_u64(o, "ubBufferSize", "", s_.ub_size, false);
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
      std::size_t i = 0;
      for (element c : a) core(c, fmt::format("aivCores[{}]", i++));
    }
    if (extra_ > 0)
      s_.problems.push_back({107, fmt::format("… and {} more problem{}", extra_, extra_ > 1 ? "s" : "")});
  }

 private:
  void problem(const std::string& path, std::string what) {
    if (s_.problems.size() >= kMaxProblems) {
      ++extra_;
      return;
    }
    s_.problems.push_back({107, path.empty() ? what : path + " " + what});
  }

  static std::string join(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
  }

  // Reads an unsigned integer of at most `max`; false when absent (a
  // problem if required) or wrong (always a problem).
  bool number(element e, const std::string& path, u64 max, u64& out) {
    u64 v = 0;
    if (e.get_uint64().get(v) != simdjson::SUCCESS) {
      if (e.type() == element_type::INT64) problem(path, "must not be negative");
      else problem(path, "must be an unsigned integer");
      return false;
    }
    if (v > max) {
      problem(path, fmt::format("is {}, out of range (at most {})", v, max));
      return false;
    }
    out = v;
    return true;
  }
  bool field_u64(simdjson::dom::object o, std::string_view key, const std::string& path, u64& out, bool required) {
    element e;
    if (o[key].get(e) != simdjson::SUCCESS) {
      if (required) problem(join(path, key), "is missing");
      return false;
    }
    return number(e, join(path, key), std::numeric_limits<u64>::max(), out);
  }
  bool field_u32(simdjson::dom::object o, std::string_view key, const std::string& path, u32& out, bool required) {
    element e;
    if (o[key].get(e) != simdjson::SUCCESS) {
      if (required) problem(join(path, key), "is missing");
      return false;
    }
    u64 v = 0;
    if (!number(e, join(path, key), 0xffffffffu, v)) return false;
    out = static_cast<u32>(v);
    return true;
  }
  void field_opt_u32(simdjson::dom::object o, std::string_view key, const std::string& path, std::optional<u32>& out) {
    u32 v = 0;
    if (field_u32(o, key, path, v, false)) out = v;
  }
  void field_i32(simdjson::dom::object o, std::string_view key, const std::string& path, i32& out) {
    element e;
    std::string p = join(path, key);
    if (o[key].get(e) != simdjson::SUCCESS) {
      problem(p, "is missing");
      return;
    }
    std::int64_t v = 0;
    if (e.get_int64().get(v) != simdjson::SUCCESS) {
      u64 big = 0;
      if (e.get_uint64().get(big) == simdjson::SUCCESS) problem(p, fmt::format("is {}, out of range for i32", big));
      else problem(p, "must be an integer");
      return;
    }
    if (v < std::numeric_limits<i32>::min() || v > std::numeric_limits<i32>::max()) {
      problem(p, fmt::format("is {}, out of range for i32", v));
      return;
    }
    out = static_cast<i32>(v);
  }
  bool object_field(simdjson::dom::object o, std::string_view key, const std::string& path,
                    simdjson::dom::object& out) {
    element e;
    if (o[key].get(e) != simdjson::SUCCESS) {
      problem(join(path, key), "is missing");
      return false;
    }
    if (e.get_object().get(out) != simdjson::SUCCESS) {
      problem(join(path, key), "must be an object");
      return false;
    }
    return true;
  }

  void slice(simdjson::dom::object o, std::string_view key, const std::string& path, AivSlice& out) {
    simdjson::dom::object so;
    if (!object_field(o, key, path, so)) return;
    std::string p = join(path, key);
    field_u32(so, "bufferType", p, out.buffer, true);
    field_u64(so, "offset", p, out.offset, true);
    field_u64(so, "size", p, out.size, true);
  }

  void core(element c, const std::string& path) {
    simdjson::dom::object o;
    if (c.get_object().get(o)) {
      problem(path, "must be an object");
      return;
    }
    AivCore& core = s_.cores.emplace_back();
    field_u32(o, "blockIdx", path, core.block, true);
    static constexpr std::string_view kLanes[kAivPipes] = {"scalarTasks", "mte2Tasks", "mte3Tasks"};
    for (u32 p = 0; p < kAivPipes; ++p) {
      element lane;
      if (o[kLanes[p]].get(lane) != simdjson::SUCCESS) continue;  // absent: empty
      std::string lp = join(path, kLanes[p]);
      if (!lane.is_array()) {
        problem(lp, "must be an array");
        continue;
      }
      simdjson::dom::array a = array_of(lane);
      core.lanes[p].reserve(a.size());
      std::size_t i = 0;
      for (element t : a) task(t, fmt::format("{}[{}]", lp, i++), core.lanes[p]);
    }
  }

  void task(element e, const std::string& path, std::vector<AivTask>& lane) {
    simdjson::dom::object o;
    if (e.get_object().get(o)) {
      problem(path, "must be an object");
      return;
    }
    AivTask& t = lane.emplace_back();
    field_u32(o, "taskType", path, t.type, true);
    field_u32(o, "taskId", path, t.id, true);
    field_opt_u32(o, "rankId", path, t.rank_id);
    field_opt_u32(o, "blockId", path, t.block_id);
    field_opt_u32(o, "curPipe", path, t.cur_pipe);
    simdjson::dom::object p;
    if (!object_field(o, "payload", path, p)) return;
    std::string pp = join(path, "payload");
    switch (t.type) {
      case 0:  // MEM_COPY
      case 1:  // REDUCE
        field_u32(p, "srcRank", pp, t.src_rank, true);
        slice(p, "src", pp, t.src);
        field_u32(p, "dstRank", pp, t.dst_rank, true);
        slice(p, "dst", pp, t.dst);
        if (t.type == 1) {
          field_u32(p, "dataType", pp, t.data_type, true);
          field_u32(p, "reduceOp", pp, t.reduce_op, true);
        }
        break;
      case 2:  // SET_FLAG
      case 3:  // WAIT_FLAG
        field_u32(p, "srcPipe", pp, t.src_pipe, true);
        field_u32(p, "dstPipe", pp, t.dst_pipe, true);
        field_i32(p, "eventId", pp, t.event);
        break;
      case 4: {  // PIPE_BARRIER
        field_u32(p, "pipeType", pp, t.pipe_type, true);
        element g;
        std::string gp = join(pp, "barrierGroupTaskIds");
        if (p["barrierGroupTaskIds"].get(g) != simdjson::SUCCESS) {
          problem(gp, "is missing");
        } else if (!g.is_array()) {
          problem(gp, "must be an array");
        } else {
          std::size_t i = 0;
          for (element id : array_of(g)) {
            u64 v = 0;
            if (number(id, fmt::format("{}[{}]", gp, i++), 0xffffffffu, v)) t.group.push_back(static_cast<u32>(v));
          }
        }
        break;
      }
      case 5:  // SYNC_ALL
        field_u32(p, "syncRound", pp, t.round, true);
        break;
      case 6:  // SEND_FLAG
      case 7:  // RECV_FLAG
        field_u32(p, "rank", pp, t.flag_rank, true);
        field_u64(p, "commInfoOffset", pp, t.offset, true);
        field_i32(p, t.type == 6 ? "flagValue" : "targetValue", pp, t.value);
        break;
      default:
        break;  // unknown kind: 111 in the expansion; its payload is not read
    }
  }

  AivSnapshot& s_;
  std::size_t extra_ = 0;
};

}  // namespace

void parse_snapshot(element root, AivSnapshot& out) {
  out.json = simdjson::to_string(root);
  SnapshotParser(out).run(root);
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
