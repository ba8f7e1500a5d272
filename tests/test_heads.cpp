// attn heads: every pattern's score on hand-built weight matrices (golden values worked by hand in the
// comments), punctuation by Unicode category, the induction ids against MT19937 computed outside attn,
// the ranking and its readings, and the command end to end on the tiny GPT-2 folder.
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/analysis/head_patterns.h"
#include "core/analysis/head_report.h"
#include "render/terminal/heads_terminal.h"
#include "render/terminal/model_terminal.h"
#include "tests/helpers.h"
#include "tests/model_fixtures.h"

using namespace attn;

namespace {

// A causal (4, 4) weight matrix, rows summing to 1:
//   row 0: 1
//   row 1: .25 .75
//   row 2: .5  .2  .3
//   row 3: .1  .2  .3  .4
Mat hand_weights() {
    Mat w = Mat::from_shape({4, 4});
    w.fill(0.0f);
    w(0, 0) = 1.0f;
    w(1, 0) = 0.25f, w(1, 1) = 0.75f;
    w(2, 0) = 0.5f, w(2, 1) = 0.2f, w(2, 2) = 0.3f;
    w(3, 0) = 0.1f, w(3, 1) = 0.2f, w(3, 2) = 0.3f, w(3, 3) = 0.4f;
    return w;
}

std::string heads_model_dir() {
    static const std::string dir = [] {
        const std::string d = attn::test::temp_dir();
        attn::test::write_model_folder(d, "model-ok", attn::test::tiny_gpt2_config(),
                                       attn::test::safetensors_file(attn::test::tiny_gpt2_tensors()));
        return d + "/model-ok";
    }();
    return dir;
}

}  // namespace

TEST_CASE("heads: previous, first, self, punctuation and duplicate on a hand-built matrix equal the sums worked by hand") {
    const Mat w = hand_weights();
    CHECK(*previous_score(w) == doctest::Approx((0.25 + 0.2 + 0.3) / 3));  // w10 w21 w32
    CHECK(*first_score(w) == doctest::Approx((0.25 + 0.5 + 0.1) / 3));     // w10 w20 w30
    CHECK(*self_score(w) == doctest::Approx((0.75 + 0.3 + 0.4) / 3));      // w11 w22 w33
    // tokens 1 and 3 punctuation: row 1 w11, row 2 w21, row 3 w31 + w33
    CHECK(*punctuation_score(w, {false, true, false, true}) == doctest::Approx((0.75 + 0.2 + (0.2 + 0.4)) / 3));
    CHECK(*punctuation_score(w, {false, false, false, false}) == 0.0);
    // ids 5 7 5 7: query 1 (7) has no earlier copy; query 2 (5) sees j = 0, query 3 (7) j = 1
    CHECK(*duplicate_score(w, {5, 7, 5, 7}) == doctest::Approx((0.5 + 0.2) / 2));
    // ids 5 5 5 5: every earlier position: row 1 .25, row 2 .5 + .2, row 3 .1 + .2 + .3
    CHECK(*duplicate_score(w, {5, 5, 5, 5}) == doctest::Approx((0.25 + 0.7 + 0.6) / 3));
}

TEST_CASE("heads: the sink is the key with the largest mean weight over the queries after it, among keys at least 2 and half of them back") {
    // the hand matrix: key 0 is given at least a uniform row's 1/(i+1) by row 2 only (.5 >= 1/3; .25 < 1/2,
    // .1 < 1/4), key 1 by none (.2 < 1/3, .2 < 1/4), key 2 has one query after it: no key holds
    CHECK_FALSE(head_sink(hand_weights()));
    Mat parked = Mat::from_shape({3, 3});  // every query on token 0
    parked.fill(0.0f);
    for (std::size_t i = 0; i < 3; ++i) parked(i, 0) = 1.0f;
    CHECK(head_sink(parked)->key == 0);
    CHECK(head_sink(parked)->weight == 1.0);
    // the jury case: uniform rows, but the last query puts everything on the second-to-last key. Before
    // the rule that key scored 1.00; now key 0 holds (rows 1-3 back it, 3 of 4): (1/2 + 1/3 + 1/4 + 0) / 4
    Mat w = uniform_head(visible_keys(5, false));
    for (std::size_t j = 0; j < 5; ++j) w(4, j) = j == 3 ? 1.0f : 0.0f;
    const auto s = head_sink(w);
    REQUIRE(s);
    CHECK(s->key == 0);
    CHECK(s->weight == doctest::Approx((0.5 + 1.0 / 3 + 0.25) / 4));
}

