#include "data/inputs/inputs.h"

#include "data/inputs/embed.h"
#include "data/base/error.h"
#include "data/inputs/jsonrows.h"
#include "data/base/files.h"
#include "data/inputs/npy.h"
#include "data/text/tokenize.h"
#include "data/base/limits.h"

namespace attn {
namespace {

// The command line's own text (SENTENCE, --source): problems are usage errors.
std::vector<std::string> tokens_of_argument(const std::string& text, const char* what, std::size_t max_tokens,
                                            Split split) {
    if (const auto problem = text_problem(text))
        usage_error(std::string("the ") + what + " " + *problem,
                    problem->find("UTF-8") != std::string::npos ? "pass UTF-8 text"
                                                                : "remove it; tabs and newlines are fine");
    std::vector<std::string> tokens = tokenize(text, max_tokens, split);
    if (tokens.empty())
        usage_error(std::string("the ") + what + " is empty", "give at least one word, e.g. \"Your journey starts\"");
    if (tokens.size() > max_tokens)
        usage_error(std::string("the ") + what + " has more than " + std::to_string(max_tokens) +
                        " tokens (--max-tokens " + std::to_string(max_tokens) + ")",
                    "raise --max-tokens or shorten the text");
    return tokens;
}

// A text file's content (--file): problems are the file's, runtime errors naming it.
std::vector<std::string> tokens_of_file(const std::string& path, std::size_t max_tokens, Split split) {
    // standard input: read no further than it takes to know the text is too long ("yes | attn ...")
    bool cut = false;
    std::string text = path == "-" ? read_stdin_words("text", max_tokens, cut) : read_file(path, "text file");
    const std::string name = path == "-" ? "standard input" : path;
    if (cut)
        input_error(name + ": the text has more than " + std::to_string(max_tokens) + " tokens (--max-tokens " +
                        std::to_string(max_tokens) + "); attn stopped reading there",
                    "raise --max-tokens or shorten the text");
    if (looks_like_utf16(text)) input_error(name + ": the text looks like UTF-16", "save it as UTF-8");
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);  // a UTF-8 byte order mark is not text
    if (const auto problem = text_problem(text))
        input_error(name + ": the text " + *problem,
                    problem->find("UTF-8") != std::string::npos ? "save the file as UTF-8"
                                                                : "remove it; tabs and newlines are fine");
    std::vector<std::string> tokens = tokenize(text, max_tokens, split);
    if (tokens.empty()) input_error(name + ": the text has no words", "give a file with at least one word");
    if (tokens.size() > max_tokens)
        input_error(name + ": the text has more than " + std::to_string(max_tokens) + " tokens (--max-tokens " +
                        std::to_string(max_tokens) + ")",
                    "raise --max-tokens or shorten the text");
    return tokens;
}

const char* const kMaskHint = "a mask is a (T, S) JSON array of true/false or 0/1, or a bool/uint8 .npy";

[[noreturn]] void bad_mask(const std::string& name, const std::string& why) { input_error(name + ": " + why, kMaskHint); }

std::string shape_text(std::size_t t, std::size_t s) {
    return "(" + std::to_string(t) + ", " + std::to_string(s) + ")";
}

}  // namespace

Mask load_mask_bytes(const std::string& bytes, const std::string& name, std::size_t t, std::size_t s) {
    const std::string want = "(T, S) = " + shape_text(t, s);
    Mask m = Mask::from_shape({t, s});
    if (looks_like_npy(bytes)) {
        const NpyArray a = parse_npy(bytes, name);
        if (a.item_size != 1) bad_mask(name, "dtype " + a.descr + " is not bool or uint8");
        if (a.shape.size() != 2 || a.shape[0] != t || a.shape[1] != s) {
            std::string got = "(";
            for (std::size_t k = 0; k < a.shape.size(); ++k) got += (k ? ", " : "") + std::to_string(a.shape[k]);
            got += a.shape.size() == 1 ? ",)" : ")";
            bad_mask(name, "shape " + got + " does not match " + want);
        }
        for (std::size_t i = 0; i < t; ++i)
            for (std::size_t j = 0; j < s; ++j) {
                const auto v = static_cast<unsigned char>(a.data[a.fortran_order ? j * t + i : i * s + j]);
                if (v > 1)
                    bad_mask(name, "row " + std::to_string(i) + ", column " + std::to_string(j) + " is " +
                                       std::to_string(v) + ", not 0 or 1");
                m(i, j) = v;
            }
        return m;
    }
    if (looks_like_utf16(bytes)) input_error(name + ": the file looks like UTF-16", "save it as UTF-8");
    const JsonRows rows = parse_json_rows(bytes, name, JsonCells::flag, false, kMaskHint);
    if (rows.rows != t || rows.cols != s)
        bad_mask(name, "shape " + shape_text(rows.rows, rows.cols) + " does not match " + want);
    for (std::size_t k = 0; k < rows.values.size(); ++k) m.data()[k] = rows.values[k] != 0.0f ? 1 : 0;
    return m;
}

