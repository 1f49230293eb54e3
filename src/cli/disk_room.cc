#include "cli/disk_room.h"

#include <fmt/format.h>

namespace cc {

std::string size_text(u64 bytes) {
  double mib = static_cast<double>(bytes) / (1024.0 * 1024.0);
  if (mib >= 1024.0 * 1024.0) return fmt::format("{:.1f} TiB", mib / (1024.0 * 1024.0));
  if (mib >= 1024.0) return fmt::format("{:.1f} GiB", mib / 1024.0);
  return fmt::format("{:.1f} MiB", mib);
}

Status room_for_files(u64 each, u64 files, u64 available, const std::string& dir, const std::string& what) {
  if (files == 0 || each == 0) return {};
  // each * files may pass 2^64: compare by division instead.
  if (each <= available / files) return {};
  bool wraps = each > ~u64{0} / files;
  return Error{fmt::format("{} more {} of about {} each need {} in {}, which has {} free; "
                           "choose fewer with --count N, or another --output",
                           files, what, size_text(each), wraps ? "more than 16 EiB" : "about " + size_text(each * files),
                           dir, size_text(available))};
}

}  // namespace cc
