#include "io/line_reader.h"

#include <cerrno>
#include <algorithm>
#include <cstring>

namespace cc {

namespace {
constexpr std::size_t kChunk = std::size_t{1} << 22;  // 4 MiB per read
}

LineReader::~LineReader() {
  if (f_ && owned_) std::fclose(f_);
}

std::string LineReader::open(const std::string& path) {
  f_ = std::fopen(path.c_str(), "rb");
  if (!f_) return std::strerror(errno);
  owned_ = true;
  return {};
}

void LineReader::attach(std::FILE* f) {
  f_ = f;
  owned_ = false;
}

void LineReader::attach_memory(std::string_view text) {
  cap_ = text.size() + kLinePadding;
  buf_.reset(new char[cap_]);
  std::memcpy(buf_.get(), text.data(), text.size());
  std::memset(buf_.get() + text.size(), 0, kLinePadding);
  begin_ = 0;
  end_ = text.size();
  eof_ = true;
}

// Moves unread data to the front and appends the next chunk.
bool LineReader::fill() {
  if (eof_ || !f_) return false;
  if (begin_ > 0) {
    std::memmove(buf_.get(), buf_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (cap_ < end_ + kChunk + kLinePadding) {
    // Grows only for a line longer than the chunk: bounded by the file.
    std::size_t cap = std::max(end_ + kChunk + kLinePadding, cap_ * 2);
    std::unique_ptr<char[]> bigger(new char[cap]);
    if (end_) std::memcpy(bigger.get(), buf_.get(), end_);
    buf_ = std::move(bigger);
    cap_ = cap;
  }
  std::size_t got = std::fread(buf_.get() + end_, 1, kChunk, f_);
  if (got < kChunk) {
    if (std::ferror(f_)) error_ = std::strerror(errno ? errno : EIO);
    eof_ = true;
  }
  end_ += got;
  std::memset(buf_.get() + end_, 0, kLinePadding);
  return got > 0;
}

bool LineReader::next(std::string_view& line) {
  std::size_t scanned = begin_;
  for (;;) {
    const char* start = buf_.get() + begin_;
    const void* nl =
        end_ > scanned ? std::memchr(buf_.get() + scanned, '\n', end_ - scanned) : nullptr;
    if (nl) {
      std::size_t len = static_cast<const char*>(nl) - start;
      begin_ += len + 1;
      if (len > 0 && start[len - 1] == '\r') --len;
      line = std::string_view(start, len);
      ++line_no_;
      return true;
    }
    std::size_t pending = end_ - begin_;
    if (!fill()) {
      if (!error_.empty()) return false;
      if (end_ == begin_) return false;
      // Last line without a final newline.
      start = buf_.get() + begin_;
      std::size_t len = end_ - begin_;
      begin_ = end_;
      if (len > 0 && start[len - 1] == '\r') --len;
      line = std::string_view(start, len);
      ++line_no_;
      return true;
    }
    scanned = begin_ + pending;  // fill() moved the unread data to the front
  }
}

}  // namespace cc
