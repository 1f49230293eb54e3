// The text of HCCL's ST-framework task dumps (stlog.md §2-§4): line classes,
// the task-line grammar with its attribute syntax, and the value sets of
// §4.3. Shared by the reader (stlog_reader) and the writer (stlog_writer);
// no mapping onto the model happens here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"
#include "model/types.h"

namespace cc {

// Exactly 55 '=' / '-' characters.
inline constexpr std::string_view kStRankSeparator = "=======================================================";
inline constexpr std::string_view kStQueueSeparator = "-------------------------------------------------------";
inline constexpr std::string_view kStRankHeader = "rank id is ";
inline constexpr std::string_view kStQueueHeader = "stream/queue id is ";
inline constexpr std::string_view kStRunPrefix = "[ RUN      ] ";
inline constexpr std::string_view kStOkPrefix = "[       OK ] ";
inline constexpr std::string_view kStFailPrefix = "[  FAILED  ] ";
inline constexpr std::string_view kStTaskPrefix = "[rankId:";

enum class StLineClass : u8 {
  GtestStart,  // `text` = the test name
  GtestEnd,    // a pass or fail line with its timing
  RankHeader,  // `number` = R
  QueueHeader, // `number` = Q
  TaskLine,    // starts with "[rankId:": parse with parse_st_task
  ErrorLog,    // a log line of level ERROR: `text` = the message
  Other,       // separators, other log and gtest lines, chatter: ignored
};

struct StLine {
  StLineClass cls = StLineClass::Other;
  std::string_view text;
  u64 number = 0;
};

// Classifies one line (a trailing '\r' already removed). A rank or queue
// header whose number does not fit in 32 bits classifies as Other.
StLine classify_st_line(std::string_view line);

// Task kinds of §4.2 and what collcheck does with the others.
enum class StKind : u8 {
  LocalCopy,
  LocalReduce,
  LocalBatchReduce,
  LocalPostTo,
  LocalWaitFrom,
  Post,
  Wait,
  Read,
  ReadReduce,
  Write,
  WriteReduce,
  AivTaskStub,  // an AIV launch placeholder: the dump is incomplete (111)
  Unsupported,  // a kind of §4.2 that never belongs in a primary-queue dump (111)
  CcuGraph,     // the legacy "[CCU GRAPH]: ..." line (111)
  Unknown,      // any other name (101)
};

std::string_view st_kind_name(StKind k);  // "LocalCopy", ...; "" for the last four

enum class StNotifyType : u8 { READY, FIN, FIN_ACK, CCU, INVALID_A };
enum class StLink : u8 { SDMA, RDMA, CCU, INVALID_A };

std::string_view name(StNotifyType t);
std::string_view name(StLink l);
std::optional<StNotifyType> parse_st_notify_type(std::string_view s);
std::optional<StLink> parse_st_link(std::string_view s);

// CheckerDataType (§4.3) <-> collcheck's data type. FP8E8M0 has no
// CheckerDataType; HCCL prints it as 0 (INT8), and so does the writer.
std::optional<DataType> st_data_type(std::int64_t v);
int st_data_type_value(DataType t);
// CheckerReduceOp: 0 SUM, 1 PROD, 2 MAX, 3 MIN.
std::optional<ReduceOp> st_reduce_op(std::int64_t v);
inline int st_reduce_op_value(ReduceOp op) { return static_cast<int>(op); }

// BufferType names of §4.3 a slice may name (RESERVED is an error).
bool st_buffer_type_valid(std::string_view s);
// Every valid name, in BufferType order.
const std::vector<std::string_view>& st_buffer_types();

// DataSlice[BufferType::NAME, offset=O, size=S]
struct StSlice {
  std::string_view buf;
  u64 offset = 0;
  u64 size = 0;
};

// One task line, parsed. Fields not printed for the kind keep their defaults.
struct StTask {
  u32 rank = 0, queue = 0, index = 0;
  StKind kind = StKind::Unknown;
  std::string_view kind_name;  // as written
  u64 remote = 0;              // remoteRank (Post, Wait, Read*, Write*)
  StLink link = StLink::SDMA;
  bool ccu_form = false;       // Post/Wait printed with topicId instead of notifyType
  StNotifyType notify_type = StNotifyType::CCU;
  u64 topic = 0;               // topicId (LocalPostTo, LocalWaitFrom, CCU form)
  std::string_view tag;        // originated tag ("" if absent)
  DataType data_type = DataType::INT8;
  ReduceOp reduce_op = ReduceOp::SUM;
  // srcSlice/dstSlice of Local* kinds (several sources for LocalBatchReduce),
  // localSlice/remoteSlice of Read* and Write*.
  std::vector<StSlice> srcs;
  StSlice dst;
  StSlice local, remote_slice;
};

// Parses a line that starts with "[rankId:" (§2, §4). Returns "" or what is
// wrong. `out.srcs` is reused (cleared) to spare allocations.
Status parse_st_task(std::string_view line, StTask& out);

}  // namespace cc
