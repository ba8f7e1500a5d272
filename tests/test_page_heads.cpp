// The page of a model run carries every head's `attn heads` scores of its text (render/page/html.cpp,
// core/analysis/head_report.h's score_trace); golden values worked by hand on one (4, 4) weight matrix.
#include <doctest/doctest.h>

#include <string>

#include "core/base/trace.h"
#include "render/page/html.h"
#include "tests/page_helpers.h"
#include <nlohmann/json.hpp>

namespace {

using attn::test::page_json;

using Json = nlohmann::json;

// One layer, one head, tokens "The ·cat , The" (ids 10 11 12 10), causal weights rows summing to 1:
//   row 0: 1
//   row 1: .25 .75
//   row 2: .5  .2  .3
//   row 3: .1  .2  .3  .4
attn::Trace hand_model_trace() {
    attn::Trace t;
    t.kind = "model";
    t.tokens = t.source_tokens = {"The", "·cat", ",", "The"};
    t.token_ids = {10, 11, 12, 10};
    attn::ModelInfo m;
    m.type = "gpt2", m.dtype = "F32", m.n_layer = 1, m.n_head = 1;
    t.model = m;
    attn::HeadTrace h;
    h.weights = attn::Mat::from_shape({4, 4});
    h.weights.fill(0.0f);
    h.weights(0, 0) = 1.0f;
    h.weights(1, 0) = 0.25f, h.weights(1, 1) = 0.75f;
    h.weights(2, 0) = 0.5f, h.weights(2, 1) = 0.2f, h.weights(2, 2) = 0.3f;
    h.weights(3, 0) = 0.1f, h.weights(3, 1) = 0.2f, h.weights(3, 2) = 0.3f, h.weights(3, 3) = 0.4f;
    attn::AttentionSet set;
    set.name = "self", set.query_tokens = set.key_tokens = t.tokens, set.model_layers = true;
    set.layers.push_back({7, {h}});  // the model's layer 7 (a --keep-layers run keeps the numbers)
    t.sets.push_back(set);
    return t;
}

}  // namespace

TEST_CASE("page: a model run's page carries its name, text and every head's scores, equal to the sums worked by hand") {
    attn::render::HtmlOptions o;
    o.model_name = "tiny<b>", o.text = "The cat, The";
    const Json j = page_json(attn::render::render_html(hand_model_trace(), o));
    CHECK(j["model"]["name"] == "tiny<b>");
    CHECK(j["text"] == "The cat, The");
    const Json& hs = j["head_scores"];
    REQUIRE(hs["patterns"].size() == 6);  // every pattern but induction (it needs its own run)
    const char* names[] = {"previous", "first", "self", "punctuation", "duplicate", "sink"};
    // previous (.25 + .2 + .3) / 3; first (.25 + .5 + .1) / 3; self (.75 + .3 + .4) / 3; punctuation: key 2
    // "," seen by rows 2 and 3, (0 + .3 + .3) / 3; duplicate: only query 3 repeats an id (10, at key 0): .1;
    // sink: no key holds as one (head_patterns.h: at least 2 and half of the queries after a key give it a
    // uniform row's 1/(i+1)): key 0 is given that by row 2 alone (.5; .25 < 1/2, .1 < 1/4), key 1 by none, key 2
    // has one query after it
    const double want[] = {0.25, 0.85 / 3, 1.45 / 3, 0.2, 0.1};
    REQUIRE(hs["scores"].size() == 1);
    REQUIRE(hs["scores"][0].size() == 1);
    for (std::size_t p = 0; p < 6; ++p) {
        CAPTURE(names[p]);
        CHECK(hs["patterns"][p][0] == names[p]);
        if (p < 5) CHECK(hs["scores"][0][0][p].get<double>() == doctest::Approx(want[p]).epsilon(1e-6));
    }
    CHECK(hs["scores"][0][0][5].is_null());
    CHECK(hs["sinks"][0][0].is_null());
    CHECK(j["layers"][0]["layer"] == 7);
}

TEST_CASE("page: a pattern the text does not define is null, and a page without a name or text has neither") {
    attn::Trace t = hand_model_trace();
    t.token_ids = {10, 11, 12, 13};  // no id repeats: duplicate undefined
    const Json j = page_json(attn::render::render_html(t, {}));
    CHECK(j["head_scores"]["scores"][0][0][4].is_null());
    CHECK_FALSE(j["model"].contains("name"));
    CHECK_FALSE(j.contains("text"));
}

TEST_CASE("page: a seeded kind's page carries no head scores, text or model name") {
    attn::Trace t = hand_model_trace();
    t.kind = "causal", t.model.reset(), t.token_ids.clear(), t.sets[0].model_layers = false;
    const Json j = page_json(attn::render::render_html(t, {}));
    CHECK_FALSE(j.contains("head_scores"));
    CHECK_FALSE(j.contains("text"));
    CHECK(j["model"].is_null());
}
