#include "io/hcclvm/blobs.h"

#include <fmt/format.h>

namespace cc::hcclvm {

u64 load_le(Bytes b, std::size_t at, std::size_t width) {
  u64 v = 0;
  for (std::size_t i = 0; i < width; ++i) v |= u64{b[at + i]} << (8 * i);
  return v;
}

namespace {

u16 u16_at(Bytes b, std::size_t at) { return static_cast<u16>(load_le(b, at, 2)); }
u32 u32_at(Bytes b, std::size_t at) { return static_cast<u32>(load_le(b, at, 4)); }
u64 u64_at(Bytes b, std::size_t at) { return load_le(b, at, 8); }

}  // namespace

Result<OpDetail> decode_op_detail(Bytes b) {
  if (b.size() < kOpDetailBytes) {
    return Error{fmt::format("blob is {} bytes; a packed OpDetails needs {}", b.size(), kOpDetailBytes)};
  }
  OpDetail d;
  d.op_type = u16_at(b, 0);
  d.data_type = u16_at(b, 2);
  d.reduce_type = u16_at(b, 4);
  d.count = u64_at(b, 6);
  d.recv_count = u64_at(b, 16);
  d.recv_data_type = u16_at(b, 24);
  return d;
}

std::string_view hccl_cmd_name(u16 code) {
  switch (code) {
    case 0: return "INVALID";
    case 1: return "BROADCAST";
    case 2: return "ALLREDUCE";
    case 3: return "REDUCE";
    case 4: return "SEND";
    case 5: return "RECEIVE";
    case 6: return "ALLGATHER";
    case 7: return "REDUCE_SCATTER";
    case 8: return "ALLTOALLV";
    case 9: return "ALLTOALLVC";
    case 10: return "ALLTOALL";
    case 11: return "GATHER";
    case 12: return "SCATTER";
    case 13: return "BATCH_SEND_RECV";
    case 14: return "BATCH_PUT";
    case 15: return "BATCH_GET";
    case 16: return "ALLGATHER_V";
    case 17: return "REDUCE_SCATTER_V";
    case 18: return "BATCH_WRITE";
    case 20: return "HALF_ALLTOALLV";
    case 21: return "ALL";
    case 100: return "FINALIZE";
    case 101: return "INTER_GROUP_SYNC";
    case 102: return "INIT";
    case 103: return "BARRIER";
    default: return "";
  }
}

Result<VCounts> decode_v_counts(Bytes b, u32 ranks) {
  u64 need = 8 + 16 * u64{ranks};  // ranks < 2^32: no overflow
  if (b.size() != need) {
    return Error{fmt::format("blob is {} bytes; with rankSize {} a V-operator extension is exactly 8 + 16·{} = {}",
                      b.size(), ranks, ranks, need)};
  }
  VCounts v;
  v.local = u64_at(b, 0);
  v.counts.resize(ranks);
  v.displs.resize(ranks);
  for (u32 i = 0; i < ranks; ++i) {
    v.counts[i] = u64_at(b, 8 + 8 * std::size_t{i});
    v.displs[i] = u64_at(b, 8 + 8 * std::size_t{ranks} + 8 * std::size_t{i});
  }
  return v;
}

Result<std::vector<u64>> decode_matrix(Bytes b, u32 ranks) {
  if (b.size() < 4) {
    return Error{fmt::format("blob is {} bytes; an all-to-all matrix needs a 4-byte cell count and {}·{} cells",
                      b.size(), ranks, ranks)};
  }
  u64 n = u32_at(b, 0);
  u64 fit = (b.size() - 4) / 8;
  if (n > fit) {
    return Error{fmt::format("cell count {} needs {} bytes; the blob has {}", n, 4 + 8 * n, b.size())};
  }
  u64 want = u64{ranks} * ranks;
  if (n != want) {
    return Error{fmt::format("cell count {} is not rankSize² = {}", n, want)};
  }
  if (b.size() != 4 + 8 * n) {
    return Error{fmt::format("blob is {} bytes; {} cells take exactly {}", b.size(), n, 4 + 8 * n)};
  }
  std::vector<u64> m(n);
  for (u64 i = 0; i < n; ++i) m[i] = u64_at(b, 4 + 8 * i);
  return m;
}

Result<u32> decode_batch_items(Bytes b) {
  if (b.size() != 4) {
    return Error{fmt::format("blob is {} bytes; a BatchSendRecv extension is exactly 4 (u32 itemNum)", b.size())};
  }
  return u32_at(b, 0);
}

std::string_view meta_type_name(u8 type) {
  switch (type) {
    case kMetaNotifyWait: return "NOTIFY_WAIT";
    case kMetaNotifyRecord: return "NOTIFY_RECORD";
    case kMetaReduce: return "REDUCE";
    case kMetaMemCpy: return "MEM_CPY";
    case kMetaCcuGraph: return "CCU_GRAPH";
    case kMetaAivGraph: return "AIV_GRAPH";
    case kMetaEventWait: return "EVENT_WAIT";
    case kMetaEventRecord: return "EVENT_RECORD";
    default: return "";
  }
}

CcuSqe TaskMetaBytes::sqe() const {
  CcuSqe q;
  q.die = p_[35];
  q.mission = p_[36];
  q.timeout = le<u16>(37);
  q.inst_start = le<u16>(39);
  q.inst_count = le<u16>(41);
  q.key = le<u32>(43);
  q.arg_size = le<u32>(47);
  for (u32 k = 0; k < kCcuSqeArgs; ++k) q.args[k] = le<u64>(51 + 8 * std::size_t{k});
  return q;
}

Result<TaskMeta> decode_task_meta(Bytes b) {
  if (b.size() < kTaskMetaBytes) {
    return Error{fmt::format("blob is {} bytes; a packed HcclTaskMetaData needs {}", b.size(), kTaskMetaBytes)};
  }
  TaskMeta m;
  copy_task_fields(TaskMetaBytes(b.data()), m, [&](TaskMetaBytes v) { m.sqe = v.sqe(); });
  return m;
}

}  // namespace cc::hcclvm
