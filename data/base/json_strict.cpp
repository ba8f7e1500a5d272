#include "data/base/json_strict.h"

#include "data/base/error.h"

namespace attn {

std::optional<std::string> JsonKeyPath::add_key(const std::string& key) {
    Frame& f = frames_.back();
    f.key = key;
    if (!f.keys.insert(key).second) return path();
    return std::nullopt;
}

void JsonKeyPath::close() {
    frames_.pop_back();
    done_value();
}

std::string JsonKeyPath::path() const {
    std::string p;
    for (const Frame& f : frames_) p += f.object ? (p.empty() ? "" : ".") + excerpt(f.key) : "[" + std::to_string(f.index) + "]";
    return p;
}

// "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error while parsing value -
// unexpected end of input; expected ']'": what follows " - ", without "last read: '...'" (which would
// quote the text raw), after the byte offset.
std::string json_syntax_problem(const nlohmann::json::parse_error& e) {
    std::string why = e.what();
    const auto dash = why.rfind(" - ");
    why = dash == std::string::npos ? "syntax error" : why.substr(dash + 3);
    const auto last = why.find("; last read: '");
    const auto close = last == std::string::npos ? last : why.find("'; ", last + 14);
    if (close != std::string::npos) why.erase(last, close + 1 - last);
    else if (last != std::string::npos) why.erase(last);
    const std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    return "invalid JSON at byte offset " + std::to_string(offset) + ": " + why;
}

}  // namespace attn
