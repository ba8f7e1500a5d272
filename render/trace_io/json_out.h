// A compact JSON writer that appends to one string: objects, arrays and small values, and matrices
// row by row. It writes the same bytes as dumping the whole document with nlohmann::json (compact,
// keys in the order given), without ever holding the document as a tree: a 2048-token trace is
// about 130 MB of text, and its tree would take 200 MB more.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "render/trace_io/json.h"

namespace attn::render {

class JsonOut {
public:
    explicit JsonOut(std::string& out) : out_(out) {}

    void begin_object() { open('{'); }
    void end_object() { close('}'); }
    void begin_array() { open('['); }
    void end_array() { close(']'); }
    void key(std::string_view k);     // the next value's key, inside an object
    void value(const Json& v);        // a small value: number, string, list of tokens, settings
    void matrix(const Mat& m);        // (R, C) -> an array of R rows, as render::matrix
    void row(const Mat& m, std::size_t i);  // row i of m as an array (a bias vector)
    void bool_matrix(const Mask& m);  // (T, S) -> rows of booleans, as render::bool_matrix

    // The bytes one number or boolean takes at most, with its comma: what to reserve for a trace.
    // A float32 prints in at most 9 significant digits, fixed from 1e-4 up to 1e6 and with an exponent
    // outside: "-1.23456789e-05," and "-0.000123456789," are the longest.
    static constexpr double kMaxNumberBytes = 16.0;
    static constexpr double kMaxBoolBytes = 6.0;     // "false,"

private:
    void open(char c);
    void close(char c);
    void separate();  // the comma before every value of an array or key of an object but the first
    std::string& out_;
    std::vector<bool> first_;  // per open container: nothing written into it yet
    bool after_key_ = false;
};

// The trace's attention sets, each with its layers of heads ("attention": [...], render/trace_io/json.cpp).
void write_attention(JsonOut& j, const Trace& t);

// A model trace's own fields (model, token_ids, attention, aggregates, predictions), field by field
// (render/trace_io/json_model.cpp).
void write_model_trace(JsonOut& j, const Trace& t);

}  // namespace attn::render
