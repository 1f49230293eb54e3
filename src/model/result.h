// A value or an error message: how the core reports failure without exceptions.
#pragma once

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

}  // namespace cc