Mask load_mask(const std::string& path, std::size_t t, std::size_t s) {
    if (path == "-") return load_mask_bytes(read_stdin("mask"), "standard input", t, s);
    return load_mask_bytes(read_file(path, "mask file"), path, t, s);
}

std::string read_text_file(const std::string& path) {
    std::string text = path == "-" ? read_stdin("text") : read_file(path, "text file");
    const std::string name = path == "-" ? "standard input" : path;
    if (looks_like_utf16(text)) input_error(name + ": the text looks like UTF-16", "save it as UTF-8");
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);  // a UTF-8 byte order mark is not text
    if (const auto problem = text_problem(text))
        input_error(name + ": the text " + *problem,
                    problem->find("UTF-8") != std::string::npos ? "save the file as UTF-8" : "remove it; tabs and newlines are fine");
    return text;
}

Inputs make_inputs(const InputRequest& r) {
    const int sources = int(r.sentence.has_value()) + int(r.text_file.has_value()) + int(r.example.has_value());
    const int from_stdin = int(r.text_file == "-") + int(r.embeddings == "-") + int(r.mask_file == "-");
    if (from_stdin > 1)
        usage_error("only one of --file, --embeddings and --mask can read standard input ('-')",
                    "give the others as files");
    if (sources > 1) usage_error("give only one of SENTENCE, --file and --example");
    if (sources == 0 && !r.embeddings)
        usage_error("nothing to attend over", "give a sentence, e.g. attn " + r.command + " \"Your journey starts\"");
    Inputs in;
    // 1. tokens and their vectors
    if (r.example) {
        if (r.embeddings) usage_error("--example brings its own embeddings; drop --embeddings");
        Embeddings e = example(*r.example);
        if (r.d_in && *r.d_in != e.x.shape(1))
            usage_error("--example " + *r.example + " has d_in = " + std::to_string(e.x.shape(1)), "drop --d-in");
        in.tokens = e.tokens, in.x = e.x;
    } else {
        std::vector<std::string> tokens;
        if (r.sentence) tokens = tokens_of_argument(*r.sentence, "sentence", r.max_tokens, r.split);
        if (r.text_file) tokens = tokens_of_file(*r.text_file, r.max_tokens, r.split);
        if (r.embeddings) {
            Embeddings e = load_embeddings(*r.embeddings);
            if (r.d_in && *r.d_in != e.x.shape(1))
                usage_error("--d-in " + std::to_string(*r.d_in) + " does not match the embeddings' width " +
                            std::to_string(e.x.shape(1)), "drop --d-in");
            if (tokens.empty()) tokens = e.tokens;
            if (tokens.empty())
                usage_error(*r.embeddings + " has rows but no tokens", "give the sentence they belong to");
            if (tokens.size() != e.x.shape(0))
                input_error(*r.embeddings + ": " + std::to_string(e.x.shape(0)) + " rows for " +
                                std::to_string(tokens.size()) + " tokens",
                            "give one row per token of the sentence");
            if (tokens.size() > r.max_tokens)
                input_error(*r.embeddings + ": " + std::to_string(tokens.size()) + " rows, more than --max-tokens " +
                                std::to_string(r.max_tokens),
                            "raise --max-tokens");
            in.x = e.x;
        } else {
            const std::size_t d_in = r.d_in.value_or(r.default_d_in);
            check_run_size(4.0 * double(tokens.size()) * double(d_in), 0.0);
            in.x = embed_tokens(tokens, d_in, r.seed);
        }
        in.tokens = tokens;
    }
    // 2. the source: its own text embedded at the same width, else the sentence itself
    if (r.source) {
        in.source_tokens = tokens_of_argument(*r.source, "source", r.max_tokens, r.split);
        in.source_x = embed_tokens(in.source_tokens, in.x.shape(1), r.seed);
        in.has_source = true;
    } else {
        in.source_tokens = in.tokens, in.source_x = in.x;
    }
    // 3. the user's mask
    if (r.mask_file) in.user_mask = load_mask(*r.mask_file, in.tokens.size(), in.source_tokens.size());
    return in;
}

}  // namespace attn
