// Reading JSON that a person or another program wrote, strictly and in attn's words: a key given twice
// in one object is refused by its path (JSON leaves a repeated key's meaning open, and a reader that kept
// the last would show what one that kept the first does not), nesting is bounded (so hostile text cannot
// make the parser or the value's destructor recurse deeply), and a syntax error says where it is, by byte
// offset, without the parser's own prefix ("[json.exception.parse_error.101] ...").
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <stdexcept>
#include <type_traits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attn {

// Called with the problem's path ("attention[0].name", "" for the whole text) and what is wrong
// ("is given twice in its object ..."); it must throw (input_error), never return.
using JsonFail = std::function<void(const std::string& where, const std::string& why)>;

// Where a parser is: one frame per open object (its keys so far, the key being read) or array (the
// elements read so far), so that a repeated key is named by its path.
class JsonKeyPath {
public:
    // The path of `key` when the open object already has it, else nothing.
    std::optional<std::string> add_key(const std::string& key);
    void open(bool object) { frames_.push_back({object, {}, {}, 0}); }
    void close();
    void done_value() {
        if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
    }

private:
    struct Frame {
        bool object;
        std::set<std::string> keys;
        std::string key;
        std::size_t index;
    };
    std::string path() const;
    std::vector<Frame> frames_;
};

// A syntax error in attn's words: "invalid JSON at byte offset 4: unexpected end of input; expected ']'".
std::string json_syntax_problem(const nlohmann::json::parse_error& e);

// text parsed into a value (nlohmann::json, or the trace's float32 variant); nesting deeper than
// max_depth, a repeated key, a syntax error or a number beyond the value type's range go to fail.
template <class BasicJson = nlohmann::json>
BasicJson parse_json_strict(const std::string& text, int max_depth, const JsonFail& fail) {
    JsonKeyPath at;
    using Event = typename BasicJson::parse_event_t;
    try {
        return BasicJson::parse(text, [&](int depth, Event event, BasicJson& parsed) {
            if (depth > max_depth) fail("", "nested more than " + std::to_string(max_depth) + " deep");
            if (event == Event::object_start || event == Event::array_start) at.open(event == Event::object_start);
            else if (event == Event::object_end || event == Event::array_end) at.close();
            else if (event == Event::value) at.done_value();
            else if (event == Event::key)
                if (const auto twice = at.add_key(parsed.template get<std::string>()))
                    fail(*twice, "is given twice in its object (JSON does not say which one counts)");
            return true;
        });
    } catch (const nlohmann::json::parse_error& e) {
        fail("", json_syntax_problem(e));
    } catch (const nlohmann::json::out_of_range&) {  // a number beyond the type: 1e999, or 1e39 for float32
        fail("", std::is_same_v<typename BasicJson::number_float_t, float> ? "a number is beyond float32"
                                                                             : "a number is beyond the range of a double");
    }
    throw std::logic_error("parse_json_strict: fail returned");  // fail throws
}

}  // namespace attn
