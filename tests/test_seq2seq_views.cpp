// Encoder-decoder traces in every renderer: the reader (three sets, refused names), one view per set,
// the alignment figure (--align-at, --words), the terminal, the figures per set, attn heads on each set.
// The numbers are the hand-made trace's of tests/seq2seq_fixtures.h, worked out by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <sstream>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <xtensor/xview.hpp>

#include "core/analysis/head_report.h"
#include "data/base/error.h"
#include "render/outputs/encoder_decoder_figures.h"
#include "render/terminal/heads_terminal.h"
#include "render/terminal/model_terminal.h"
#include "render/terminal/terminal.h"
#include "render/trace_io/file_names.h"
#include "render/trace_io/json.h"
#include "render/trace_io/trace_read.h"
#include "render/view/alignment.h"
#include "render/view/model_choice.h"
#include "render/view/set_view.h"
#include "tests/helpers.h"
#include "tests/seq2seq_fixtures.h"

using namespace attn;
using OrderedJson = nlohmann::ordered_json;

namespace {

const std::string kU = "\xE2\x96\x81";  // ▁
const std::string kDot = " \xC2\xB7 ";

std::string read_error(const std::string& text) {
    try {
        render::read_trace_json(text, "t.json");
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

std::string read_error(const OrderedJson& j) { return read_error(j.dump()); }

// The error's message and its hint, as attn prints them: "message (hint)".
std::string usage(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return std::string(e.what()) + (e.hint().empty() ? "" : " (" + e.hint() + ")");
    }
    return "";
}

OrderedJson fake_json() { return OrderedJson::parse(render::trace_json_text(test::fake_seq2seq_trace())); }

std::vector<std::string> names(const std::vector<render::OutputFile>& files) {
    std::vector<std::string> out;
    for (const auto& f : files) out.push_back(f.name);
    return out;
}

// attn's error line on stderr: "attn: error: MESSAGE (hint: HINT)".
std::string error_line(const std::string& message, const std::string& hint) {
    return "attn: error: " + message + (hint.empty() ? "" : " (hint: " + hint + ")") + "\n";
}

bool has(const std::vector<std::string>& list, const std::string& s) { return std::find(list.begin(), list.end(), s) != list.end(); }

}  // namespace

TEST_CASE("seq2seq reader: a three-set trace written, read and written again gives the same bytes and the same fields") {
    const Trace t = test::fake_seq2seq_trace();
    const std::string once = render::trace_json_text(t);
    const Trace back = render::read_trace_json(once, "t.json");
    CHECK(test::first_difference(render::trace_json_text(back), once) == "");
    REQUIRE(back.sets.size() == 3);
    CHECK(back.sets[0].name == "encoder");
    CHECK(back.sets[1].name == "decoder");
    CHECK(back.sets[2].name == "cross");
    CHECK(back.sets[2].layers[1].heads[0].weights.shape(0) == 3);
    CHECK(back.sets[2].layers[1].heads[0].weights.shape(1) == 4);
    CHECK(back.sets[2].layer_mean.size() == 2);
    CHECK(back.sets[2].rollout.empty());
    CHECK(back.sets[0].rollout.size() == 2);
    CHECK(back.model->stack == "encoder-decoder");
    CHECK(back.model->n_decoder_layer == 2);
    CHECK(back.generated_ids == std::vector<std::int64_t>{100, 101, 1});
    CHECK(back.source_token_ids == std::vector<std::int64_t>{20, 21, 22, 1});
    CHECK(back.source_tokens == t.source_tokens);
    CHECK_FALSE(back.teacher_forced);
    OrderedJson j = OrderedJson::parse(once);
    j["teacher_forced"] = true;
    CHECK(render::read_trace_json(j.dump(), "t.json").teacher_forced);
    // the fuzzer's seed is such a trace
    const std::string seed = test::slurp(std::string(ATTN_SOURCE_DIR) + "/fuzz/corpus/trace/seq2seq.json");
    const Trace s = render::read_trace_json(seed, "seq2seq.json");
    CHECK(s.sets.size() == 3);
    CHECK(render::trace_json_text(render::read_trace_json(render::trace_json_text(s), "again.json")) == render::trace_json_text(s));
}

TEST_CASE("seq2seq reader: an unknown set name is refused by name, with a hint") {
    OrderedJson j = fake_json();
    j["attention"][2]["name"] = "crosss";
    CHECK(usage([&] { render::read_trace_json(j.dump(), "t.json"); }) ==
          "t.json: attention[2].name: \"crosss\" is not an attention set of an encoder-decoder model (its sets are \"encoder\", "
          "\"decoder\" and \"cross\", in that order; write the trace again with attn show --model)");
}

TEST_CASE("seq2seq reader: a trace the writer never writes is refused, naming the field") {
    const OrderedJson good = fake_json();
    OrderedJson j = good;
    std::swap(j["attention"][0], j["attention"][1]);
    CHECK(read_error(j) == "t.json: attention[1].name: \"encoder\" comes after a set that follows it (the order is encoder, decoder, cross) or twice");
    j = good;
    j["attention"][0]["query_tokens"][0] = "x";
    CHECK(read_error(j) == "t.json: attention[0].query_tokens: are not the trace's \"source_tokens\"");
    j = good;
    j["attention"][1]["key_tokens"][0] = "x";
    CHECK(read_error(j) == "t.json: attention[1].key_tokens: are not the trace's \"tokens\"");
    j = good;
    j["attention"][2]["key_tokens"].erase(0);
    CHECK(read_error(j) == "t.json: attention[2].key_tokens: are not the trace's \"source_tokens\"");
    j = good;
    j["attention"][2]["layer_mean"].erase(0);
    CHECK(read_error(j) == "t.json: attention[2].layer_mean: holds 1 matrices but the stack has 2 layers");
    j = good;
    j["attention"][2]["layer_mean"][1] = j["attention"][0]["layer_mean"][1];
    CHECK(read_error(j) == "t.json: attention[2].layer_mean[1]: is (4, 4) but the set is (3, 4)");
    j = good;
    j["attention"][2]["rollout"] = j["attention"][2]["layer_mean"];
    CHECK(read_error(j) == "t.json: attention[2].rollout: a cross set has no rollout (its matrices are not square)");
    j = good;
    j["attention"][1].erase("rollout");
    CHECK(read_error(j) == "t.json: attention[1]: \"rollout\" is missing");
    j = good;
    j["attention"][1]["rollout"] = OrderedJson::array();
    CHECK(read_error(j) == "t.json: attention[1].rollout: holds 0 matrices but the stack has 2 layers");
    j = good;
    j["attention"][0].erase("layer_mean");
    CHECK(read_error(j) == "t.json: attention[0]: \"layer_mean\" is missing");
    j = good;
    j["attention"] = OrderedJson::array();
    CHECK(read_error(j) == "t.json: attention: holds no attention sets");
    j = good;
    for (auto& s : j["attention"]) s["layers"] = OrderedJson::array();
    CHECK(read_error(j) == "t.json: there are no heads and no layers to show");
    j = good;
    j["attention"][2]["layers"][1]["layer"] = 2;
    CHECK(read_error(j) == "t.json: attention[2].layers[1].layer: 2 is past the model's last layer (1)");
    j = good;
    j["attention"][2]["layers"][1]["heads"][0]["weights"] = j["attention"][1]["layers"][1]["heads"][0]["weights"];
    CHECK(read_error(j) == "t.json: attention[2].layers[1].heads[0].weights: is (3, 3) but (T, S) = (3, 4)");
    j = good;
    j.erase("source_tokens");
    CHECK(read_error(j) == "t.json: an encoder-decoder trace needs its \"source_tokens\" (the encoder's input)");
    j = good;
    j.erase("n_decoder_layer");
    CHECK(read_error(j) == "t.json: \"n_decoder_layer\" is missing");
    j = good;
    j["generated_ids"].erase(0);
    CHECK(read_error(j) == "t.json: generated_ids: expected one id per decoder token");
    j = good;
    j["source_token_ids"].push_back(3);
    CHECK(read_error(j) == "t.json: source_token_ids: expected one id per source token");
    j = good;
    j["teacher_forced"] = 1;
    CHECK(read_error(j) == "t.json: teacher_forced: expected true or false");
    j = good;
    j["aggregates"]["layer_mean"] = j["attention"][1]["layer_mean"];
    CHECK(read_error(j) == "t.json: aggregates: an encoder-decoder trace keeps its aggregates in its sets; the trace's own are empty");
    j = good;
    j["version"] = 1;
    CHECK(read_error(j) == "t.json: version: an encoder-decoder trace is version 2 (its three sets are in \"attention\")");
    j = good;
    j.erase("model");
    CHECK(read_error(j) == "t.json: stack: an encoder-decoder trace needs its \"model\"");
    j = good;
    j["stack"] = "seq2seq";
    CHECK(read_error(j) == "t.json: stack: is not \"encoder\", \"decoder\" or \"encoder-decoder\"");
}

TEST_CASE("seq2seq views: each set is a one-set trace of its own shape, titled and named by the set") {
    const Trace t = test::fake_seq2seq_trace();
    CHECK(render::is_encoder_decoder(t));
    const std::vector<std::tuple<std::string, std::size_t, std::size_t, std::size_t>> want = {
        {"encoder", 4, 4, 2}, {"decoder", 3, 3, 2}, {"cross", 3, 4, 0}};
    for (const auto& [name, R, C, rollouts] : want) {
        INFO(name);
        const Trace v = render::set_view(t, name);
        REQUIRE(v.sets.size() == 1);
        CHECK(v.sets[0].name == name);
        CHECK(v.tokens.size() == R);
        CHECK(v.source_tokens.size() == C);
        CHECK(v.layer_mean.size() == 2);
        CHECK(v.rollout.size() == rollouts);
        CHECK(v.layer_mean[1].shape(0) == R);
        CHECK(v.layer_mean[1].shape(1) == C);
        CHECK(v.model->type == name);
        const Trace head = render::chosen_head_trace(v, {1, 1});
        CHECK(head.kind == name + kDot + "layer 1");
        CHECK(head.heads()[0].weights.shape(1) == C);
        CHECK(head.source_tokens == v.source_tokens);
    }
    CHECK(render::set_view(t, "cross").source_tokens == t.source_tokens);
    CHECK(render::set_view(t, "encoder").tokens == t.source_tokens);
    CHECK(render::set_file_prefix("t5", "cross") == "t5-cross");
    CHECK_THROWS_AS(render::set_view(t, "self"), std::invalid_argument);
    // the names are attn's own (a later run removes its earlier ones, clash checks see them)
    for (const char* f : {"t5-cross-l5-mean.png", "t5-encoder-l2-h5-weights.png", "t5-decoder-overview.svg", "t5-decoder-l0-rollout.png",
                          "t5-align-mean.png", "t5-align-l5-mean-input.png", "t5-align-l5-h3-words.svg", "t5-align-l0-h0-input-words.png"})
        CHECK_MESSAGE(render::is_attn_file_name(std::string(f).find(".png") != std::string::npos ? render::FileType::png : render::FileType::svg, "t5", f), f);
    for (const char* f : {"t5-align-l5.png", "t5-align-h3.png", "t5-cross-align-mean.png", "t5-align-mean-words-input.png"})
        CHECK_FALSE_MESSAGE(render::is_attn_file_name(render::FileType::png, "t5", f), f);
}

TEST_CASE("seq2seq figures: every set's head, overview and mean as PNG and SVG, the rollout for all but cross, titles naming the set") {
    const Trace t = test::fake_seq2seq_trace();
    render::SetFigures s;
    s.layer = 1, s.head = 1;
    s.align.layer = 1, s.align.head = 1;
    for (const auto type : {render::FileType::png, render::FileType::svg}) {
        const std::string ext = render::file_extension(type);
        const std::vector<render::OutputFile> files = render::encoder_decoder_figures(t, s, {}, type);
        const std::vector<std::string> n = names(files);
        for (const std::string set : {"encoder", "decoder", "cross"}) {
            for (const std::string f : {"-l1-h1-weights", "-overview", "-l1-mean"}) CHECK_MESSAGE(has(n, "t5-" + set + f + ext), std::string(set + f));
            CHECK(has(n, "t5-" + set + "-l1-rollout" + ext) == (set != "cross"));
        }
        CHECK(has(n, "t5-align-l1-h1" + ext));
        for (const auto& f : files) {
            INFO(f.name);
            CHECK(f.bytes.size() > 100);
            CHECK(render::is_attn_file_name(type, "t5", f.name));
        }
        if (type != render::FileType::svg) continue;
        for (const auto& f : files) {
            if (f.name == "t5-encoder-l1-h1-weights.svg") CHECK(f.bytes.find("encoder" + kDot + "layer 1" + kDot + "head 1") != std::string::npos);
            if (f.name == "t5-cross-l1-mean.svg") {
                CHECK(f.bytes.find("cross" + kDot + "layer 1" + kDot + "mean of 2 heads") != std::string::npos);
                CHECK(f.bytes.find("3 targets \xC3\x97 4 sources") != std::string::npos);  // rows the decoder's tokens, columns the source's
            }
            if (f.name == "t5-cross-overview.svg") CHECK(f.bytes.find("cross" + kDot + "2 layers") != std::string::npos);
        }
    }
}

TEST_CASE("seq2seq alignment: --words sums a source word's pieces and averages a target word's rows, on hand-worked numbers") {
    CHECK(render::word_groups({kU + "Das", kU + "Ha", "us", "</s>"}) == std::vector<std::vector<std::size_t>>{{0}, {1, 2}, {3}});
    CHECK(render::word_groups({"Hello", "\xC4\xA0" "wor", "ld", "</s>", "x"}) == std::vector<std::vector<std::size_t>>{{0}, {1, 2}, {3}, {4}});
    CHECK(render::word_groups({"<pad>", "ab", "\xC2\xB7" "c"}) == std::vector<std::vector<std::size_t>>{{0}, {1}, {2}});
    CHECK(render::word_labels({kU + "Das", kU + "Ha", "us", "</s>"}, {{0}, {1, 2}, {3}}) == std::vector<std::string>{"Das", "Haus", "</s>"});
    CHECK(render::word_labels({"Hello", "\xC2\xB7" "wor", "ld"}, {{0}, {1, 2}}) == std::vector<std::string>{"Hello", "world"});
    const Trace t = test::fake_seq2seq_trace();
    // the last generated token's label: from the predictions, else where the source holds its id (</s>, id 1)
    Trace unpredicted = t;
    unpredicted.predictions.back().erase(unpredicted.predictions.back().begin());
    CHECK(render::generated_labels(unpredicted) == std::vector<std::string>{kU + "Ho", "use", "</s>"});
    unpredicted.source_token_ids.back() = 99;
    CHECK(render::generated_labels(unpredicted).back() == "#1");
    // the mean over layers (L0 mean + L1 mean) / 2, by hand:
    //   row 0 (▁Ho)  0.4125 0.1875 0.1875 0.2125
    //   row 1 (use)  0.2375 0.3375 0.2875 0.1375
    //   row 2 (</s>) 0.1125 0.1625 0.1875 0.5375
    render::AlignChoice c;
    const render::Alignment pieces = render::alignment(t, c);
    CHECK(pieces.rows == std::vector<std::string>{kU + "Ho", "use", "</s>"});
    CHECK(pieces.cols == t.source_tokens);
    test::check_matrix(pieces.weights, {{0.4125f, 0.1875f, 0.1875f, 0.2125f}, {0.2375f, 0.3375f, 0.2875f, 0.1375f}, {0.1125f, 0.1625f, 0.1875f, 0.5375f}}, 1e-6);
    CHECK(pieces.file_word == "align-mean");
    // words: House = mean of rows 0 and 1, Haus = columns 1 + 2: [0.325 0.5 0.175], [0.1125 0.35 0.5375]
    c.words = true;
    const render::Alignment words = render::alignment(t, c);
    CHECK(words.rows == std::vector<std::string>{"House", "</s>"});
    CHECK(words.cols == std::vector<std::string>{"Das", "Haus", "</s>"});
    test::check_matrix(words.weights, {{0.325f, 0.5f, 0.175f}, {0.1125f, 0.35f, 0.5375f}}, 1e-6);
    CHECK(words.file_word == "align-mean-words");
    CHECK(words.caption.find("a source word's pieces summed, a target word's rows averaged") != std::string::npos);
    CHECK(words.caption.find("greedy") != std::string::npos);
    CHECK(words.title == "t5" + kDot + "cross-attention" + kDot + "mean of 2 layers \xC3\x97 2 heads");
    Trace forced = t;
    forced.teacher_forced = true;
    CHECK(render::alignment(forced, c).caption.find("teacher-forced") != std::string::npos);
}

TEST_CASE("seq2seq alignment: --align-at input reads generated word i at decoder row i + 1 and drops the last word") {
    const Trace t = test::fake_seq2seq_trace();
    render::AlignChoice c;
    c.layer = 1, c.head = 0, c.at = render::AlignAt::input;
    const render::Alignment a = render::alignment(t, c);
    CHECK(a.rows == std::vector<std::string>{kU + "Ho", "use"});  // </s> is no step's input
    test::check_matrix(a.weights, {{0.4f, 0.3f, 0.2f, 0.1f}, {0.0f, 0.0f, 0.0f, 1.0f}}, 1e-7);  // cross layer 1 head 0, rows 1 and 2
    CHECK(a.file_word == "align-l1-h0-input");
    CHECK(a.caption.find("INPUT") != std::string::npos);
    // the same head at its output: rows 0, 1, 2
    c.at = render::AlignAt::output;
    test::check_matrix(render::alignment(t, c).weights, {{0.1f, 0.2f, 0.3f, 0.4f}, {0.4f, 0.3f, 0.2f, 0.1f}, {0.0f, 0.0f, 0.0f, 1.0f}}, 1e-7);
    // input and words, layer 0's mean: rows 1 and 2 merged into House, Haus = columns 1 + 2 → [0.175 0.525 0.3]
    c.head.reset(), c.layer = 0, c.at = render::AlignAt::input, c.words = true;
    const render::Alignment w = render::alignment(t, c);
    CHECK(w.rows == std::vector<std::string>{"House"});
    test::check_matrix(w.weights, {{0.175f, 0.525f, 0.3f}}, 1e-6);
    CHECK(w.file_word == "align-l0-mean-input-words");
    CHECK(render::parse_align_at("input") == render::AlignAt::input);
    CHECK_FALSE(render::parse_align_at("inputs").has_value());
}

TEST_CASE("seq2seq alignment: a choice the trace cannot give is refused by name") {
    const Trace t = test::fake_seq2seq_trace();
    render::AlignChoice c;
    c.head = 0;
    CHECK(usage([&] { render::alignment(t, c); }) == "--head needs --layer: the alignment of which layer's head? (add --layer L)");
    c.layer = 2;
    CHECK(usage([&] { render::alignment(t, c); }) == "--layer 2 is past the decoder's last layer (1) (layers are numbered from 0)");
    c.layer = 1, c.head = 2;
    CHECK(usage([&] { render::alignment(t, c); }) == "--head 2 is past the last head (1) (heads are numbered from 0)");
    Trace dropped = t;
    dropped.sets[2].layers.erase(dropped.sets[2].layers.begin() + 1);
    CHECK(usage([&] { render::alignment(dropped, c); }) ==
          "--layer 1: the trace does not keep that layer's heads (pick a kept layer, or leave out --head for its mean)");
    Trace one = t;
    for (auto* s : {&one.sets[1], &one.sets[2]}) {
        s->query_tokens.resize(1);
        for (auto& m : s->layer_mean) m = xt::xtensor<float, 2>(xt::view(m, xt::range(0, 1), xt::all()));
    }
    one.tokens.resize(1);
    render::AlignChoice in;
    in.at = render::AlignAt::input;
    CHECK(usage([&] { render::alignment(one, in); }) == "--align-at input: one decoder step has no generated word as its input (use --align-at output)");
    Trace decoder_only = render::set_view(t, "decoder");
    CHECK(usage([&] { render::alignment(decoder_only, {}); }) ==
          "--align-at and --words draw an encoder-decoder model's cross-attention; this trace has no \"cross\" set (leave them out, or use a "
          "trace of a translation model (attn show --model DIR TEXT --json F))");
}

TEST_CASE("seq2seq terminal: the model, source, generated tokens, greedy, and the alignment matrix within 80 columns") {
    const Trace t = test::fake_seq2seq_trace();
    render::TerminalOptions opt;
    const std::string out = render::encoder_decoder_terminal_view(t, {}, opt);
    INFO(out);
    CHECK(out.find("t5" + kDot + "encoder-decoder" + kDot + "2 encoder layers \xC3\x97 2 decoder layers" + kDot + "2 heads") != std::string::npos);
    CHECK(out.find("source:    " + kU + "Das " + kU + "Ha us </s>") != std::string::npos);
    CHECK(out.find("generated: " + kU + "Ho use </s>") != std::string::npos);
    CHECK(out.find("greedy") != std::string::npos);
    for (const char* v : {"0.4125", "0.3375", "0.5375", "0.1125"}) CHECK_MESSAGE(out.find(v) != std::string::npos, v);
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) CHECK_MESSAGE(render::display_width(line) <= 80, line);
    // words, and teacher forcing said
    Trace forced = t;
    forced.teacher_forced = true;
    render::AlignChoice c;
    c.words = true;
    const std::string w = render::encoder_decoder_terminal_view(forced, c, opt);
    CHECK(w.find("teacher-forced") != std::string::npos);
    for (const char* v : {"0.3250", "0.5000", "0.5375", "House", "Haus"}) CHECK_MESSAGE(w.find(v) != std::string::npos, v);
}

