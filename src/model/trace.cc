#include "model/trace.h"

#include <algorithm>
#include <numeric>

namespace cc {

BufId BufferNames::intern(std::string_view name) {
  auto it = ids.find(std::string(name));
  if (it != ids.end()) return it->second;
  if (names.size() >= kNoBuf) return kNoBuf;
  BufId id = static_cast<BufId>(names.size());
  names.emplace_back(name);
  ids.emplace(names.back(), id);
  return id;
}

u64 Trace::buffer_size(u32 rank, BufId buf) const {
  if (!sizes.per_rank.empty()) {
    auto it = sizes.per_rank.find((u64{rank} << 16) | buf);
    if (it != sizes.per_rank.end()) return it->second;
  }
  if (buf < sizes.declared.size() && sizes.declared[buf] != BufferSizes::kUndeclared)
    return sizes.declared[buf];
  return implied_size(rank, buf);
}

u64 Trace::implied_size(u32 rank, BufId buf) const {
  if (buf != kInput && buf != kOutput) return BufferSizes::kUndeclared;
  if (rank >= op.ranks || !op.known) return BufferSizes::kUndeclared;
  bool in = buf == kInput;
  if (op.in_place) in = true;  // OUTPUT is INPUT; readers map it, but be safe
  const BufferSizes& s = sizes;
  if (!(in ? s.input_by_rank : s.output_by_rank).empty())
    return (in ? s.input_by_rank : s.output_by_rank)[rank];
  if (s.sparse) {
    const auto& m = in ? s.input_sparse : s.output_sparse;
    auto it = m.find(rank);
    return it == m.end() ? 0 : it->second;
  }
  if (s.by_root && rank == op.root) return in ? s.input_root : s.output_root;
  return in ? s.input_all : s.output_all;
}

std::string_view Trace::notify_name(u32 id) const {
  auto it = std::lower_bound(notify_names.begin(), notify_names.end(), id,
                             [](const std::pair<u32, std::string>& e, u32 v) { return e.first < v; });
  return it != notify_names.end() && it->first == id ? std::string_view(it->second) : std::string_view();
}

u32 Trace::task_index(u32 task) const {
  // The last stream starting at or before `task` holds it (an empty stream
  // starting there too comes before it in this order).
  auto it = std::upper_bound(streams.begin(), streams.end(), task,
                             [](u32 id, const Stream& s) { return id < s.first_task; });
  return it == streams.begin() ? task : task - std::prev(it)->first_task;
}

std::optional<u64> Trace::recorded_len(u32 slice) const {
  auto it = std::lower_bound(recorded_lens.begin(), recorded_lens.end(), slice,
                             [](const std::pair<u32, u64>& e, u32 v) { return e.first < v; });
  if (it == recorded_lens.end() || it->first != slice) return std::nullopt;
  return it->second;
}

u8 Trace::intern_tag(std::string_view label) {
  auto it = std::find(tags.begin(), tags.end(), label);  // a handful of labels: linear is fastest
  if (it != tags.end()) return static_cast<u8>(it - tags.begin() + 1);
  if (tags.size() >= 255) return 0;
  tags.emplace_back(label);
  return static_cast<u8>(tags.size());
}

u32 Trace::stream_of(u32 task) const {
  auto it = std::upper_bound(streams.begin(), streams.end(), task,
                             [](u32 t, const Stream& s) { return t < s.first_task; });
  return static_cast<u32>(it - streams.begin()) - 1;
}

namespace {

// Fills the implied INPUT/OUTPUT sizes. Per-rank tables only where the
// operator lists per-rank data, so their length is backed by the file.
Status fill_implied_sizes(Trace& t) {
  const Op& op = t.op;
  BufferSizes& s = t.sizes;
  auto fail = [] { return Error{std::string("operator sizes overflow 64 bits")}; };
  switch (op.type) {
    case OpType::AllGatherV:
    case OpType::ReduceScatterV:
    case OpType::AllToAllV:
      s.input_by_rank.resize(op.ranks);
      s.output_by_rank.resize(op.ranks);
      for (u32 r = 0; r < op.ranks; ++r) {
        auto i = implied_input_size(op, r), o = implied_output_size(op, r);
        if (!i || !o) return fail();
        s.input_by_rank[r] = *i;
        s.output_by_rank[r] = *o;
      }
      return {};
    case OpType::SendRecv:
    case OpType::BatchSendRecv: {
      s.sparse = true;
      for (const SendRecvItem& it : op.items) {
        for (u32 r : {it.src, it.dst}) {
          auto i = implied_input_size(op, r), o = implied_output_size(op, r);
          if (!i || !o) return fail();
          s.input_sparse[r] = *i;
          s.output_sparse[r] = *o;
        }
      }
      return {};
    }
    default: {
      // Every rank alike, except possibly the root (Scatter, Gather).
      u32 other = op.root == 0 ? 1 : 0;
      auto i = implied_input_size(op, other), o = implied_output_size(op, other);
      auto ir = implied_input_size(op, op.root), orr = implied_output_size(op, op.root);
      if (!i || !o || !ir || !orr) return fail();
      s.input_all = *i;
      s.output_all = *o;
      s.input_root = *ir;
      s.output_root = *orr;
      s.by_root = op_has_root(op.type);
      return {};
    }
  }
}

}  // namespace

Status finalize_trace(Trace& t, std::vector<u32>* new_ids) {
  // Group tasks by (rank, stream id), keeping file order within a stream.
  // Provisional stream numbers in order of appearance, then sorted by key.
  std::unordered_map<u64, u32> provisional;
  std::vector<u32> stream_of_task(t.tasks.size());
  std::vector<std::pair<u64, u32>> keys;  // (key, provisional id)
  u64 last_key = ~u64{0};
  u32 last_id = 0;
  for (std::size_t i = 0; i < t.tasks.size(); ++i) {
    u64 key = (u64{t.tasks[i].rank} << 32) | t.tasks[i].stream;
    if (key != last_key) {
      auto [it, added] = provisional.emplace(key, static_cast<u32>(keys.size()));
      if (added) keys.emplace_back(key, it->second);
      last_key = key;
      last_id = it->second;
    }
    stream_of_task[i] = last_id;
  }
  std::sort(keys.begin(), keys.end());
  std::vector<u32> final_id(keys.size());
  t.streams.assign(keys.size(), Stream{});
  for (std::size_t s = 0; s < keys.size(); ++s) {
    final_id[keys[s].second] = static_cast<u32>(s);
    t.streams[s].rank = static_cast<u32>(keys[s].first >> 32);
    t.streams[s].id = static_cast<u32>(keys[s].first);
  }
  for (u32& s : stream_of_task) {
    s = final_id[s];
    t.streams[s].task_count++;
  }
  u32 pos = 0;
  for (Stream& s : t.streams) {
    s.first_task = pos;
    pos += s.task_count;
  }
  // Recorders usually write stream after stream: then the tasks are already
  // in place (no copy of the array).
  bool in_place = std::is_sorted(stream_of_task.begin(), stream_of_task.end());
  std::vector<u32> new_id;
  if (in_place) {
    if (new_ids || !t.extra_edges.empty() || !t.ccu.missions.empty() || !t.task_notes.empty() ||
        !t.aiv.launches.empty() || !t.sim_order.empty()) {
      new_id.resize(t.tasks.size());
      for (std::size_t i = 0; i < new_id.size(); ++i) new_id[i] = static_cast<u32>(i);
    }
  } else {
    std::vector<u32> next(t.streams.size());
    for (std::size_t s = 0; s < t.streams.size(); ++s) next[s] = t.streams[s].first_task;
    new_id.resize(t.tasks.size());
    for (std::size_t i = 0; i < t.tasks.size(); ++i) {
      u32 s = stream_of_task[i];
      u32 at = next[s]++;
      new_id[i] = at;
    }
    // Permute in place, cycle by cycle, so the task array is never held
    // twice (ten million tasks are 400 MB).
    std::vector<bool> done(t.tasks.size(), false);  // by old position
    for (u32 i = 0; i < t.tasks.size(); ++i) {
      if (done[i]) continue;
      Task carried = t.tasks[i];
      u32 j = i;
      do {
        u32 dest = new_id[j];
        std::swap(carried, t.tasks[dest]);  // carried: the task that was at dest
        done[j] = true;
        j = dest;
      } while (j != i);
    }
  }
  for (auto& [a, b] : t.extra_edges) {
    a = new_id[a];
    b = new_id[b];
  }
  for (auto& [task, note] : t.task_notes) task = new_id[task];
  for (CcuMission& m : t.ccu.missions)
    if (m.placeholder != kNone) m.placeholder = new_id[m.placeholder];
  if (!new_id.empty()) {
    t.aiv.remap(new_id);
    for (u32& task : t.sim_order) task = task < new_id.size() ? new_id[task] : kNone;
  }
  if (new_ids) *new_ids = std::move(new_id);
  return fill_implied_sizes(t);
}

}  // namespace cc