TEST_CASE("heads: a uniform causal head over 14 tokens scores 0.17 on previous, and a head is named only 0.2 above chance and at twice it") {
    const Mat u = uniform_head(visible_keys(14, false));
    CHECK(u(13, 0) == doctest::Approx(1.0 / 14));
    CHECK(u(2, 3) == 0.0f);  // hidden: a causal row
    double h = 0.0;  // mean over i = 1..13 of 1/(i+1) = (H_14 - 1) / 13
    for (int i = 2; i <= 14; ++i) h += 1.0 / i;
    CHECK(*previous_score(u) == doctest::Approx(h / 13));
    CHECK(h / 13 == doctest::Approx(0.1732).epsilon(1e-3));
    CHECK_FALSE(clears_chance(0.21, 0.17));
    CHECK_FALSE(clears_chance(0.36, 0.17));  // 0.2 above but not twice
    CHECK(clears_chance(0.37, 0.17));
    CHECK_FALSE(clears_chance(0.5, 0.4));  // twice needs 0.8
    CHECK(clears_chance(0.8, 0.4));
    const Mat e = uniform_head(visible_keys(4, true));  // an encoder's: every key
    CHECK(e(0, 3) == 0.25f);
}

TEST_CASE("heads: natural-text induction reads the token after an earlier, not adjacent copy of the query's token") {
    // ids 5 7 5 7 on the hand matrix: query 2 (5) has its copy at 0, whose next token is 1: w21 = .2;
    // query 3 (7) at 1, next 2: w32 = .3
    CHECK(*text_induction_score(hand_weights(), {5, 7, 5, 7}) == doctest::Approx((0.2 + 0.3) / 2));
    CHECK_FALSE(text_induction_score(hand_weights(), {5, 5, 6, 7}));  // the only repeat is adjacent
    CHECK_FALSE(text_induction_score(hand_weights(), {1, 2, 3, 4}));
    // ids 5 5 5 5: query 2 sees the non-adjacent copy 0 (next 1: .2); query 3 copies 0 and 1 (next 1, 2: .2 + .3)
    CHECK(*text_induction_score(hand_weights(), {5, 5, 5, 5}) == doctest::Approx((0.2 + 0.5) / 2));
}

TEST_CASE("show's distance table: a uniform head's mean distance is its baseline, under the head's own mask") {
    HeadTrace causal;
    causal.weights = Mat::from_shape({8, 8});
    CHECK(attn::uniform_attention_distance(causal, false) == doctest::Approx(2.0));  // T/4
    HeadTrace enc;
    enc.weights = Mat::from_shape({4, 4});
    // Σ_{j <= i} (i - j)/4 per row: .25, .75, 1.5, over rows 1..3
    CHECK(attn::uniform_attention_distance(enc, true) == doctest::Approx(2.5 / 3));
    HeadTrace window = causal;  // a sliding window of 2: query i sees i-1 and i, distance 1/2
    window.mask = Mask::from_shape({8, 8});
    for (std::size_t i = 0; i < 8; ++i)
        for (std::size_t j = 0; j < 8; ++j) window.mask.edit()(i, j) = j <= i && i - j < 2 ? 1 : 0;
    CHECK(attn::uniform_attention_distance(window, false) == doctest::Approx(0.5));
}

TEST_CASE("heads: the induction score reads w[i][i-R+1] over the second copy's queries") {
    // R = 2 on the hand matrix: rows 2 and 3 at columns 1 and 2
    CHECK(*induction_score(hand_weights(), 2) == doctest::Approx((0.2 + 0.3) / 2));
    // a head built to copy: each second-copy query puts all its weight after its token's first occurrence
    const std::size_t R = 5;
    Mat w = Mat::from_shape({2 * R, 2 * R});
    w.fill(0.0f);
    for (std::size_t i = 0; i < 2 * R; ++i) w(i, i >= R ? i - R + 1 : 0) = 1.0f;
    CHECK(*induction_score(w, R) == 1.0);
    CHECK(*previous_score(w) < 0.5);
    CHECK_FALSE(induction_score(hand_weights(), 3));  // 2R = 6 > T = 4
}

