// Figures fitted to a slide: every label at least 16 px on a 1920 × 1080 slide, the model overview names the
// tokens on its first column and row of maps (every k-th where a cell is smaller than a line of text), and a
// grid of many heads leaves its cell values out by default when they would be illegible there.
#include <filesystem>
#include <string>

#include "tests/helpers.h"
#include "tests/model_fixtures.h"

namespace {

// A tiny GPT-2 (1 layer, 2 heads, byte tokens: one token per letter) with room for 16 positions.
std::string model16() {
    static const std::string dir = [] {
        const std::string d = attn::test::temp_dir();
        std::string cfg = attn::test::tiny_gpt2_config();
        cfg.replace(cfg.find("\"n_positions\": 4"), 16, "\"n_positions\": 16");
        attn::test::write_model_folder(d, "m16", cfg, attn::test::safetensors_file(attn::test::tiny_gpt2_tensors(16)));
        return d + "/m16";
    }();
    return dir;
}

}  // namespace

TEST_CASE("overview: up to 12 tokens, the first column's maps carry query labels and the first row's key labels, 13 tokens none") {
    const std::string out = attn::test::temp_dir();
    REQUIRE(attn::test::run_attn({"show", "--model", model16(), "--svg", out + "/a", "--png", out + "/a", "abcd"}).code == 0);
    const std::string few = attn::test::slurp(out + "/a/gpt2-overview.svg");
    // H = 2 heads + mean + rollout above the first row, 4 keys each; 4 queries beside "layer 0"
    CHECK(attn::test::count_of(few, "class=\"key-label\"") == 4 * 4);
    CHECK(attn::test::count_of(few, "class=\"query-label\"") == 1 + 4);
    CHECK(attn::test::count_of(few, ">c</text>") == 4 + 1);
    CHECK(few.find("weight \xC3\xB7 the map&apos;s largest</text>") != std::string::npos);  // the colour bar's caption
    REQUIRE(attn::test::run_attn({"show", "--model", model16(), "--svg", out + "/b", "abcdefghijklm"}).code == 0);
    const std::string many = attn::test::slurp(out + "/b/gpt2-overview.svg");
    CHECK(many.find("13 tokens") != std::string::npos);
    CHECK(attn::test::count_of(many, "class=\"key-label\"") == 0);
    CHECK(attn::test::count_of(many, "class=\"query-label\"") == 1);  // "layer 0" only
    CHECK(many.find("weight \xC3\xB7 the map&apos;s largest</text>") != std::string::npos);
    REQUIRE(attn::test::run_attn({"show", "--model", model16(), "--svg", out + "/c", "abcdefghijkl"}).code == 0);
    CHECK(attn::test::count_of(attn::test::slurp(out + "/c/gpt2-overview.svg"), "class=\"key-label\"") == 4 * 12);
}

TEST_CASE("values: a 12-head grid shrinks its cells to fit the slide, keeping values while they fit, and --values never drops them") {
    const std::string out = attn::test::temp_dir();
    const std::string s = "Your journey starts with one step";
    REQUIRE(attn::test::run_attn({"show", "-k", "mha", "--heads", "12", "--svg", out + "/auto", s}).code == 0);
    REQUIRE(attn::test::run_attn({"show", "-k", "mha", "--heads", "12", "--values", "always", "--svg", out + "/always", s}).code == 0);
    // 12 heads of 6 tokens fitted to the slide's text rule: cells too small for digits, whatever --values says
    CHECK(attn::test::count_of(attn::test::slurp(out + "/auto/mha-weights.svg"), "class=\"value\"") == 0);
    CHECK(attn::test::count_of(attn::test::slurp(out + "/always/mha-weights.svg"), "class=\"value\"") == 0);
    // 12 heads of 5 tokens: the digits fit, and stay legible on the slide
    REQUIRE(attn::test::run_attn({"show", "-k", "mha", "--heads", "12", "--svg", out + "/five", "a b c d e"}).code == 0);
    const std::string five = attn::test::slurp(out + "/five/mha-weights.svg");
    CHECK(attn::test::count_of(five, "class=\"value\"") == 12 * 15);  // 15 visible causal cells of 5 tokens per head
    CHECK(five.find(">1.00</text>") != std::string::npos);
    // the default 2-head grid keeps its values (legible on a slide) unless --values never
    REQUIRE(attn::test::run_attn({"show", "-k", "mha", "--svg", out + "/two", s}).code == 0);
    REQUIRE(attn::test::run_attn({"show", "-k", "mha", "--values", "never", "--svg", out + "/none", s}).code == 0);
    CHECK(attn::test::count_of(attn::test::slurp(out + "/two/mha-weights.svg"), "class=\"value\"") == 2 * 21);
    CHECK(attn::test::count_of(attn::test::slurp(out + "/none/mha-weights.svg"), "class=\"value\"") == 0);
    // gqa's default 4 heads keep the weights' values
    REQUIRE(attn::test::run_attn({"show", "-k", "gqa", "--svg", out + "/gqa", s}).code == 0);
    CHECK(attn::test::count_of(attn::test::slurp(out + "/gqa/gqa-weights.svg"), "class=\"value\"") == 4 * 21);
    CHECK(attn::test::run_attn({"show", "--values", "some", s}).code == 2);
}

