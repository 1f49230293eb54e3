#include "io/line_reader.h"

#include <cerrno>
#include <algorithm>
#include <cstring>

namespace cc {

namespace {
constexpr std::size_t kReadChunk = std::size_t{1} << 22;  // 4 MiB per read
}

LineReader::~LineReader() = default;

Status LineReader::open(const std::string& path) { return src_.open(path); }

Status LineReader::open_at(const std::string& path, u64 offset) {
  CC_TRY(src_.open(path));
  if (src_.kind() != ByteSource::Kind::Plain) return Error{"a compressed file cannot be read from an offset"};
  CC_TRY(src_.seek(offset));
  base_ = offset;
  return {};
}

void LineReader::attach(std::FILE* f) { src_.attach(f); }

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
  if (eof_ || !src_.is_open()) return false;
  if (begin_ > 0) {
    std::memmove(buf_.get(), buf_.get() + begin_, end_ - begin_);
    base_ += begin_;
    end_ -= begin_;
    begin_ = 0;
  }
  if (cap_ < end_ + kReadChunk + kLinePadding) {
    // Grows only for a line longer than the chunk: bounded by the file.
    std::size_t cap = std::max(end_ + kReadChunk + kLinePadding, cap_ * 2);
    std::unique_ptr<char[]> bigger(new char[cap]);
    if (end_) std::memcpy(bigger.get(), buf_.get(), end_);
    buf_ = std::move(bigger);
    cap_ = cap;
  }
  // Decompressors return less than asked before the end: read until the
  // chunk is full or the input ends.
  std::size_t got = 0;
  while (got < kReadChunk) {
    std::size_t r = src_.read(buf_.get() + end_ + got, kReadChunk - got);
    if (r == 0) break;
    got += r;
  }
  if (got < kReadChunk) {
    error_ = src_.error();
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
      // After a read error the unterminated rest is cut data, not a line.
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
