#include "model/aiv_json.h"

#include <fmt/format.h>

#include <iterator>

namespace cc::aiv {

namespace {

void slice(std::string& out, const char* key, const AivSlice& s) {
  fmt::format_to(std::back_inserter(out), ",\"{}\":{{\"bufferType\":{},\"offset\":{},\"size\":{}}}", key, s.buffer,
                 s.offset, s.size);
}

void task(std::string& out, const AivTask& t) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{{\"taskType\":{},\"taskId\":{}", t.type, t.id);
  if (t.rank_id) fmt::format_to(it, ",\"rankId\":{}", *t.rank_id);
  if (t.block_id) fmt::format_to(it, ",\"blockId\":{}", *t.block_id);
  if (t.cur_pipe) fmt::format_to(it, ",\"curPipe\":{}", *t.cur_pipe);
  out += ",\"payload\":{";
  switch (t.type) {
    case 0:
    case 1:
      fmt::format_to(it, "\"srcRank\":{}", t.src_rank);
      slice(out, "src", t.src);
      fmt::format_to(it, ",\"dstRank\":{}", t.dst_rank);
      slice(out, "dst", t.dst);
      if (t.type == 1) fmt::format_to(it, ",\"dataType\":{},\"reduceOp\":{}", t.data_type, t.reduce_op);
      break;
    case 2:
    case 3:
      fmt::format_to(it, "\"srcPipe\":{},\"dstPipe\":{},\"eventId\":{}", t.src_pipe, t.dst_pipe, t.event);
      break;
    case 4:
      fmt::format_to(it, "\"pipeType\":{},\"barrierGroupTaskIds\":[", t.pipe_type);
      for (std::size_t i = 0; i < t.group.size(); ++i) fmt::format_to(it, "{}{}", i ? "," : "", t.group[i]);
      out += ']';
      break;
    case 5:
      fmt::format_to(it, "\"syncRound\":{}", t.round);
      break;
    case 6:
    case 7:
      fmt::format_to(it, "\"rank\":{},\"commInfoOffset\":{},\"{}\":{}", t.flag_rank, t.offset,
                     t.type == 6 ? "flagValue" : "targetValue", t.value);
      break;
    default:
      break;
  }
  out += "}}";
}

}  // namespace

std::string snapshot_json(const AivSnapshot& s) {
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{{\"mode\":\"aiv\",\"rank\":{},\"launchIndex\":{}", s.rank, s.launch);
  if (s.rank_size) fmt::format_to(it, ",\"rankSize\":{}", s.rank_size);
  fmt::format_to(it, ",\"inputGlobalOffsetBase\":{},\"outputGlobalOffsetBase\":{}", s.input_base, s.output_base);
  if (s.has_in_size) fmt::format_to(it, ",\"inBufferSize\":{}", s.in_size);
  if (s.has_out_size) fmt::format_to(it, ",\"outBufferSize\":{}", s.out_size);
  if (s.has_ccl_size) fmt::format_to(it, ",\"cclBufferSize\":{}", s.ccl_size);
  if (s.comm_size) fmt::format_to(it, ",\"aivCommInfoSize\":{}", s.comm_size);
  if (s.ub_size) fmt::format_to(it, ",\"ubBufferSize\":{}", s.ub_size);
  if (!s.cur_op.empty()) out += ",\"curOp\":" + s.cur_op;
  out += ",\"aivCores\":[";
  static constexpr const char* kLanes[kAivPipes] = {"scalarTasks", "mte2Tasks", "mte3Tasks"};
  for (std::size_t c = 0; c < s.cores.size(); ++c) {
    const AivCore& core = s.cores[c];
    fmt::format_to(it, "{}{{\"blockIdx\":{}", c ? "," : "", core.block);
    for (u32 p = 0; p < kAivPipes; ++p) {
      fmt::format_to(it, ",\"{}\":[", kLanes[p]);
      for (std::size_t k = 0; k < core.lanes[p].size(); ++k) {
        if (k) out += ',';
        task(out, core.lanes[p][k]);
      }
      out += ']';
    }
    out += '}';
  }
  out += "]}";
  return out;
}

}  // namespace cc::aiv
