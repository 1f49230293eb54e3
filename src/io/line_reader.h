// Reads a text file line by line in large chunks, in memory bounded by the
// longest line rather than the file. Every returned line is followed by at
// least kLinePadding readable bytes, as simdjson requires.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"
#include "io/byte_source.h"
#include "model/types.h"

namespace cc {

inline constexpr std::size_t kLinePadding = 64;

class LineReader {
 public:
  LineReader() = default;
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;
  ~LineReader();

  // Opens `path` (plain, gzip or zstd); returns an error text ("" on success).
  Status open(const std::string& path);
  // Opens the uncompressed file `path` and starts reading at byte `offset`
  // (a part of the file read by one of several threads); fails on a gzip
  // or zstd file, whose bytes cannot be reached by seeking.
  Status open_at(const std::string& path, u64 offset);
  // Reads from an already open stream (not closed by the reader).
  void attach(std::FILE* f);
  // Reads from a copy of `text`.
  void attach_memory(std::string_view text);

  // The next line without its end-of-line ("\n" or "\r\n"). False at the end
  // of the input or on a read error (see `error()`).
  bool next(std::string_view& line);
  // 1-based number of the line last returned.
  u64 line_number() const { return line_no_; }
  const std::string& error() const { return error_; }
  // Byte offset in the input of the first byte not yet returned: just past
  // the end-of-line of the line last returned.
  u64 position() const { return base_ + begin_; }
  // Whether the input is read as it is stored (not decompressed).
  bool plain() const { return src_.kind() == ByteSource::Kind::Plain; }

 private:
  bool fill();

  ByteSource src_;
  bool eof_ = false;
  // Not a std::vector: its resize would zero megabytes that fread overwrites.
  std::unique_ptr<char[]> buf_;
  std::size_t cap_ = 0;
  std::size_t begin_ = 0;  // start of unread data in buf_
  std::size_t end_ = 0;    // end of valid data in buf_
  u64 base_ = 0;           // input offset of buf_[0]
  u64 line_no_ = 0;
  std::string error_;
};

}  // namespace cc
