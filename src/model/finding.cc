#include "model/finding.h"

namespace cc {

std::string_view name(StageTag s) {
  switch (s) {
    case StageTag::GenGraph: return "GenGraph";
    case StageTag::SingleTaskCheck: return "SingleTaskCheck";
    case StageTag::StreamCheck: return "StreamCheck";
    case StageTag::SyncCheck: return "SyncCheck";
    case StageTag::MemConflict: return "MemConflict";
    case StageTag::SemanticCheck: return "SemanticCheck";
    case StageTag::Setting: return "Setting";
    case StageTag::Dump: return "Dump";
    case StageTag::Runtime: return "Runtime";
  }
  return "";
}

std::optional<StageTag> parse_stage_tag(std::string_view s) {
  for (u8 i = 0; i <= static_cast<u8>(StageTag::Runtime); ++i)
    if (name(static_cast<StageTag>(i)) == s) return static_cast<StageTag>(i);
  return std::nullopt;
}

std::string_view code_name(u16 code) {
  switch (code) {
    case 101: return "GRAPH_TRANSLATE_FAILED";
    case 102: return "GRAPH_DEADLOCK";
    case 103: return "GRAPH_UNMATCHED";
    case 104: return "GRAPH_MEMBER_MISSING";
    case 105: return "GRAPH_STRUCTURE_INVALID";
    case 106: return "GRAPH_SNAPSHOT_MISMATCH";
    case 107: return "GRAPH_RESOURCE_NOT_FOUND";
    case 108: return "GRAPH_REGISTER_UNINITIALIZED";
    case 109: return "GRAPH_OUT_OF_RANGE";
    case 110: return "GRAPH_ADDRESS_INVALID";
    case 111: return "GRAPH_UNSUPPORTED";
    case 112: return "GRAPH_REMOTE_RANK_MISMATCH";
    case 113: return "GRAPH_LOOP_MERGE_ERROR";
    case 201: return "SINGLETASK_SLICE_INVALID";
    case 202: return "SINGLETASK_SLICE_CONFLICT";
    case 203: return "SINGLETASK_SLAVE_STREAM_INVALID";
    case 301: return "MEMCONFLICT_DAG_INVALID";
    case 302: return "MEMCONFLICT_DETECTED";
    case 401: return "SEMANTIC_BUFFER_EMPTY";
    case 402: return "SEMANTIC_GAP";
    case 403: return "SEMANTIC_REDUCE_ERROR";
    case 404: return "SEMANTIC_SIMULATE_FAILED";
    case 405: return "SEMANTIC_FINAL_CHECK_FAILED";
    case 406: return "SEMANTIC_FINAL_MISSING";
    case 407: return "SEMANTIC_FINAL_SRC_ERROR";
    case 408: return "SEMANTIC_FINAL_SIZE_ERROR";
    case 409: return "SEMANTIC_FINAL_REDUCE_ERROR";
    case 501: return "DUMP_FAILED";
    case 601: return "SYNC_DAG_INVALID";
    case 602: return "SYNC_RESOURCE_CONFLICT";
    case 901: return "CHECKER_RUNTIME_ERROR";
    case 902: return "SETTING_WARNING";
    default: return "";
  }
}

Severity code_severity(u16 code) {
  return code == 404 || code == 902 || code == 0 ? Severity::Warning : Severity::Error;
}

Finding make_finding(u16 code, StageTag stage, std::string message) {
  Finding f;
  f.code = code;
  f.severity = code_severity(code);
  f.stage = stage;
  f.message = std::move(message);
  return f;
}

}  // namespace cc
