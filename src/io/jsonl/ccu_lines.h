// Trace format version 2: CCU data (docs/CCU_FORMAT.md). The header's "ccu"
// object, the CCU data lines ({"ccu":"image"|"channel"|"address"|"dieBase"})
// and the fields of CCU_GRAPH task lines. Each returns "" or what is wrong
// (the caller adds FILE:LINE).
#pragma once

#include <simdjson.h>

#include <map>
#include <string>

#include "model/result.h"
#include "model/trace.h"

namespace cc {

// What the reader remembers about CCU lines until the file is complete.
struct CcuLineState {
  std::map<std::pair<u32, u32>, u32> image_of;             // (rank, die) -> index in ccu.images
  std::map<std::pair<u32, u32>, u32> image_size_line;      // (rank, die) -> line of its "size"
  std::vector<std::vector<u32>> block_lines;               // per image, per block: its line
  std::map<std::tuple<u32, u32, u32>, u32> channel_line;   // (rank, die, channel) -> line
  std::map<std::pair<u32, u16>, u32> address_line;         // (rank, buffer) -> line
  std::map<std::pair<u32, u32>, u32> die_base_line;        // (rank, die) -> line
  u64 words = 0;                                           // words read so far (all images)
};

Status parse_ccu_header(simdjson::dom::element e, Trace& t);
// A line whose object has the key "ccu".
Status parse_ccu_line(simdjson::dom::element e, Trace& t, CcuLineState& st, u32 line);
// The SQE of a CCU_GRAPH task line: appended to t.ccu.sqes, task.notify = its index.
Status parse_ccu_task(simdjson::dom::element e, Trace& t, Task& task);
// After the last line: images sorted and checked. Returns "LINE: what" on
// an error that belongs to a line, else "" (images are then final).
Status finish_ccu_lines(Trace& t, CcuLineState& st, u32& error_line);

}  // namespace cc