TEST_CASE("heads: a pattern without queries or repeats is undefined, and text_head_scores leaves it out") {
    Mat one = Mat::from_shape({1, 1});
    one(0, 0) = 1.0f;
    CHECK_FALSE(previous_score(one));
    CHECK_FALSE(first_score(one));
    CHECK_FALSE(self_score(one));
    CHECK_FALSE(punctuation_score(one, {true}));
    CHECK_FALSE(head_sink(one));
    CHECK_FALSE(duplicate_score(hand_weights(), {1, 2, 3, 4}));
    const TextHeadScores s = text_head_scores(hand_weights(), {false, false, false, false}, {1, 2, 3, 4});
    CHECK_FALSE(s.score[static_cast<std::size_t>(HeadPattern::duplicate)]);
    CHECK_FALSE(s.score[static_cast<std::size_t>(HeadPattern::induction)]);
    CHECK_FALSE(s.score[static_cast<std::size_t>(HeadPattern::sink)]);  // no key of the hand matrix holds
}

TEST_CASE("heads: punctuation is every character in Unicode category P or S once whitespace and the label marks are gone") {
    for (const char* yes : {",", ".", "...", "\xC2\xB7,", "\xC2\xB7$", "+", "\xC2\xAB", "\xE3\x80\x82", "\xE2\x82\xAC", "\xE2\x80\x94",
                            "\xC2\xB7).", ",\xE2\x86\xB5", "\xF0\x9F\x98\x80"})  // « 。 € — 😀 (So)
        CHECK_MESSAGE(is_punctuation_label(yes), yes);
    for (const char* no : {"", " ", "\xC2\xB7", "\xE2\x86\xB5", "\xE2\x86\xB5\xE2\x86\xB5", "\xE2\x87\xA5", "\xEF\xBF\xBD", "a,",
                           "\xC2\xB7the", "1", "\xC2\xB7" "2.5", "\xC3\xA9"})  // · ↵ ↵↵ ⇥ U+FFFD ... é
        CHECK_MESSAGE(!is_punctuation_label(no), no);
}

TEST_CASE("heads: the induction ids are std::mt19937(seed) draws mod the vocabulary, repeats drawn again") {
    // MT19937 seed 0, computed outside attn (a Python transcription of the reference algorithm):
    // 2357136044 2546248239 3071714933 3626093760 2588848963 3684848379 2340255427 3638918503 1819583497
    // 2678185683 2774094101; mod 257: 149 179 47 62 69 112 63 248 110 248 121 (the second 248 drawn again)
    CHECK(induction_ids(10, 0, 257) == std::vector<std::int64_t>{149, 179, 47, 62, 69, 112, 63, 248, 110, 121});
    // mod 5 the same stream gives 4 4 3 4 3 4 2 3 2 3 1 ...: every id once
    CHECK(induction_ids(5, 0, 5) == std::vector<std::int64_t>{4, 3, 0, 2, 1});
    CHECK_THROWS(induction_ids(6, 0, 5));
}

