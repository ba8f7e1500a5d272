// The JSON trace reader's pieces shared by render/trace_io/trace_read_json.cpp (the trace, a seeded kind's
// fields, the attention sets) and render/trace_io/trace_read_model.cpp (a model run's own fields): the
// checked field reads that name the file and the field in every error, and the layers and heads reader.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/base/trace.h"
#include "data/base/error.h"
#include "render/trace_io/json.h"

namespace attn::render::trace_fields {

constexpr const char* kTraceHint = "give a trace written by 'attn show --json', or a .npy of attention weights";
constexpr int kMaxTraceDepth = 9;
constexpr std::size_t kMaxModelNameBytes = 256;  // model.name: a folder's base name or a repo id  // {"attention": [{"layers": [{"heads": [{"weights": [[...]]}]}]}]} is 9 deep

// A weight row sums to 1 within this. attn's float32 softmax rows stay far inside it: over 3,000 keys
// the largest |row sum − 1| measured 8.2e-7 (causal), 1.1e-6 (mha, 2 heads) and 1.0e-6 (flash's tiles);
// an edit that moves a weight by more than 0.001 is refused.
constexpr double kRowSumTolerance = 1e-3;

// What the trace's own fields say its heads must agree with (read before the heads): the heads a layer
// holds (config.heads of a seeded kind, model.n_head of a model; 0 when the trace does not say) and the
// dropout probability its dropped_weights were scaled by.
struct HeadFacts {
    std::size_t heads = 0;
    std::string heads_field;  // "config.heads" | "model.n_head"
    std::size_t kv_heads = 0;  // config.kv_heads of a seeded kind when stated, else 0
    float dropout = 0.0f;
};

// Errors name the file and the field: "t.json: heads[0].weights: row 2 has 3 values but row 0 has 4".
struct Reader {
    const std::string& name;
    HeadFacts facts = {};

    [[noreturn]] void fail(const std::string& where, const std::string& why) const {
        input_error(name + ": " + (where.empty() ? "" : where + ": ") + why, kTraceHint);
    }

    const Json* find(const Json& obj, const char* key) const {
        const auto it = obj.find(key);
        return it == obj.end() ? nullptr : &*it;
    }
    const Json& need(const Json& obj, const char* key, const std::string& where) const {
        const Json* j = find(obj, key);
        if (!j) fail(where, std::string("\"") + key + "\" is missing");
        return *j;
    }
    void expect(bool ok, const std::string& where, const std::string& what) const {
        if (!ok) fail(where, "expected " + what);
    }

    std::string text(const Json& j, const std::string& where) const {
        expect(j.is_string(), where, "a string");
        return j.get<std::string>();
    }
    std::vector<std::string> texts(const Json& j, const std::string& where) const {
        expect(j.is_array(), where, "an array of strings");
        std::vector<std::string> out;
        for (std::size_t i = 0; i < j.size(); ++i) out.push_back(text(j[i], where + "[" + std::to_string(i) + "]"));
        return out;
    }
    std::uint64_t whole(const Json& j, const std::string& where) const {
        expect(j.is_number_unsigned() || (j.is_number_integer() && j.get<std::int64_t>() >= 0), where,
               "a whole number");
        return j.get<std::uint64_t>();
    }
    std::size_t size(const Json& j, const std::string& where) const {
        return static_cast<std::size_t>(whole(j, where));
    }
    std::int64_t integer(const Json& j, const std::string& where) const {
        expect(j.is_number_integer(), where, "an integer");
        return j.get<std::int64_t>();
    }
    float number(const Json& j, const std::string& where) const {
        expect(j.is_number(), where, "a number");
        return j.get<float>();
    }
    bool flag(const Json& j, const std::string& where) const {
        expect(j.is_boolean(), where, "true or false");
        return j.get<bool>();
    }
    std::vector<float> numbers(const Json& j, const std::string& where, bool null_is_minus_inf = false) const {
        expect(j.is_array(), where, "an array of numbers");
        std::vector<float> out;
        out.reserve(j.size());
        for (std::size_t i = 0; i < j.size(); ++i) {
            if (null_is_minus_inf && j[i].is_null()) out.push_back(-INFINITY);
            else out.push_back(number(j[i], where + "[" + std::to_string(i) + "]"));
        }
        return out;
    }

    // An array of equal rows: (rows, cols); [] is (0, 0).
    template <typename M, typename Cell>
    M matrix(const Json& j, const std::string& where, Cell cell) const {
        expect(j.is_array(), where, "an array of rows");
        const std::size_t rows = j.size();
        const std::size_t cols = rows ? j[0].size() : 0;
        M m = M::from_shape({rows, cols});
        for (std::size_t i = 0; i < rows; ++i) {
            const Json& row = j[i];
            const std::string rw = where + " row " + std::to_string(i);
            expect(row.is_array(), rw, "an array");
            if (row.size() != cols)
                fail(rw, "has " + std::to_string(row.size()) + " values but row 0 has " + std::to_string(cols));
            for (std::size_t c = 0; c < cols; ++c) m(i, c) = cell(row[c], rw);
        }
        return m;
    }
    Mat mat(const Json& j, const std::string& where) const {
        return matrix<Mat>(j, where, [&](const Json& v, const std::string& w) { return number(v, w); });
    }
    Mask mask(const Json& j, const std::string& where) const {
        return matrix<Mask>(j, where, [&](const Json& v, const std::string& w) {
            return static_cast<std::uint8_t>(flag(v, w) ? 1 : 0);
        });
    }
    Mat optional_mat(const Json& obj, const char* key, const std::string& where) const {
        const Json* j = find(obj, key);
        return j ? mat(*j, where + "." + key) : Mat();
    }

    void shape(const Mat& m, std::size_t rows, std::size_t cols, const std::string& where) const {
        if (m.size() && (m.shape(0) != rows || m.shape(1) != cols))
            fail(where, "is (" + std::to_string(m.shape(0)) + ", " + std::to_string(m.shape(1)) + ") but (T, S) = (" +
                            std::to_string(rows) + ", " + std::to_string(cols) + ")");
    }
};

// Heads (T, S) with the stages each holds; layers of heads, each numbered once within `depth` model
// layers (the set's stack's blocks) and with the first layer's stages (render/trace_io/trace_read_json.cpp).
std::vector<HeadTrace> read_heads(const Reader& r, const Json& j, const std::string& w, std::size_t T, std::size_t S);
std::vector<LayerTrace> read_layers(const Reader& r, const Json& v, const std::string& where, const Trace& t, std::size_t T,
                                    std::size_t S, std::size_t depth);
std::vector<LayerTrace> read_layers(const Reader& r, const Json& v, const std::string& where, const Trace& t);

// A model run's fields (render/trace_io/trace_read_model.cpp): the model object, ids, aggregates and
// predictions, an encoder's and an encoder-decoder's own; and an encoder-decoder's three sets.
void read_model(const Reader& r, const Json& j, Trace& t);
std::vector<AttentionSet> read_encoder_decoder_sets(const Reader& r, const Json& v, const Trace& t);

}  // namespace attn::render::trace_fields
