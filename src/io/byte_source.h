// The bytes of an input file, decompressed when it is gzip or zstd (told by
// its first bytes, never by its name): traces of gigabytes are often stored
// compressed, and collcheck reads them without a temporary copy.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "model/result.h"
#include "model/types.h"

namespace cc {

class ByteSource {
 public:
  enum class Kind { Plain, Gzip, Zstd };

  ByteSource() = default;
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;
  ~ByteSource();

  // Opens `path`; fails with why it cannot.
  Status open(const std::string& path);
  // Moves an uncompressed file opened by open() to byte `offset`.
  Status seek(u64 offset);
  // Reads an already open, uncompressed stream (not closed here).
  void attach(std::FILE* f);

  // Up to `n` decompressed bytes; 0 at the end or on an error (see error()).
  std::size_t read(char* dst, std::size_t n);
  const std::string& error() const { return error_; }
  Kind kind() const { return kind_; }
  bool is_open() const { return f_ != nullptr; }

 private:
  std::size_t read_zstd(char* dst, std::size_t n);

  std::FILE* f_ = nullptr;
  bool owned_ = false;
  Kind kind_ = Kind::Plain;
  void* gz_ = nullptr;    // gzFile
  void* zstd_ = nullptr;  // ZSTD_DCtx*
  std::vector<char> zin_;
  std::size_t zin_pos_ = 0, zin_end_ = 0;
  bool zin_eof_ = false, frame_done_ = true;
  std::string error_;
};

// The input named "-" is standard input. It is copied once to a temporary
// file (removed at exit), so that it is read exactly like a named file: its
// format and compression told by its first bytes, a database opened by
// SQLite, and read again by whoever needs it. The copy's path, or why it
// could not be made; for any other name, the name itself.
Result<std::string> input_path(const std::string& name);

// The first `n` decompressed bytes of `path` ("" if it cannot be read).
std::string read_head(const std::string& path, std::size_t n);

}  // namespace cc