TEST_CASE("heads: the ranking is highest first, undefined heads left out, and the readings name the score, its chance and the sink") {
    HeadReport r;
    r.n_layer = 2, r.n_head = 2, r.model.type = "gpt2";
    for (auto& grid : r.scores) grid.assign(2, std::vector<std::optional<double>>(2));
    for (auto& grid : r.chance) grid.assign(2, std::vector<std::optional<double>>(2, 0.1));
    auto set = [&](HeadPattern p, std::size_t l, std::size_t h, double v) { r.scores[static_cast<std::size_t>(p)][l][h] = v; };
    set(HeadPattern::punctuation, 0, 0, 0.2), set(HeadPattern::punctuation, 1, 0, 0.61), set(HeadPattern::punctuation, 1, 1, 0.4);
    set(HeadPattern::sink, 1, 0, 0.83), set(HeadPattern::sink, 0, 0, 0.3);
    HeadText text;
    text.tokens = {"It", "\xC2\xB7said", ",", "\xC2\xB7no"};
    text.sinks.assign(2, std::vector<std::optional<HeadSink>>(2));
    text.sinks[1][0] = HeadSink{1, 0.83};
    text.sinks[0][0] = HeadSink{0, 0.3};
    r.texts.push_back(text);
    const auto ranked = rank_heads(r, HeadPattern::punctuation);
    REQUIRE(ranked.size() == 3);
    CHECK((ranked[0].layer == 1 && ranked[0].head == 0));
    CHECK((ranked[1].layer == 1 && ranked[1].head == 1));
    CHECK((ranked[2].layer == 0 && ranked[2].head == 0));
    CHECK(named_heads(r, HeadPattern::punctuation, 3).size() == 2);  // 0.2 is below chance 0.1 + 0.2
    CHECK(render::head_reading(r, HeadPattern::punctuation, 1, 0, 2) == "layer 1 head 0: 0.61 of its attention on punctuation (chance 0.10)");
    CHECK(render::head_reading(r, HeadPattern::sink, 1, 0, 2).find("\"\xC2\xB7said\" (position 1)") != std::string::npos);
    CHECK(render::sink_caution(r, 1, 0, 2).find("parks 0.83 of its attention on one token (\"\xC2\xB7said\"") != std::string::npos);
    CHECK(render::sink_caution(r, 0, 0, 2).empty());  // 0.3 is below kSinkCaution
    set(HeadPattern::sink, 1, 1, 0.9);
    text.sinks[1][1] = HeadSink{2, 0.9};  // key 2 of 4: one query after it, fewer than half of the 3
    r.texts[0] = text;
    CHECK(render::sink_caution(r, 1, 1, 2).empty());
    render::HeadsViewOptions v;
    v.rank = HeadPattern::punctuation, v.top = 3;
    const std::string view = render::heads_terminal_view(r, v);
    CHECK(view.find("top heads by punctuation:\n  layer 1 head 0: 0.61") != std::string::npos);
    CHECK(view.find("caution: this head parks 0.83") != std::string::npos);
    CHECK(view.find("layer 0 head 0: 0.20 of its attention on punctuation") == std::string::npos);  // below chance + 0.2
    CHECK(view.find("a head is named only when its score is at least chance + 0.2 and at least 2 \xC3\x97 chance") != std::string::npos);
    for (auto& row : r.chance[static_cast<std::size_t>(HeadPattern::punctuation)]) row.assign(2, 0.45);
    const std::string none = render::heads_terminal_view(r, v);
    CHECK(none.find("top heads by punctuation:\n  no head clears chance (the highest, layer 1 head 0, scores 0.61 against chance 0.45)\n") !=
          std::string::npos);
}

TEST_CASE("heads: over several texts the sink and its caution name the text where it holds most, with that text's own value") {
    HeadReport r;
    r.n_layer = 1, r.n_head = 1, r.model.type = "gpt2";
    for (auto& grid : r.scores) grid.assign(1, std::vector<std::optional<double>>(1));
    r.scores[static_cast<std::size_t>(HeadPattern::sink)][0][0] = (0.53 + 0.95) / 2;  // the mean over the two texts
    r.scores[static_cast<std::size_t>(HeadPattern::previous)][0][0] = 0.6;
    HeadText a, b;
    a.tokens = {"It", "\xC2\xB7" "is", "\xC2\xB7" "that", "\xC2\xB7" "one", "."};
    a.sinks = {{HeadSink{2, 0.53}}};  // "·that": 2 of the 4 queries after it
    b.tokens = {"The", "\xC2\xB7" "dog", "\xC2\xB7" "ran", "."};
    b.sinks = {{HeadSink{0, 0.95}}};
    r.texts = {a, b};
    const std::string caution = render::sink_caution(r, 0, 0, 2);
    CHECK(caution.find("parks 0.95 of its attention on one token (\"The\" at position 0 of text 2)") != std::string::npos);
    CHECK(caution.find("0.74") == std::string::npos);  // never the mean said of one text's token
    CHECK(render::head_reading(r, HeadPattern::sink, 0, 0, 2) ==
          "layer 0 head 0: 0.74 of its attention on one token (a sink), from the queries after it: \"The\" (position 0 of text 2, 0.95 there)");
    r.texts[1].sinks = {{HeadSink{0, 0.4}}};  // now "·that" on text 1 holds most: its own 0.53
    r.scores[static_cast<std::size_t>(HeadPattern::sink)][0][0] = (0.53 + 0.4) / 2;
    CHECK(render::sink_caution(r, 0, 0, 2).empty());  // the mean 0.465 is below kSinkCaution
    r.scores[static_cast<std::size_t>(HeadPattern::sink)][0][0] = 0.79;
    CHECK(render::sink_caution(r, 0, 0, 2).find("parks 0.53 of its attention on one token (\"\xC2\xB7that\" at position 2 of text 1)") !=
          std::string::npos);
}