TEST_CASE("values: attn render's grid of a model layer's heads takes --values like show") {
    const std::string out = attn::test::temp_dir();
    REQUIRE(attn::test::run_attn({"show", "--model", model16(), "--json", out + "/t.json", "abcd"}).code == 0);
    REQUIRE(attn::test::run_attn({"render", out + "/t.json", "--layer", "0", "--svg", out + "/r"}).code == 0);
    REQUIRE(attn::test::run_attn({"render", out + "/t.json", "--layer", "0", "--values", "never", "--svg", out + "/n"}).code == 0);
    bool some = false;
    for (const auto& e : std::filesystem::directory_iterator(out + "/r")) {
        const std::string name = e.path().filename().string();
        if (name.find("weights.svg") == std::string::npos) continue;
        INFO(name);
        some = true;
        CHECK(attn::test::count_of(attn::test::slurp(e.path().string()), "class=\"value\"") == 2 * 10);  // 2 heads × 10 visible cells of 4 tokens
        CHECK(attn::test::count_of(attn::test::slurp(out + "/n/" + name), "class=\"value\"") == 0);
    }
    CHECK(some);
}

#include <regex>

#include "render/outputs/encoder_decoder_figures.h"
#include "render/outputs/model_figures.h"
#include "tests/seq2seq_fixtures.h"

namespace {

// The smallest label, tick, caption or title of an SVG figure fitted to a 1920 × 1080 slide, in slide
// pixels (values in cells aside), and the text holding it.
std::pair<double, std::string> smallest_text_on_slide(const std::string& svg) {
    std::smatch box;
    REQUIRE(std::regex_search(svg, box, std::regex("viewBox=\"0 0 ([0-9.]+) ([0-9.]+)\"")));
    const double fit = std::min(1920.0 / std::stod(box[1]), 1080.0 / std::stod(box[2]));
    std::pair<double, std::string> smallest{1e9, ""};
    const std::regex text("<text([^>]*)>([^<]*)"), size("font-size=\"([0-9.]+)\"");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text); it != std::sregex_iterator(); ++it) {
        const std::string attrs = (*it)[1];
        if (attrs.find("class=\"value\"") != std::string::npos) continue;
        std::smatch px;
        REQUIRE(std::regex_search(attrs, px, size));
        if (std::stod(px[1]) * fit < smallest.first) smallest = {std::stod(px[1]) * fit, (*it)[2]};
    }
    return smallest;
}

// A fabricated GPT-2-shaped run, 12 layers × 12 heads over `T` tokens: the largest overview there is.
attn::Trace twelve_by_twelve(std::size_t T) {
    attn::Trace t;
    t.kind = "model", t.config.kind = "model";
    attn::ModelInfo m;
    m.type = "gpt2", m.dtype = "F32", m.n_layer = 12, m.n_head = 12, m.n_embd = 768, m.n_positions = 1024, m.vocab_size = 50257;
    m.n_params = 124000000, m.stack = "decoder";
    t.model = m;
    for (std::size_t i = 0; i < T; ++i) t.tokens.push_back("\xC2\xB7word" + std::to_string(i)), t.token_ids.push_back(std::int64_t(i));
    t.source_tokens = t.tokens;
    attn::Mat w = attn::Mat::from_shape({T, T});
    for (std::size_t i = 0; i < T; ++i)
        for (std::size_t j = 0; j < T; ++j) w(i, j) = j <= i ? 1.0f / float(i + 1) : 0.0f;
    attn::AttentionSet s{"decoder", t.tokens, t.tokens, {}, true};
    for (std::size_t l = 0; l < 12; ++l) {
        attn::LayerTrace layer{l, {}};
        for (std::size_t h = 0; h < 12; ++h) layer.heads.push_back(attn::test::fake_head(h, w, true));
        s.layers.push_back(layer);
        t.layer_mean.push_back(w), t.rollout.push_back(w);
    }
    t.sets = {s};
    return t;
}

}  // namespace