TEST_CASE("seq2seq heads: cross heads score monotonic and eos-sink as worked by hand, beside their chance levels") {
    // argmax rows: L0H0 0,1,3 (never back: 1); L0H1 ties, first column 0,0,0 (1); L1H0 3,0,3 (one of two: 0.5); L1H1 0,2,1 (0.5)
    const double mono[2][2] = {{1.0, 1.0}, {0.5, 0.5}};
    // eos-sink: mean of the last column: (0.1+0.1+0.6)/3, 0.25, (0.4+0.1+1)/3, (0.1+0.1+0.3)/3
    const double eos[2][2] = {{0.8 / 3, 0.25}, {0.5, 0.5 / 3}};
    for (std::size_t l = 0; l < 2; ++l)
        for (std::size_t h = 0; h < 2; ++h) {
            const Mat w = test::mat_of(test::cross_head_rows(l, h));
            CHECK(*cross_monotonic_score(w) == doctest::Approx(mono[l][h]));
            CHECK(*cross_eos_sink_score(w) == doctest::Approx(eos[l][h]).epsilon(1e-6));
        }
    CHECK_FALSE(cross_monotonic_score(test::mat_of({{0.5f, 0.5f}})).has_value());  // one row: nothing to compare
    CHECK(cross_chance(CrossPattern::monotonic, 4) == doctest::Approx(5.0 / 8.0));  // (S+1)/(2S)
    CHECK(cross_chance(CrossPattern::eos_sink, 4) == doctest::Approx(0.25));
    // the whole trace: each set scored apart, rows named by set
    const EncoderDecoderHeadReport r = score_encoder_decoder(test::fake_seq2seq_trace(), "Das Haus");
    REQUIRE(r.sets.size() == 2);
    CHECK(r.sets[0].set == "encoder");
    CHECK(r.sets[0].report.bidirectional());
    CHECK_FALSE(r.sets[1].report.bidirectional());
    // decoder previous: rows 1, 2 weight on the key before: 0.5, 0.25 → 0.375; encoder first: 0.25
    CHECK(*r.sets[1].report.score(HeadPattern::previous, 0, 0) == doctest::Approx(0.375));
    CHECK(*r.sets[0].report.score(HeadPattern::first, 1, 1) == doctest::Approx(0.25));
    REQUIRE(r.cross);
    CHECK(*r.cross->scores[0][1][0] == doctest::Approx(0.5));
    CHECK(*r.cross->scores[1][0][0] == doctest::Approx(0.8 / 3).epsilon(1e-6));
    render::HeadsViewOptions v;
    v.model_name = "t5-small";
    const std::string out = render::encoder_decoder_heads_terminal_view(r, v);
    INFO(out);
    CHECK(out.find("encoder previous:") != std::string::npos);
    CHECK(out.find("encoder next:") != std::string::npos);
    CHECK(out.find("decoder next:") == std::string::npos);       // a causal set has no next
    CHECK(out.find("induction") == std::string::npos);           // it needs a run of its own
    CHECK(out.find("decoder layer 1") != std::string::npos);
    CHECK(out.find("cross monotonic: share of decoder steps whose most-attended source token is at or after the previous step's" + kDot +
                   "chance 0.62 (random rows over 4 source tokens)") != std::string::npos);
    CHECK(out.find("cross eos-sink: mean weight on the source's final token (</s>)" + kDot + "chance 0.25") != std::string::npos);
    CHECK(out.find("cross layer 1     0.50   0.50") != std::string::npos);
    CHECK(out.find("cross layer 0     0.27   0.25") != std::string::npos);
    CHECK(out.find("cross previous") == std::string::npos);  // patterns of a self set are not a cross set's
}