TEST_CASE("heads end to end: exit 0, the JSON's patterns are layers x heads, and the figures are written") {
    const std::string out = attn::test::temp_dir();
    const auto r = attn::test::run_attn({"heads", "--model", heads_model_dir(), "--json", out + "/h.json", "--png", out + "/png",
                                         "--svg", out + "/svg", "--rank", "first", "--top", "1", "a,a", "b b"});
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(attn::test::slurp(out + "/h.json"));
    CHECK(j["format"] == "attn-heads");
    CHECK(j["model"]["name"] == "model-ok");
    for (const auto& info : head_patterns()) {
        INFO(info.name);
        if (!info.decoder) {  // next: a GPT-2's JSON leaves it out
            CHECK(!j["patterns"].contains(info.name));
            continue;
        }
        REQUIRE(j["patterns"][info.name].size() == 1);     // 1 layer
        REQUIRE(j["patterns"][info.name][0].size() == 2);  // 2 heads
        for (const auto& v : j["patterns"][info.name][0]) {
            if (info.pattern == HeadPattern::sink && v.is_null()) continue;  // no key of 3 tokens need hold as a sink
            CHECK((v.get<double>() >= 0.0 && v.get<double>() <= 1.0 + 1e-6));
        }
    }
    CHECK(j["texts"].size() == 2);
    CHECK(j["texts"][0]["tokens"] == nlohmann::json::array({"a", ",", "a"}));
    CHECK(j["texts"][0]["punctuation"] == nlohmann::json::array({false, true, false}));
    CHECK(j["defined_texts"]["duplicate"] == 2);  // "a,a" repeats a, "b b" repeats b
    CHECK(j["induction"]["R"] == 2);  // the default 25, cut to half the 4-token context
    CHECK(j["induction"]["seed"] == 0);
    CHECK(j["induction"]["token_ids"].size() == 4);
    CHECK(j["sinks"].size() == 2);
    // a uniform head on "a,a" and "b b", 3 tokens each (the tiny vocabulary has no "·b"): first (1/2 + 1/3)/2
    CHECK(j["texts"][1]["tokens"].size() == 3);
    CHECK(j["chance"]["first"][0][1].get<double>() == doctest::Approx(5.0 / 12));
    CHECK(j["chance_rule"]["margin"] == 0.2);
    for (const char* f : {"gpt2-heads-previous.png", "gpt2-heads-sink.png", "gpt2-heads-induction.png", "gpt2-heads-punctuation.png"})
        CHECK(std::filesystem::exists(out + "/png/" + std::string(f)));
    CHECK(std::filesystem::exists(out + "/svg/gpt2-heads-first.svg"));
    // each map says its chance level: first's is 5/12 on these texts
    CHECK(attn::test::slurp(out + "/svg/gpt2-heads-first.svg").find("chance 0.42 (a uniform head)") != std::string::npos);
    const std::string best = j["patterns"]["first"][0][0].get<double>() >= j["patterns"]["first"][0][1].get<double>() ? "0" : "1";
    const double top = j["patterns"]["first"][0][std::stoi(best)], chance = j["chance"]["first"][0][0];
    const bool named = top >= chance + 0.2 && top >= 2 * chance;  // the seeded heads: a figure only when one clears chance
    CHECK(std::filesystem::exists(out + "/png/gpt2-l0-h" + best + "-weights.png") == named);
    CHECK(attn::test::tree(out + "/png").size() == (named ? 8u : 7u));  // 7 pattern maps and the named top head's weights
    CHECK(j["top"]["heads"].size() == (named ? 1u : 0u));
    CHECK(r.out.find(named ? "top heads by first:\n  layer 0 head " + best : "top heads by first:\n  no head clears chance") != std::string::npos);
    CHECK(r.out.find("wrote PNGs to ") != std::string::npos);
}

