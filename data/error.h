// The one error type of attn: a message, a hint, and the exit code it maps to.
#pragma once

#include <stdexcept>
#include <string>

namespace attn {

enum class ErrorKind {
    usage = 2,    // the command line is wrong: an option out of range, a bad sentence
    runtime = 1,  // the world is wrong: a missing or malformed file, a failed write
};

class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string& message, std::string hint = {})
        : std::runtime_error(message), kind_(kind), hint_(std::move(hint)) {}
    ErrorKind kind() const { return kind_; }
    int exit_code() const { return static_cast<int>(kind_); }
    const std::string& hint() const { return hint_; }

private:
    ErrorKind kind_;
    std::string hint_;
};

[[noreturn]] inline void usage_error(const std::string& message, std::string hint = {}) {
    throw Error(ErrorKind::usage, message, std::move(hint));
}
[[noreturn]] inline void input_error(const std::string& message, std::string hint = {}) {
    throw Error(ErrorKind::runtime, message, std::move(hint));
}

}  // namespace attn