TEST_CASE("slide: every figure kind's labels, ticks, captions and titles are at least 16 px on a 1920 × 1080 slide") {
    const std::string out = attn::test::temp_dir();
    const std::string words40 = [] {
        std::string s;
        for (int i = 0; i < 40; ++i) s += "word" + std::to_string(i) + " ";
        return s;
    }();
    const std::vector<std::vector<std::string>> runs = {
        {"show", "-k", "causal", "--example", "journey", "--figures",
         "scores,masked-scores,mask,weights,queries,keys,values,context,output,query", "--query", "2"},
        {"show", "-k", "mha", "--heads", "12", "Your journey starts with one step"},
        {"show", "-k", "gqa", "--pos", "rope", "Your journey starts with one step"},
        {"show", "-k", "mha", "--heads", "6", "--d-out", "18", "--pos", "alibi", "Your journey starts with one step"},
        {"show", "-k", "mha", "--heads", "12", "--d-out", "24", "--pos", "alibi", "a b c d e f g h"},
        {"show", "-k", "self", "--pos", "sinusoidal", "Your journey starts with one step"},
        {"show", "-k", "flash", "Your journey starts with one step"},
        {"show", "-k", "cross", "--source", "Die Reise beginnt mit einem Schritt", "Your journey starts"},
        {"show", "-k", "causal", "--dropout", "0.5", "--dropout-seed", "123", "Your journey starts with one step"},
        {"show", "-k", "causal", words40},
        {"show", "-k", "causal", "--renorm", "--figures", "weights,zeroed", "Your journey starts with one step"},
        {"decode", "-k", "gqa", "Your journey starts with one step and goes on"},
        {"decode", "-k", "mha", "--heads", "8", words40},
        {"show", "--model", model16(), "--show", "weights,mean,rollout", "abcdefghijkl"},
        {"heads", "--model", model16(), "--effect", "abcdefgh", "abcdabcd"},
    };
    std::size_t n = 0;
    for (std::size_t r = 0; r < runs.size(); ++r) {
        std::vector<std::string> args = runs[r];
        args.insert(args.end(), {"--svg", out + "/" + std::to_string(r)});
        INFO(args[1] << " " << args[2] << " " << args[3]);
        REQUIRE(attn::test::run_attn(args).code == 0);
        for (const auto& e : std::filesystem::directory_iterator(out + "/" + std::to_string(r))) {
            INFO(e.path().filename().string());
            const auto [px, what] = smallest_text_on_slide(attn::test::slurp(e.path().string()));
            INFO(what);
            CHECK(px >= 16.0 - 1e-9);
            ++n;
        }
    }
    // the largest overview and decode grid: 12 layers × 12 heads, and an encoder-decoder's sets
    attn::render::FigureOptions o;
    for (const std::size_t T : {6, 12, 40}) {
        const attn::Trace t = twelve_by_twelve(T);
        std::vector<attn::render::OutputFile> files = attn::render::model_figures(t, {0, 0}, o, attn::render::FileType::svg);
        const auto agg = attn::render::aggregate_figures(t, 0, {attn::render::LayerAggregate::mean, attn::render::LayerAggregate::rollout}, o,
                                                   attn::render::FileType::svg);
        files.insert(files.end(), agg.begin(), agg.end());
        for (const attn::render::OutputFile& f : files) {
            INFO(T << " tokens: " << f.name);
            const auto [px, what] = smallest_text_on_slide(f.bytes);
            INFO(what);
            CHECK(px >= 16.0 - 1e-9);
            ++n;
        }
    }
    const attn::Trace s2s = attn::test::fake_seq2seq_trace();
    for (const attn::render::OutputFile& f : attn::render::encoder_decoder_figures(s2s, {}, o, attn::render::FileType::svg)) {
        INFO(f.name);
        CHECK(smallest_text_on_slide(f.bytes).first >= 16.0 - 1e-9);
        ++n;
    }
    CHECK(n > 50);
}