TEST_CASE("heads end to end: texts from --file, one per line, and a pattern no text defines is said so") {
    const std::string dir = attn::test::temp_dir();
    attn::test::write(dir + "/texts.txt", "ab\n\ncd\r\n");
    const auto r = attn::test::run_attn({"heads", "--model", heads_model_dir(), "--file", dir + "/texts.txt", "--json", "-"});
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["texts"].size() == 2);
    CHECK(j["texts"][1]["text"] == "cd");
    CHECK(j["defined_texts"]["duplicate"] == 0);
    CHECK(j["patterns"]["duplicate"][0][0].is_null());
    const auto t = attn::test::run_attn({"heads", "--model", heads_model_dir(), "--file", dir + "/texts.txt"});
    REQUIRE(t.code == 0);
    CHECK(t.out.find("duplicate: ") != std::string::npos);
    CHECK(t.out.find("undefined in every text (no token repeats)") != std::string::npos);
    CHECK(t.out.find("the best head of each pattern") != std::string::npos);
}

TEST_CASE("heads: bad options are usage errors with a hint that fits") {
    const std::string m = heads_model_dir();
    struct Row {
        std::vector<std::string> args;
        std::string error;
    };
    const std::vector<Row> rows = {
        {{"heads", "--model", m, "--rank", "previus", "a b"}, "--rank: 'previus' is not a pattern (hint: did you mean 'previous'?"},
        {{"heads", "--model", m, "--top", "2", "a b"}, "--top needs --rank PATTERN"},
        {{"heads", "--model", m, "--induction-length", "3", "a b"}, "--induction-length 3 needs 6 tokens, more than the model's context of 4 (hint: use at most 2)"},
        {{"heads", "--model", m}, "no text given"},
        {{"heads", "--model", m, "--file", "x.txt", "a b"}, "give the texts once"},
        {{"heads", "--model", m, "abcde"}, "more than 4 tokens"},
        {{"heads", "a b"}, "--model"},
    };
    for (const Row& row : rows) {
        INFO(row.args.back());
        const auto r = attn::test::run_attn(row.args);
        CHECK(r.code == 2);
        CHECK(attn::test::one_line(r).find(row.error) != std::string::npos);
    }
}

TEST_CASE("heads --file: a bad file is an input error naming the file and the byte offset in it, as show's --file errors are") {
    const std::string dir = attn::test::temp_dir();
    const std::string m = heads_model_dir();
    struct Row {
        std::string name, bytes, error;
    };
    const std::vector<Row> rows = {
        {"utf8.txt", "ab\ncd\xFF\n", "the text is not valid UTF-8 at byte offset 5 (byte 0xFF) (hint: save the file as UTF-8)"},
        {"bom.txt", "\xEF\xBB\xBF" "ab\nc\x01", "the text has a control character at byte offset 4 (U+0001) (hint: remove it; tabs and newlines are fine)"},
        {"utf16.txt", std::string("a\0b\0\n\0", 6), "the text looks like UTF-16 (hint: save it as UTF-8)"},
        {"blank.txt", " \n\t\n", "the text has no words (hint: write one text per line)"},
    };
    for (const Row& row : rows) {
        const std::string path = dir + "/" + row.name;
        attn::test::write(path, row.bytes);
        INFO(row.name);
        const auto heads = attn::test::run_attn({"heads", "--model", m, "--file", path});
        CHECK(heads.code == 1);
        CHECK(attn::test::one_line(heads) == "attn: error: " + path + ": " + row.error + "\n");
        if (row.name == "blank.txt") continue;  // show says "the text has no words (hint: give a file with at least one word)"
        const auto show = attn::test::run_attn({"show", "--file", path});  // the seeded kinds' --file: the same line
        CHECK(show.code == 1);
        CHECK(attn::test::one_line(show) == "attn: error: " + path + ": " + row.error + "\n");
    }
    const auto piped = attn::test::run_attn({"heads", "--model", m, "--file", "-"}, "ab\n\xC3");
    CHECK(piped.code == 1);
    CHECK(attn::test::one_line(piped) == "attn: error: standard input: the text is not valid UTF-8 at byte offset 3 (byte 0xC3) (hint: save the file as UTF-8)\n");
}
