#include "io/byte_source.h"

#include <fmt/format.h>
#include <zlib.h>
#include <zstd.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <mutex>

namespace cc {

namespace {

std::string g_stdin_copy;  // path of the copy, once made

void remove_stdin_copy() {
  if (!g_stdin_copy.empty()) ::unlink(g_stdin_copy.c_str());
}

Result<std::string> copy_stdin() {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  std::string path = (dir / "collcheck-stdin-XXXXXX").string();
  int fd = ::mkstemp(path.data());
  if (fd < 0) return Error{fmt::format("cannot copy standard input to {}: {}", path, std::strerror(errno))};
  g_stdin_copy = path;
  std::atexit(remove_stdin_copy);
  std::vector<char> buf(1 << 20);
  for (;;) {
    std::size_t got = std::fread(buf.data(), 1, buf.size(), stdin);
    if (got == 0) break;
    for (std::size_t done = 0; done < got;) {
      ssize_t w = ::write(fd, buf.data() + done, got - done);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        int why = errno;
        ::close(fd);
        return Error{fmt::format("cannot copy standard input to {}: {}", path, std::strerror(why))};
      }
      done += static_cast<std::size_t>(w);
    }
  }
  bool failed = std::ferror(stdin);
  ::close(fd);
  if (failed) return Error{"cannot read standard input"};
  return path;
}

}  // namespace

Result<std::string> input_path(const std::string& name) {
  if (name != "-") return name;
  static std::once_flag once;
  static Result<std::string> copy = Error{"standard input not read"};
  std::call_once(once, [] { copy = copy_stdin(); });
  return copy;
}

ByteSource::~ByteSource() {
  if (gz_) gzclose(static_cast<gzFile>(gz_));
  if (zstd_) ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(zstd_));
  if (f_ && owned_) std::fclose(f_);
}

Status ByteSource::open(const std::string& name) {
  Result<std::string> real = input_path(name);
  if (!real) return real.error();
  const std::string& path = real.value();
  f_ = std::fopen(path.c_str(), "rb");
  if (!f_) return Error{std::strerror(errno)};
  owned_ = true;
  unsigned char magic[4] = {0, 0, 0, 0};
  std::size_t got = std::fread(magic, 1, 4, f_);
  std::rewind(f_);
  if (got >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
    kind_ = Kind::Gzip;
    // zlib reads from its own descriptor; ours stays open for is_open().
    gz_ = gzopen(path.c_str(), "rb");
    if (!gz_) return Error{"cannot open gzip stream"};
    gzbuffer(static_cast<gzFile>(gz_), 1 << 20);
  } else if (got == 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd) {
    kind_ = Kind::Zstd;
    zstd_ = ZSTD_createDCtx();
    zin_.resize(ZSTD_DStreamInSize());
  }
  return {};
}

Status ByteSource::seek(u64 offset) {
  if (!f_ || kind_ != Kind::Plain) return Error{"cannot seek in this input"};
  if (offset > static_cast<u64>(std::numeric_limits<off_t>::max()) ||
      ::fseeko(f_, static_cast<off_t>(offset), SEEK_SET) != 0)
    return Error{std::strerror(errno ? errno : EINVAL)};
  return {};
}

void ByteSource::attach(std::FILE* f) {
  f_ = f;
  owned_ = false;
}

std::size_t ByteSource::read(char* dst, std::size_t n) {
  if (!f_ || !error_.empty()) return 0;
  switch (kind_) {
    case Kind::Plain: {
      std::size_t got = std::fread(dst, 1, n, f_);
      if (got == 0 && std::ferror(f_)) error_ = std::strerror(errno ? errno : EIO);
      return got;
    }
    case Kind::Gzip: {
      auto* gz = static_cast<gzFile>(gz_);
      int got = gzread(gz, dst, static_cast<unsigned>(std::min<std::size_t>(n, 1u << 30)));
      int code = Z_OK;
      const char* why = gzerror(gz, &code);
      // A truncated file reads as a short stream with Z_BUF_ERROR.
      if (got < 0 || (got == 0 && code != Z_OK && code != Z_STREAM_END)) {
        error_ = fmt::format("corrupt or truncated gzip data: {}", why);
        return 0;
      }
      return static_cast<std::size_t>(got);
    }
    case Kind::Zstd:
      return read_zstd(dst, n);
  }
  return 0;
}

std::size_t ByteSource::read_zstd(char* dst, std::size_t n) {
  ZSTD_outBuffer out{dst, n, 0};
  auto* ctx = static_cast<ZSTD_DCtx*>(zstd_);
  while (out.pos < out.size) {
    if (zin_pos_ == zin_end_) {
      if (zin_eof_) break;
      zin_end_ = std::fread(zin_.data(), 1, zin_.size(), f_);
      zin_pos_ = 0;
      if (zin_end_ < zin_.size()) zin_eof_ = true;
      if (zin_end_ == 0) break;
    }
    ZSTD_inBuffer in{zin_.data(), zin_end_, zin_pos_};
    std::size_t r = ZSTD_decompressStream(ctx, &out, &in);
    zin_pos_ = in.pos;
    if (ZSTD_isError(r)) {
      error_ = fmt::format("corrupt zstd data: {}", ZSTD_getErrorName(r));
      return 0;
    }
    frame_done_ = r == 0;
  }
  if (out.pos == 0 && zin_eof_ && zin_pos_ == zin_end_ && !frame_done_)
    error_ = "truncated zstd data";
  return out.pos;
}

std::string read_head(const std::string& path, std::size_t n) {
  ByteSource src;
  if (!src.open(path)) return {};
  std::string head(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    std::size_t r = src.read(head.data() + got, n - got);
    if (r == 0) break;
    got += r;
  }
  head.resize(got);
  return head;
}

}  // namespace cc
