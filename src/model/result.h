// How the core reports failure without exceptions, at every module
// boundary: Result<T> (a value or an Error) for functions that produce
// something, Status (nothing or an Error) for those that only can fail.
// An Error's message says what is wrong; the caller that knows the file and
// line puts "FILE:LINE: " in front.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace cc {

struct Error {
  // Complete text after "collcheck: error: ", e.g. "t.jsonl:3: missing key \"rank\"".
  std::string message;
};

template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error e) : v_(std::move(e)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  T* operator->() { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Success, or an Error. `return {};` succeeds; `return Error{...};` fails.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error e) : error_(std::move(e)) {}

  bool ok() const { return !error_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *error_; }
  const std::string& message() const { return error_->message; }

 private:
  std::optional<Error> error_;
};

}  // namespace cc

// Returns the error of `expr` (a Status or a Result) from the enclosing
// function, which may return a Status or any Result<T>. The one macro of the
// core: it replaces the `if (!(err = f()).empty()) return err;` chains.
#define CC_TRY(expr)                        \
  do {                                      \
    if (auto cc_try_ = (expr); !cc_try_.ok()) \
      return cc_try_.error();               \
  } while (0)
