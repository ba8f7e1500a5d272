// One trace shape (core/base/trace.h): every run is a list of attention sets {name, query tokens, key tokens,
// layers x heads}. Seeded kinds make one set with one layer numbered 0; a model one set with a layer per
// kept block. The JSON trace is version 2 ("attention"); `attn render` still reads version 1 ("heads" for
// seeded kinds, "layers" for models) into the same shape.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/kinds/kinds.h"
#include "data/base/error.h"
#include "render/page/html.h"
#include "render/trace_io/json.h"
#include "render/trace_io/trace_read.h"
#include "tests/helpers.h"
#include "tests/model_fixtures.h"

using namespace attn;
using attn::test::run_attn;
using attn::test::RunResult;
using OrderedJson = nlohmann::ordered_json;  // keys in the file's order, as attn writes them

namespace {

// A version 2 trace written back in version 1's shape, as an older attn wrote it.
OrderedJson as_version_1(OrderedJson j) {
    OrderedJson& layers = j["attention"][0]["layers"];
    if (j["kind"] == "model") j["layers"] = layers;
    else j["heads"] = layers[0]["heads"];
    j.erase("attention");
    j["version"] = 1;
    return j;
}

std::string read_error(const OrderedJson& j) {
    try {
        render::read_trace_json(j.dump(), "t.json");
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("trace shape: a seeded kind is one set with one layer 0, its name says where the keys come from") {
    for (const auto& [kind, source, name, S] :
         {std::tuple{"causal", "", "self", 4}, std::tuple{"gqa", "", "self", 4},
          std::tuple{"cross", "Wie geht es", "cross", 3}, std::tuple{"additive", "x y", "cross", 2}}) {
        INFO(kind);
        std::vector<std::string> args = {"show", "--kind", kind, "a b c d", "--json", "-"};
        if (*source) args.insert(args.end(), {"--source", source});
        const RunResult r = run_attn(args);
        REQUIRE(r.code == 0);
        const OrderedJson j = OrderedJson::parse(r.out);
        REQUIRE(j["attention"].size() == 1);
        const OrderedJson& set = j["attention"][0];
        CHECK(set["name"] == name);
        CHECK(set["query_tokens"] == j["tokens"]);
        CHECK(set["key_tokens"] == j["source_tokens"]);
        CHECK(set["key_tokens"].size() == S);
        REQUIRE(set["layers"].size() == 1);
        CHECK(set["layers"][0]["layer"] == 0);
        CHECK(set["layers"][0]["heads"].size() == j["config"]["heads"]);
        CHECK_FALSE(j.contains("heads"));  // version 1's place for them
    }
}

TEST_CASE("trace shape: a model run is one set with every kept layer, numbered as the model's") {
    const std::string dir = test::temp_dir();
    test::write_model_folder(dir, "m", test::tiny_gpt2_config(), test::safetensors_file(test::tiny_gpt2_tensors()));
    RunResult r = run_attn({"show", "--model", dir + "/m", "ab", "--json", "-"});
    REQUIRE(r.code == 0);
    OrderedJson j = OrderedJson::parse(r.out);
    REQUIRE(j["attention"].size() == 1);
    CHECK(j["attention"][0]["name"] == "self");
    CHECK(j["attention"][0]["key_tokens"] == j["tokens"]);
    const Trace t = render::read_trace_json(r.out, "m.json");
    REQUIRE(t.sets.size() == 1);
    CHECK(t.sets[0].model_layers);
    CHECK(t.layers().size() == j["model"]["n_layer"].get<std::size_t>());
    for (std::size_t l = 0; l < t.layers().size(); ++l) CHECK(t.layers()[l].layer == l);
}

TEST_CASE("trace shape: version 1 traces read into the same trace as version 2, seeded and model alike") {
    const std::string dir = test::temp_dir();
    test::write_model_folder(dir, "m", test::tiny_gpt2_config(), test::safetensors_file(test::tiny_gpt2_tensors()));
    const std::vector<std::vector<std::string>> runs = {
        {"show", "--kind", "gqa", "--heads", "4", "--kv-heads", "2", "--pos", "rope", "a b c d", "--json", "-"},
        {"show", "--kind", "cross", "a b", "--source", "x y z", "--json", "-"},
        {"show", "--kind", "flash", "--heads", "2", "--block-q", "2", "--block-k", "2", "a b c d e", "--json", "-"},
        {"show", "--model", dir + "/m", "abba", "--json", "-"},
    };
    for (const auto& args : runs) {
        INFO(args[2]);
        const RunResult r = run_attn(args);
        REQUIRE(r.code == 0);
        const OrderedJson old = as_version_1(OrderedJson::parse(r.out));
        REQUIRE(old["version"] == 1);
        const Trace t1 = render::read_trace_json(old.dump(), "v1.json");
        const Trace t2 = render::read_trace_json(r.out, "v2.json");
        CHECK(test::first_difference(render::trace_json_text(t1), r.out) == "");  // read as version 1, written as version 2: the same bytes
        CHECK(test::first_difference(render::render_html(t1, {}), render::render_html(t2, {})) == "");
        CHECK(t1.sets[0].model_layers == t2.sets[0].model_layers);
        CHECK(t1.sets[0].name == t2.sets[0].name);
    }
}

TEST_CASE("trace shape: a version 2 trace the writer never writes is refused, naming the field") {
    const RunResult r = run_attn({"show", "--kind", "mha", "--heads", "2", "a b c", "--json", "-"});
    REQUIRE(r.code == 0);
    const OrderedJson good = OrderedJson::parse(r.out);
    OrderedJson j = good;
    j["attention"].push_back(j["attention"][0]);
    CHECK(read_error(j) == "t.json: attention: holds 2 attention sets; attn draws traces of one set");
    j = good;
    j["attention"][0]["name"] = "encoder";
    CHECK(read_error(j) == "t.json: attention[0].name: is \"encoder\", not \"self\" or \"cross\"");
    j = good;
    j["attention"][0]["query_tokens"][1] = "z";
    CHECK(read_error(j) == "t.json: attention[0].query_tokens: are not the trace's \"tokens\"");
    j = good;
    j["attention"][0]["key_tokens"].erase(0);
    CHECK(read_error(j) == "t.json: attention[0].key_tokens: are not the trace's keys (\"source_tokens\", or \"tokens\")");
    j = good;
    j["attention"][0]["layers"].push_back(j["attention"][0]["layers"][0]);
    j["attention"][0]["layers"][1]["layer"] = 1;
    CHECK(read_error(j) == "t.json: attention[0].layers: a seeded kind's trace has one layer, numbered 0");
    j = good;
    j["attention"][0]["layers"][0]["layer"] = 3;
    CHECK(read_error(j) == "t.json: attention[0].layers: a seeded kind's trace has one layer, numbered 0");
    j = good;
    j["attention"][0]["layers"].clear();
    CHECK(read_error(j) == "t.json: there are no heads and no layers to show");
    j = good;
    j.erase("attention");
    CHECK(read_error(j) == "t.json: \"attention\" is missing");
    j = good;
    j["attention"][0]["layers"][0]["heads"][1]["weights"] = {{1, 0}, {0, 1}};
    CHECK(read_error(j) == "t.json: attention[0].layers[0].heads[1].weights: is (2, 2) but (T, S) = (3, 3)");
}
