#include "cli/policy/options.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "data/base/error.h"
#include "data/base/limits.h"
#include "data/base/strings.h"

namespace attn {
namespace {

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

bool parse_number(const std::string& s, double& v) {
    if (s.empty() || s.find_first_not_of("0123456789.eE+-") != std::string::npos) return false;
    char* end = nullptr;
    v = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() && std::isfinite(v) && std::fabs(v) <= 3.0e38;
}

}  // namespace

const std::vector<OptionRule>& option_rules() {
    static const std::vector<OptionRule> rules = {
        {"--d-in", OptionType::whole, 1, kMaxWidth, {}, false, "0"},
        {"--d-out", OptionType::whole, 1, kMaxWidth, {}, false, "100000"},
        {"--seed", OptionType::whole, 0, kU64Max, {}, false, "-1"},
        {"--dropout-seed", OptionType::whole, 0, kU64Max, {}, false, "-1"},
        {"--heads", OptionType::whole, 1, 1024, {}, false, "0"},
        {"--kv-heads", OptionType::whole, 1, 1024, {}, false, "2.5"},
        {"--window", OptionType::whole, 0, kMaxTokensLimit, {}, false, "-2"},
        {"--block-q", OptionType::whole, 1, kMaxTokensLimit, {}, false, "0"},
        {"--block-k", OptionType::whole, 1, kMaxTokensLimit, {}, false, "1e3"},
        {"--max-tokens", OptionType::whole, 1, kMaxTokensLimit, {}, false, "0x10"},
        {"--precision", OptionType::whole, 0, 9, {}, false, "10"},
        {"--scale", OptionType::whole, 1, 8, {}, false, "1.5"},
        {"--layer", OptionType::whole, 0, 1023, {}, false, "-1"},
        {"--head", OptionType::whole, 0, 1023, {}, false, "1024"},
        {"--dropout", OptionType::fraction, 0, 0, {}, false, "1"},
        {"--init", OptionType::choice, 0, 0, {"torch", "torch-rand"}, false, "xavier"},
        {"--score", OptionType::choice, 0, 0, {"dot", "general", "concat"}, false, "cosine"},
        {"--color", OptionType::choice, 0, 0, {"auto", "always", "never"}, false, "red"},
        {"--pos", OptionType::choice, 0, 0, {"none", "sinusoidal", "rope", "alibi"}, false, "learned"},
        {"--rope-base", OptionType::whole, 2, 1000000000000ull, {}, false, "1"},
        {"--rope-style", OptionType::choice, 0, 0, {"half", "interleaved"}, false, "pairs"},
        {"--align", OptionType::choice, 0, 0, {"top-left", "bottom-right"}, false, "centre"},
        {"--show", OptionType::choice, 0, 0,
         {"scores", "masked-scores", "mask", "weights", "zeroed", "dropped", "context", "queries", "keys", "values",
          "output", "positions", "bias", "unrotated", "mean", "rollout"},
         true, "attention"},
        {"--colormap", OptionType::choice, 0, 0, {"viridis", "magma", "cividis", "gray"}, false, "jet"},
        {"--range", OptionType::range, 0, 0, {}, false, "1,0"},
        {"--split", OptionType::choice, 0, 0, {"words", "space", "chars"}, false, "bpe"},
        {"--query", OptionType::whole, 0, kMaxTokensLimit, {}, false, "-1"},
        {"--figures", OptionType::choice, 0, 0,
         {"scores", "masked-scores", "mask", "weights", "zeroed", "dropped-weights", "tiles", "queries", "keys", "values",
          "context", "output", "query", "products"},
         true, "heatmap"},
        {"--values", OptionType::choice, 0, 0, {"auto", "always", "never"}, false, "some"},
        {"--prefix", OptionType::name, 0, 64, {}, false, "../up"},
    };
    return rules;
}

const OptionRule& option_rule(const std::string& option) {
    for (const auto& r : option_rules())
        if (option == r.option) return r;
    throw std::logic_error("no validation rule for option " + option);
}

std::string option_rule_text(const OptionRule& r) {
    switch (r.type) {
        case OptionType::whole:
            return "a whole number from " + std::to_string(r.min) + " to " + std::to_string(r.max);
        case OptionType::fraction:
            return "a number from 0 up to, not including, 1";
        case OptionType::choice:
            return "one of " + join(r.choices, ", ");
        case OptionType::range:
            return "auto, data or MIN,MAX with MIN below MAX";
        case OptionType::name:
            return "1 to " + std::to_string(r.max) + " letters, digits, '-', '_' or '.', not starting with '.'";
    }
    return "";
}

std::string check_option_text(const OptionRule& r, const std::string& text) {
    const std::string why = "'" + excerpt(text) + "' is not " + option_rule_text(r);
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
            if (end != text.c_str() + text.size() || !(v >= 0.0 && v < 1.0)) return why;
            if (!(static_cast<float>(v) < 1.0f))  // attn computes in float32, where v is 1
                return "'" + text + "' rounds to 1 in float32; the largest float32 below 1 is 0.99999994";
            return "";
        }
        case OptionType::choice: {
            // a list is one value, its items separated by commas: "scores,weights"
            std::vector<std::string> items;
            for (std::size_t i = 0; r.list && i <= text.size();) {
                const auto comma = std::min(text.find(',', i), text.size());
                items.push_back(text.substr(i, comma - i));
                i = comma + 1;
            }
            if (!r.list) items = {text};
            for (const auto& item : items) {
                bool known = false;
                for (const auto& c : r.choices) known = known || item == c;
                if (known) continue;
                const std::string near = nearest_name(item, r.choices);  // "did you mean", as for option names
                return (items.size() == 1 ? why
                                          : "'" + excerpt(item) + "' in '" + excerpt(text) + "' is not " +
                                                option_rule_text(r)) +
                       (near.empty() ? "" : "; did you mean '" + near + "'?");
            }
            return "";
        }
        case OptionType::name: {
            if (text.empty() || text.size() > r.max || text[0] == '.') return why;
            for (char ch : text)
                if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
                      ch == '_' || ch == '.'))
                    return why;
            return "";
        }
        case OptionType::range: {
            if (text == "auto" || text == "data") return "";
            const auto comma = text.find(',');
            double lo = 0.0, hi = 0.0;
            if (comma == std::string::npos || !parse_number(text.substr(0, comma), lo) ||
                !parse_number(text.substr(comma + 1), hi) || !(lo < hi))
                return why;
            return "";
        }
    }
    return why;
}

}  // namespace attn
