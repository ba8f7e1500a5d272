// Reading attention saved by another model as a NumPy .npy file, and the token labels given with it
// (attn render --tokens), into a Trace (render/trace_io/trace_read.h).
#include "render/trace_io/trace_read.h"

#include <cmath>
#include <cstring>

#include "data/base/error.h"
#include "data/inputs/npy.h"
#include "data/text/tokenize.h"
#include "render/trace_io/json.h"

namespace attn::render {

TokenLabels read_token_labels(const std::string& text, const std::string& name) {
    const std::string hint = "give a JSON list of strings, {\"tokens\": [...], \"source_tokens\": [...]}, or one token per line";
    TokenLabels out;
    std::size_t start = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;  // a byte order mark
    std::size_t first = text.find_first_not_of(" \t\r\n", start);
    if (first != std::string::npos && (text[first] == '[' || text[first] == '{')) {
        // 1. JSON
        Json j;
        try {
            j = Json::parse(text.begin() + static_cast<std::ptrdiff_t>(start), text.end());
        } catch (const Json::exception& e) {
            input_error(name + ": invalid JSON at byte offset " +
                            std::to_string(dynamic_cast<const Json::parse_error*>(&e)
                                               ? dynamic_cast<const Json::parse_error*>(&e)->byte + start - 1
                                               : 0),
                        hint);
        }
        const auto strings = [&](const Json& a, const std::string& w) {
            if (!a.is_array()) input_error(name + ": " + w + " is not a list of strings", hint);
            std::vector<std::string> v;
            for (const Json& s : a) {
                if (!s.is_string()) input_error(name + ": " + w + " holds a value that is not a string", hint);
                v.push_back(s.get<std::string>());
            }
            return v;
        };
        if (j.is_array()) out.tokens = strings(j, "the list");
        else {
            if (!j.contains("tokens")) input_error(name + ": the object has no \"tokens\"", hint);
            out.tokens = strings(j["tokens"], "\"tokens\"");
            if (j.contains("source_tokens")) out.source_tokens = strings(j["source_tokens"], "\"source_tokens\"");
        }
    } else {
        // 2. one token per line (a final newline ends the last line; "\r\n" is one)
        std::size_t at = start;
        while (at < text.size()) {
            std::size_t end = text.find('\n', at);
            if (end == std::string::npos) end = text.size();
            std::string line = text.substr(at, end - at);
            if (!line.empty() && line.back() == '\r') line.pop_back();
            out.tokens.push_back(line);
            at = end + 1;
        }
    }
    // 3. each token: at most kMaxTokenBytes (checked first: a long one is not read through), UTF-8 text
    //    without control characters
    for (const auto* list : {&out.tokens, &out.source_tokens})
        for (std::size_t i = 0; i < list->size(); ++i) {
            if (auto problem = token_length_problem((*list)[i]))
                input_error(name + ": token " + std::to_string(i) + " " + *problem,
                            "give one token per position, e.g. tokenizer.convert_ids_to_tokens(ids)");
            if (auto problem = text_problem((*list)[i], false))
                input_error(name + ": token " + std::to_string(i) + " " + *problem, hint);
        }
    if (out.tokens.empty()) input_error(name + ": there are no tokens", hint);
    return out;
}

Trace read_attention_npy(const std::string& bytes, const std::string& name, const std::optional<TokenLabels>& labels,
                         const std::string& labels_name) {
    // 1. the array: float, 2-D to 4-D, nothing empty
    const NpyArray a = parse_npy(bytes, name);
    const std::string shape_hint = "save attention of shape (L, H, T, S), (H, T, S) or (T, S), e.g. "
                                   "np.save(path, torch.stack(out.attentions)[:, 0].numpy())";
    if (!npy_is_float(a))  // float32 or float64 in either byte order, as --embeddings takes
        input_error(name + ": attention must be float32 or float64, not " + a.descr, "use array.astype('float32')");
    std::string dims;
    for (std::size_t d : a.shape) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    if (a.shape.size() == 1) dims += ",";
    if (a.shape.size() < 2 || a.shape.size() > 4)
        input_error(name + ": attention of shape (" + dims + ") has " + std::to_string(a.shape.size()) +
                        " dimensions, not 2, 3 or 4",
                    shape_hint);
    for (std::size_t d : a.shape)
        if (d == 0) input_error(name + ": attention of shape (" + dims + ") is empty", shape_hint);
    const std::size_t rank = a.shape.size();
    const std::size_t L = rank == 4 ? a.shape[0] : 1, H = rank >= 3 ? a.shape[rank - 3] : 1;
    const std::size_t T = a.shape[rank - 2], S = a.shape[rank - 1];
    // 2. the tokens: T queries and S keys
    Trace t;
    t.kind = t.config.kind = "npy";
    t.config.heads = t.config.kv_heads = H;
    if (labels) {
        const bool two = !labels->source_tokens.empty();
        const std::size_t nq = labels->tokens.size(), nk = two ? labels->source_tokens.size() : nq;
        const std::string tq = std::to_string(T), ts = std::to_string(S);
        if (!two && T != S)
            input_error(labels_name + ": one list of " + std::to_string(nq) + " tokens, but " + name +
                            " holds cross attention (T, S) = (" + tq + ", " + ts + ")",
                        "give {\"tokens\": [" + tq + " queries], \"source_tokens\": [" + ts + " keys]}");
        if (nq != T || nk != S)
            input_error(labels_name + ": " + std::to_string(nq) + (two ? " + " + std::to_string(nk) : "") +
                            " tokens, but " + name + " holds (T, S) = (" + tq + ", " + ts + ")",
                        "give one token per position, e.g. tokenizer.convert_ids_to_tokens(ids)");
        t.tokens = labels->tokens;
        t.source_tokens = two ? labels->source_tokens : labels->tokens;
        t.has_source = two;
    } else {
        for (std::size_t i = 0; i < T; ++i) t.tokens.push_back(std::to_string(i));
        for (std::size_t j = 0; j < S; ++j) t.source_tokens.push_back(std::to_string(j));
        t.has_source = T != S;
    }
    // 3. the values, every one finite (C or Fortran order)
    std::vector<std::size_t> stride(rank);
    std::size_t step = 1;
    for (std::size_t k = 0; k < rank; ++k) {
        const std::size_t d = a.fortran_order ? k : rank - 1 - k;
        stride[d] = step;
        step *= a.shape[d];
    }
    const auto value = [&](std::size_t idx) { return npy_float_stored(a, idx); };  // data/inputs/npy.h: one reader
    // one set: a layer per L with a (L, H, T, S) array (numbered as the model's), else one unnumbered layer
    t.sets = {AttentionSet{t.has_source ? "cross" : "self", t.tokens, t.source_tokens, {}, rank == 4, {}, {}}};
    for (std::size_t l = 0; l < L; ++l) {
        LayerTrace layer;
        layer.layer = l;
        for (std::size_t h = 0; h < H; ++h) {
            HeadTrace head;
            head.head = head.kv_head = h;
            head.weights = Mat::from_shape({T, S});
            for (std::size_t i = 0; i < T; ++i)
                for (std::size_t j = 0; j < S; ++j) {
                    std::size_t idx = i * stride[rank - 2] + j * stride[rank - 1];
                    if (rank >= 3) idx += h * stride[rank - 3];
                    if (rank == 4) idx += l * stride[0];
                    const double v = value(idx);
                    if (!std::isfinite(v) || std::fabs(v) > 3.4028234663852886e38) {
                        std::string at = rank == 4 ? std::to_string(l) + ", " : "";
                        if (rank >= 3) at += std::to_string(h) + ", ";
                        at += std::to_string(i) + ", " + std::to_string(j);
                        input_error(name + ": the value at (" + at + ") is " +
                                        (std::isnan(v) ? "NaN" : "not a finite float32") +
                                        "; attention must be finite numbers",
                                    "clean the array first, e.g. numpy.nan_to_num");
                    }
                    head.weights(i, j) = static_cast<float>(v);
                }
            layer.heads.push_back(std::move(head));
        }
        t.layers().push_back(std::move(layer));
    }
    return t;
}

}  // namespace attn::render
