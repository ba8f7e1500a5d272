#include "render/trace_io/json_out.h"

namespace attn::render {

void JsonOut::separate() {
    if (after_key_) {  // the value of a key: the key wrote the separator
        after_key_ = false;
        return;
    }
    if (first_.empty()) return;  // the document's one value
    if (!first_.back()) out_ += ',';
    first_.back() = false;
}

void JsonOut::open(char c) {
    separate();
    out_ += c;
    first_.push_back(true);
}

void JsonOut::close(char c) {
    out_ += c;
    first_.pop_back();
}

void JsonOut::key(std::string_view k) {
    separate();
    out_ += Json(std::string(k)).dump();
    out_ += ':';
    after_key_ = true;
}

void JsonOut::value(const Json& v) {
    separate();
    out_ += v.dump();
}

// One row as the tree would dump it: a small Json array of floats at a time.
void JsonOut::row(const Mat& m, std::size_t i) {
    Json r = Json::array();
    r.get_ref<Json::array_t&>().reserve(m.shape(1));
    for (std::size_t j = 0; j < m.shape(1); ++j) r.push_back(m(i, j));
    value(r);
}

void JsonOut::matrix(const Mat& m) {
    begin_array();
    for (std::size_t i = 0; i < m.shape(0); ++i) row(m, i);
    end_array();
}

void JsonOut::bool_matrix(const Mask& m) {
    begin_array();
    for (std::size_t i = 0; i < m.shape(0); ++i) {
        separate();
        out_ += '[';
        for (std::size_t j = 0; j < m.shape(1); ++j) {
            if (j) out_ += ',';
            out_ += m(i, j) ? "true" : "false";
        }
        out_ += ']';
    }
    end_array();
}

}  // namespace attn::render
