#include "data/validation.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace attn {
namespace {

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

std::string join(const std::vector<std::string>& v, const char* sep) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
    return s;
}

std::string rule_text(const OptionRule& r) {
    switch (r.type) {
        case OptionType::whole:
            return "a whole number from " + std::to_string(r.min) + " to " + std::to_string(r.max);
        case OptionType::fraction:
            return "a number from 0 up to, not including, 1";
        case OptionType::choice:
            return (r.list ? "a comma-separated list of " : "one of ") + join(r.choices, ", ");
    }
    return "";
}

std::string gib(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / double(1ull << 30));
    return buf;
}

}  // namespace

const std::vector<OptionRule>& option_rules() {
    static const std::vector<OptionRule> rules = {
        {"--d-in", OptionType::whole, 1, kMaxWidth, {}, false, "0"},
        {"--d-out", OptionType::whole, 1, kMaxWidth, {}, false, "100000"},
        {"--seed", OptionType::whole, 0, kU64Max, {}, false, "-1"},
        {"--heads", OptionType::whole, 1, 1024, {}, false, "0"},
        {"--kv-heads", OptionType::whole, 1, 1024, {}, false, "2.5"},
        {"--window", OptionType::whole, 0, kMaxTokensLimit, {}, false, "-2"},
        {"--block-q", OptionType::whole, 1, kMaxTokensLimit, {}, false, "0"},
        {"--block-k", OptionType::whole, 1, kMaxTokensLimit, {}, false, "1e3"},
        {"--max-tokens", OptionType::whole, 1, kMaxTokensLimit, {}, false, "0x10"},
        {"--precision", OptionType::whole, 0, 9, {}, false, "10"},
        {"--dropout", OptionType::fraction, 0, 0, {}, false, "1"},
        {"--init", OptionType::choice, 0, 0, {"torch", "torch-rand"}, false, "xavier"},
        {"--score", OptionType::choice, 0, 0, {"dot", "general", "concat"}, false, "cosine"},
        {"--color", OptionType::choice, 0, 0, {"auto", "always", "never"}, false, "red"},
        {"--show", OptionType::choice, 0, 0,
         {"scores", "mask", "weights", "dropped", "context", "queries", "keys", "values", "output"}, true,
         "attention"},
    };
    return rules;
}

const OptionRule& option_rule(const std::string& option) {
    for (const auto& r : option_rules())
        if (option == r.option) return r;
    throw std::logic_error("no validation rule for option " + option);
}

std::string check_option_text(const OptionRule& r, const std::string& text) {
    const std::string why = "'" + text + "' is not " + rule_text(r);
    switch (r.type) {
        case OptionType::whole: {
            if (text.empty() || text.size() > 20) return why;
            std::uint64_t v = 0;
            for (char ch : text) {
                if (ch < '0' || ch > '9') return why;
                const auto digit = static_cast<std::uint64_t>(ch - '0');
                if (v > (kU64Max - digit) / 10) return why;
                v = v * 10 + digit;
            }
            return v >= r.min && v <= r.max ? "" : why;
        }
        case OptionType::fraction: {
            if (text.empty() || text.find_first_not_of("0123456789.eE+-") != std::string::npos) return why;
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            if (end != text.c_str() + text.size() || !(v >= 0.0 && v < 1.0) || !(static_cast<float>(v) < 1.0f))
                return why;
            return "";
        }
        case OptionType::choice:
            for (const auto& c : r.choices)
                if (text == c) return "";
            return why;
    }
    return why;
}

void check_run_size(double bytes, double work) {
    if (bytes > kMaxRunBytes)
        usage_error("this run would hold about " + gib(bytes) + " of matrices, more than the " + gib(kMaxRunBytes) +
                        " attn allows",
                    "use a smaller --d-in or --d-out, fewer --heads, or fewer tokens");
    if (work > kMaxRunWork) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "this run would take about %.1e multiply-adds, more than the %.1e attn allows",
                      work, kMaxRunWork);
        usage_error(buf, "use a smaller --d-in or --d-out, fewer --heads, or fewer tokens");
    }
}

std::string shell_quote(const std::string& arg) {
    if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+") ==
                            std::string::npos)
        return arg;
    std::string q = "'";
    for (char ch : arg) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return q + "'";
}

}  // namespace attn
