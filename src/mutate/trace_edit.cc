#include "mutate/trace_edit.h"

namespace cc::mutate {

TraceEdit::TraceEdit(const Trace& base) : t_(base), removed_(base.tasks.size()), own_slices_(base.tasks.size()) {}

void TraceEdit::remove(u32 task) { removed_[task] = 1; }

u32 slice_count(const Trace& t, const Task& k) {
  u32 n = 0;
  for (u32 g = 0; g < k.group_count(); ++g) n += t.group(k, g).src_count + 1;
  return n;
}

u32 slice_index(const Trace& t, const Task& k, u32 i) {
  for (u32 g = 0; g < k.group_count(); ++g) {
    const Group& gr = t.group(k, g);
    if (i < gr.src_count) return gr.first_src + i;
    if (i == gr.src_count) return gr.dst;
    i -= gr.src_count + 1;
  }
  return kNone;
}

bool slice_is_dst(const Trace& t, const Task& k, u32 i) {
  for (u32 g = 0; g < k.group_count(); ++g) {
    const Group& gr = t.group(k, g);
    if (i <= gr.src_count) return i == gr.src_count;
    i -= gr.src_count + 1;
  }
  return false;
}

Slice& TraceEdit::slice(u32 id, u32 i) {
  Task& k = t_.tasks[id];
  if (!own_slices_[id]) {
    // Copy the task's groups and slices so that the change stays private.
    own_slices_[id] = 1;
    u32 first = static_cast<u32>(t_.groups.size());
    for (u32 g = 0; g < k.group_count(); ++g) {
      Group gr = t_.groups[k.first_group() + g];
      u32 src = static_cast<u32>(t_.slices.size());
      for (u32 s = 0; s < gr.src_count; ++s) t_.slices.push_back(t_.slices[gr.first_src + s]);
      Slice dst = t_.slices[gr.dst];
      gr.first_src = src;
      gr.dst = static_cast<u32>(t_.slices.size());
      t_.slices.push_back(dst);
      t_.groups.push_back(gr);
    }
    k.set_first_group(first);
  }
  return t_.slices[slice_index(t_, k, i)];
}

Trace TraceEdit::finish() {
  Trace out = t_;
  out.tasks.clear();
  out.streams.clear();
  std::vector<u32> pos(t_.tasks.size(), kNone);  // old id -> position before finalizing
  auto keep = [&](const Task& k) {
    out.tasks.push_back(k);
    out.tasks.back().line = 0;
  };
  for (u32 id = 0; id < t_.tasks.size(); ++id) {
    if (auto it = before_.find(id); it != before_.end())
      for (const Task& k : it->second) keep(k);
    if (!removed_[id]) {
      pos[id] = static_cast<u32>(out.tasks.size());
      keep(t_.tasks[id]);
    }
    if (auto it = after_.find(id); it != after_.end())
      for (const Task& k : it->second) keep(k);
  }
  for (const Task& k : appended_) keep(k);
  out.extra_edges.clear();
  for (auto [a, b] : t_.extra_edges)
    if (pos[a] != kNone && pos[b] != kNone) out.extra_edges.push_back({pos[a], pos[b]});
  (void)finalize_trace(out);  // sizes come from a trace that was final: they fit
  return out;
}

}  // namespace cc::mutate