TEST_CASE("seq2seq render: a three-set trace draws each set's PNGs and SVGs and the alignment figure, named by set") {
    const std::string dir = test::temp_dir();
    test::write(dir + "/t5.json", render::trace_json_text(test::fake_seq2seq_trace()));
    const test::RunResult r = test::run_in(dir, {"render", "t5.json", "--png", "p", "--svg", "s", "--layer", "1", "--show", "heads,mean,rollout"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    for (const std::string ext : {".png", ".svg"}) {
        const std::vector<std::string> files = test::tree(dir + (ext == ".png" ? "/p" : "/s"));
        for (const std::string set : {"encoder", "decoder", "cross"}) {
            CHECK_MESSAGE(has(files, "t5-" + set + "-l1-weights" + ext), set);
            CHECK_MESSAGE(has(files, "t5-" + set + "-l1-mean" + ext), set);
            CHECK(has(files, "t5-" + set + "-l1-rollout" + ext) == (set != "cross"));
        }
        CHECK(has(files, "t5-align-l1-mean" + ext));
    }
    // one head, aligned at the input, in words; drawn again into the same folder: the earlier files stay
    const test::RunResult w = test::run_in(dir, {"render", "t5.json", "--png", "p", "--layer", "1", "--head", "0", "--align-at", "input", "--words"});
    INFO(w.err);
    REQUIRE(w.code == 0);
    const std::vector<std::string> files = test::tree(dir + "/p");
    CHECK(has(files, "t5-align-l1-h0-input-words.png"));
    CHECK(has(files, "t5-cross-l1-h0-weights.png"));
    CHECK(has(files, "t5-align-l1-mean.png"));
    // the SVG's cells hold the hand-worked mean of layer 1: row 2 (</s>) puts 0.65 on </s>
    const std::string svg = test::slurp(dir + "/s/t5-align-l1-mean.svg");
    CHECK(svg.find("t5" + kDot + "cross-attention" + kDot + "layer 1" + kDot + "mean of 2 heads") != std::string::npos);
    CHECK(svg.find("greedy translation") != std::string::npos);
    const std::regex cell(R"(<title>target token \(generated\) 2 [^<]*source token 3 [^<]*weight ([0-9.]+)</title>)");
    std::smatch m;
    REQUIRE(std::regex_search(svg, m, cell));
    CHECK(std::stod(m[1]) == doctest::Approx(0.65).epsilon(1e-4));
}

TEST_CASE("seq2seq render: --align-at and --words on a trace without an encoder-decoder's cross set are refused by name") {
    const std::string dir = test::temp_dir();
    REQUIRE(test::run_in(dir, {"show", "--kind", "cross", "a b", "--source", "x y z", "--json", "k.json"}).code == 0);
    for (const char* option : {"--align-at", "--words"}) {
        std::vector<std::string> args = {"render", "k.json", "--png", "p", option};
        if (std::string(option) == "--align-at") args.push_back("input");
        const test::RunResult r = test::run_in(dir, args);
        CHECK(r.code == 2);
        CHECK(test::one_line(r) == error_line(std::string(option) + " draws an encoder-decoder model's cross-attention; k.json has no \"cross\" set",
                                              "leave it out, or render a trace of a translation model (attn show --model DIR TEXT --json F)"));
    }
    const test::RunResult s = test::run_in(dir, {"show", "--kind", "mha", "a b", "--words"});
    CHECK(s.code == 2);
    CHECK(test::one_line(s) == error_line("--words draws a translation model's cross-attention, which needs --model",
                                          "attn show --model T5_DIR \"The house is small.\" --words"));
    test::write(dir + "/t5.json", render::trace_json_text(test::fake_seq2seq_trace()));
    const test::RunResult l = test::run_in(dir, {"render", "t5.json", "--png", "p", "--layer", "7"});
    CHECK(l.code == 2);
    CHECK(test::one_line(l) == error_line("--layer 7 is in none of t5.json's sets", "pick a layer the encoder or the decoder has"));
}

TEST_CASE("seq2seq heads: attn heads --trace scores each set of a saved trace, and refuses what it cannot do") {
    const std::string dir = test::temp_dir();
    test::write(dir + "/t5.json", render::trace_json_text(test::fake_seq2seq_trace()));
    const test::RunResult r = test::run_in(dir, {"heads", "--trace", "t5.json"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("encoder layer 1") != std::string::npos);
    CHECK(r.out.find("cross monotonic:") != std::string::npos);
    CHECK(r.out.find("cross layer 1     0.50   0.50") != std::string::npos);
    REQUIRE(test::run_in(dir, {"show", "--kind", "mha", "a b", "--json", "k.json"}).code == 0);
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"heads", "--trace", "t5.json", "--model", "m"}, error_line("give --model DIR or --trace FILE, not both", "")},
        {{"heads", "--trace", "t5.json", "--json", "h.json"},
         error_line("--trace scores a saved trace's heads in the terminal; texts, --file, --json, --png, --svg, --prefix, --rank, --top, "
                    "--induction-length and --effect need --model",
                    "leave them out, or give --model DIR")},
        {{"heads", "--trace", "k.json"},
         error_line("--trace k.json is not a model's trace: attn heads scores a model's heads", "write one with attn show --model DIR TEXT --json FILE")},
        {{"heads", "a b"}, error_line("give a model: --model DIR (or a saved trace: --trace FILE)", "attn heads --model gpt2/ \"The cat sat on the mat.\"")},
    };
    for (const auto& [args, want] : cases) {
        const test::RunResult e = test::run_in(dir, args);
        CHECK(e.code == 2);
        CHECK(test::one_line(e) == want);
    }
}

