// The rules of the command line's numeric and choice options, one row per option: the CLI binds each
// option's accepted values from option_rules(), and the tests check every row's bad example.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

enum class OptionType {
    whole,     // a decimal whole number in [min, max]; no sign, no exponent, no hex
    fraction,  // a decimal number p with 0 <= p < 1 (also as float32)
    choice,    // one of `choices`; a comma-separated list when `list`
    range,     // "auto", "data" or "MIN,MAX": two finite decimal numbers, MIN < MAX
    name,      // a file name part: 1 to max of [A-Za-z0-9._-], not starting with '.'
};

struct OptionRule {
    const char* option;  // "--d-in"
    OptionType type;
    std::uint64_t min, max;            // whole: inclusive bounds
    std::vector<std::string> choices;  // choice
    bool list;                         // choice: comma-separated, each item checked
    const char* bad_example;           // a value that breaks the rule (the table's example)
};

const std::vector<OptionRule>& option_rules();
const OptionRule& option_rule(const std::string& option);  // throws std::logic_error when unknown

// The rule in words: "a whole number from 1 to 65536", "one of dot, general, concat".
std::string option_rule_text(const OptionRule& rule);

// Empty when `text` is acceptable for the rule, else why not: "'abc' is not a whole number from 1 to 65536".
std::string check_option_text(const OptionRule& rule, const std::string& text);

}  // namespace attn