TEST_CASE("seq2seq show: a BART run draws every set and the alignment, prints the matrix, and render of its trace draws the same alignment") {
    const std::string dir = test::temp_dir();
    test::write_model_folder(dir, "bart", test::tiny_bart_config(), test::safetensors_file(test::tiny_bart_tensors()));
    const test::RunResult r = test::run_in(dir, {"show", "--model", "bart", "Hi there", "--max-new-tokens", "6", "--layer", "1", "--head", "2",
                                                 "--show", "weights,mean,rollout", "--align-at", "input", "--words", "--png", "p", "--svg", "s",
                                                 "--json", "t.json"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    for (const std::string set : {"encoder", "decoder", "cross"}) {
        for (const std::string f : {"-l1-h2-weights.png", "-overview.png", "-l1-mean.png", "-l1-mean.svg"})
            CHECK_MESSAGE((std::filesystem::exists(dir + "/p/bart-" + set + f) || std::filesystem::exists(dir + "/s/bart-" + set + f)), std::string(set + f));
        CHECK(std::filesystem::exists(dir + "/p/bart-" + set + "-l1-rollout.png") == (set != "cross"));
    }
    CHECK(std::filesystem::exists(dir + "/p/bart-align-l1-h2-input-words.png"));
    CHECK(r.out.find("bart" + kDot + "encoder-decoder" + kDot + "2 encoder layers \xC3\x97 2 decoder layers" + kDot + "4 heads") != std::string::npos);
    CHECK(r.out.find("bart" + kDot + "cross-attention" + kDot + "layer 1" + kDot + "head 2") != std::string::npos);
    CHECK(r.out.find("INPUT it is (--align-at input)") != std::string::npos);
    const Trace t = render::read_trace_json(test::slurp(dir + "/t.json"), "t.json");
    CHECK(t.sets.size() == 3);
    REQUIRE(test::run_in(dir, {"render", "t.json", "--svg", "rs", "--layer", "1", "--head", "2", "--align-at", "input", "--words"}).code == 0);
    CHECK(test::slurp(dir + "/rs/bart-align-l1-h2-input-words.svg") == test::slurp(dir + "/s/bart-align-l1-h2-input-words.svg"));
    // a decoder's folder takes no alignment options
    test::write_model_folder(dir, "gpt2", test::tiny_gpt2_config(), test::safetensors_file(test::tiny_gpt2_tensors()));
    const test::RunResult g = test::run_in(dir, {"show", "--model", "gpt2", "ab", "--align-at", "output"});
    CHECK(g.code == 2);
    CHECK(test::one_line(g) == error_line("--align-at draws a translation model's cross-attention, and GPT-2 is not an encoder-decoder",
                                          "drop it, or give a T5, BART or Marian folder"));
}

TEST_CASE("seq2seq cli: --query, --npy, --pair and a seeded --target are refused by name, and decode and heads run an encoder-decoder folder") {
    const std::string dir = test::temp_dir();
    test::write_model_folder(dir, "bart", test::tiny_bart_config(), test::safetensors_file(test::tiny_bart_tensors()));
    const std::vector<std::pair<std::vector<std::string>, std::string>> refused = {
        {{"show", "--model", "bart", "Hi there", "--query", "1"},
         "--query follows one query's row through a single-set run; an encoder-decoder's rows are its steps"},
        {{"show", "--model", "bart", "Hi there", "--npy", "n"}, "--npy writes one set's arrays; an encoder-decoder run keeps three (encoder, decoder, cross)"},
        {{"show", "--model", "bart", "Hi there", "--pair", "Bye"},
         "--pair runs a sentence pair through an encoder, and BART is an encoder-decoder: its decoder's text is --target"},
        {{"show", "--model", "bart", "Hi there", "--max-new-tokens", "0"}, "--max-new-tokens 0 generates nothing"},
        {{"show", "--kind", "causal", "Hi there", "--target", "Bye"},
         "--target is the decoder's text of an encoder-decoder model, which needs --model"},
        {{"decode", "--model", "bart", "Hi there", "--json", "d.json"},
         "decode --model prints an encoder-decoder's steps in the terminal; its JSON trace, figures and page come from show"}};
    for (const auto& [args, want] : refused) {
        const test::RunResult e = test::run_in(dir, args);
        CAPTURE(want);
        CHECK(e.code == 2);
        CHECK(test::one_line(e).find("attn: error: " + want) == 0);
    }
    // decode: every step's rows equal the full pass's, the cross cache is computed once
    const test::RunResult d = test::run_in(dir, {"decode", "--model", "bart", "Hi there", "--max-new-tokens", "4", "--layer", "1"});
    INFO(d.err);
    REQUIRE(d.code == 0);
    CHECK(d.out.find("every step's rows equal row t of the full pass within 0 (largest difference)") != std::string::npos);
    CHECK(d.out.find("cross-attention keys and values: computed once from the encoder's") != std::string::npos);
    CHECK(d.out.find("       cross row:   ") != std::string::npos);
    // heads: the three sets' tables, the cross patterns beside their chance levels
    const test::RunResult h = test::run_in(dir, {"heads", "--model", "bart", "Hi there"});
    INFO(h.err);
    REQUIRE(h.code == 0);
    for (const char* want : {"encoder previous", "decoder previous", "cross monotonic", "cross eos-sink"})
        CHECK_MESSAGE(h.out.find(want) != std::string::npos, want);
    const test::RunResult hm = test::run_in(dir, {"heads", "--model", "bart", "Hi there", "--json", "h.json"});
    CHECK(hm.code == 2);
}

TEST_CASE("seq2seq toy model: the trained Marian folder in docs/models/toy translates as its PyTorch model does, and its last layer's head 3 aligns word by word") {
    // docs/tools/train_toy_translation.py --attn compares the two on 21 sentences; this one is the docs' example
    const std::string toy = std::string(ATTN_SOURCE_DIR) + "/docs/models/toy";
    const std::string dir = test::temp_dir();
    const test::RunResult r = test::run_in(dir, {"show", "--model", toy, "the small dog sees the red ball", "--layer", "1", "--head", "3",
                                                 "--json", "t.json"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("translation: lo hundo pikla lo bala roza ka mira ") != std::string::npos);
    const Trace t = render::read_trace_json(test::slurp(dir + "/t.json"), "t.json");
    REQUIRE(t.sets.size() == 3);
    // cross-attention, layer 1, head 3: each generated word's largest weight on its source word
    const Mat& w = t.sets[2].layers.at(1).heads.at(3).weights;  // (9 generated, 8 source)
    const std::vector<std::size_t> source_of = {0, 2, 1, 4, 6, 5, 3, 3};  // lo hundo pikla lo bala roza ka mira
    for (std::size_t i = 0; i < source_of.size(); ++i) {
        CAPTURE(i);
        CHECK(w(i, source_of[i]) > 0.9f);
    }
}
