// Output folders hold one consistent set: every command that writes into a --png, --svg or --npy folder
// removes the files of attn's names for its prefix that it did not write (render/trace_io/file_names.h lists
// them), leaves every other file alone, and refuses clashes with those names before the run.
#include <algorithm>
#include <set>

#include "cli/policy/outputs.h"
#include "fuzz/harness.h"
#include "render/trace_io/file_names.h"
#include "tests/helpers.h"
#include "tests/model_fixtures.h"

using namespace attn;
using attn::test::RunOptions;
using attn::test::RunResult;
using attn::test::model_fixtures_dir;
using attn::test::run_in;
using attn::test::temp_dir;
using attn::test::write;

namespace {

std::set<std::string> files_in(const std::string& dir) {
    std::vector<std::string> paths;
    fuzz::list_tree(dir, "", paths);
    return {paths.begin(), paths.end()};
}

// Files a user keeps beside attn's: not attn's names for the prefix (another prefix, another
// extension, a word attn does not write, a number written another way).
void write_own_files(const std::string& dir, const std::string& prefix, const char* ext) {
    for (const std::string& name : {std::string("notes") + ext, prefix + "-scores-old" + ext, prefix + "-weights" + ext + ".bak",
                                    prefix + "-query-0" + ext, prefix + "-h01-weights" + ext, prefix + "-layer01-weights" + ext,
                                    "other-masked-scores" + std::string(ext), prefix + "x-weights" + ext})
        write(dir + "/" + name, "mine");
}

std::set<std::string> own_files(const std::string& sub, const std::string& prefix, const char* ext) {
    std::set<std::string> s;
    for (const std::string& name : {std::string("notes") + ext, prefix + "-scores-old" + ext, prefix + "-weights" + ext + ".bak",
                                    prefix + "-query-0" + ext, prefix + "-h01-weights" + ext, prefix + "-layer01-weights" + ext,
                                    "other-masked-scores" + std::string(ext), prefix + "x-weights" + ext})
        s.insert(sub + "/" + name);
    return s;
}

// What `args` writes into a fresh folder, beside `extra`.
std::set<std::string> fresh_run(const std::vector<std::string>& args, const std::set<std::string>& extra = {}) {
    const std::string dir = temp_dir();
    REQUIRE(run_in(dir, args).code == 0);
    std::set<std::string> want = files_in(dir);
    want.insert(extra.begin(), extra.end());
    return want;
}

}  // namespace

TEST_CASE("output folders: a PNG run removes an earlier run's masked-scores, zeroed, query strip and position figures") {
    const std::string dir = temp_dir();
    REQUIRE(run_in(dir, {"show", "--kind", "causal", "a b c", "--png", "o", "--pos", "rope", "--query", "1", "--figures",
                         "scores,masked-scores,zeroed,query,queries,context"})
                .code == 0);
    for (const char* name : {"causal-masked-scores.png", "causal-zeroed.png", "causal-query.png", "causal-queries.png",
                             "causal-context.png", "causal-rope.png"})
        REQUIRE(files_in(dir).count(std::string("o/") + name) == 1);
    // the other position figures, as runs with --pos sinusoidal and --pos alibi leave them
    write(dir + "/o/causal-positions.png", "an earlier run's");
    write(dir + "/o/causal-alibi.png", "an earlier run's");
    write_own_files(dir + "/o", "causal", ".png");
    REQUIRE(run_in(dir, {"show", "--kind", "causal", "a b c", "--png", "o"}).code == 0);
    // exactly what a fresh run writes, beside the user's own files
    CHECK(files_in(dir) == fresh_run({"show", "--kind", "causal", "a b c", "--png", "o"}, own_files("o", "causal", ".png")));
}

TEST_CASE("output folders: an SVG folder is cleaned as a PNG folder is, and only of .svg names") {
    const std::string dir = temp_dir();
    REQUIRE(run_in(dir, {"show", "--kind", "mha", "--heads", "2", "a b c", "--svg", "s", "--query", "0", "--figures",
                         "weights,masked-scores,zeroed,query,values"})
                .code == 0);
    REQUIRE(files_in(dir).count("s/mha-masked-scores.svg") == 1);
    REQUIRE(files_in(dir).count("s/mha-query.svg") == 1);
    write_own_files(dir + "/s", "mha", ".svg");
    write(dir + "/s/mha-zeroed.png", "a PNG in the SVG folder: not this folder's name");
    std::set<std::string> own = own_files("s", "mha", ".svg");
    own.insert("s/mha-zeroed.png");
    REQUIRE(run_in(dir, {"show", "--kind", "mha", "--heads", "2", "a b c", "--svg", "s"}).code == 0);
    CHECK(files_in(dir) == fresh_run({"show", "--kind", "mha", "--heads", "2", "a b c", "--svg", "s"}, own));
}

TEST_CASE("output folders: --prefix names the position figures too, and a run cleans only its own prefix") {
    const std::string dir = temp_dir();
    REQUIRE(run_in(dir, {"show", "--kind", "causal", "a b c", "--png", "o"}).code == 0);  // the kind's set
    REQUIRE(run_in(dir, {"show", "--kind", "causal", "a b c", "--png", "o", "--prefix", "lec", "--pos", "alibi",
                         "--figures", "weights,masked-scores"})
                .code == 0);
    const auto first = files_in(dir);
    CHECK(first.count("o/lec-alibi.png") == 1);
    CHECK(first.count("o/causal-alibi.png") == 0);
    CHECK(first.count("o/lec-masked-scores.png") == 1);
    CHECK(first.count("o/causal-scores.png") == 1);  // another prefix's: untouched
    REQUIRE(run_in(dir, {"show", "--kind", "causal", "a b c", "--png", "o", "--prefix", "lec"}).code == 0);
    const auto after = files_in(dir);
    CHECK(after.count("o/lec-alibi.png") == 0);
    CHECK(after.count("o/lec-masked-scores.png") == 0);
    CHECK(after.count("o/lec-weights.png") == 1);
    CHECK(after.count("o/causal-scores.png") == 1);
    // a JSON trace on a name of the prefix is refused before the run, even one this run would not
    // write: the run would remove it as an earlier run's figure
    for (const char* json : {"o/lec-rope.png", "o/lec-alibi.png", "o/lec-query.png"}) {
        const RunResult r = run_in(dir, {"show", "a b", "--pos", "rope", "--prefix", "lec", "--png", "o", "--json", json});
        CHECK(r.code == 2);
        CHECK(r.err.find(std::string("two outputs would both be written to '") + json + "'") != std::string::npos);
    }
    CHECK(files_in(dir) == after);
}

TEST_CASE("output folders: attn decode refuses clashes and leaves its folder holding its own set") {
    const std::string dir = temp_dir();
    for (const char* json : {"o/causal-decode-steps.png", "o/causal-weights.png"}) {  // one it writes, one it would remove
        const RunResult clash = run_in(dir, {"decode", "a b c", "--kind", "causal", "--png", "o", "--json", json});
        CHECK(clash.code == 2);
        CHECK(clash.err.find(std::string("two outputs would both be written to '") + json + "'") != std::string::npos);
    }
    CHECK(files_in(dir).empty());
    write(dir + "/words.txt", "a b c");
    const RunResult over = run_in(dir, {"decode", "--file", "words.txt", "--kind", "causal", "--json", "words.txt"});
    CHECK(over.code == 2);
    CHECK(over.err.find("--json 'words.txt' is the same file as --file 'words.txt'") != std::string::npos);
    // show and decode of one kind share a folder: each removes only its own command's earlier files
    REQUIRE(run_in(dir, {"show", "--kind", "causal", "a b c", "--png", "o", "--pos", "rope"}).code == 0);
    write_own_files(dir + "/o", "causal", ".png");
    write(dir + "/o/causal-decode-cache.png", "an earlier decode's figure (decode writes it again)");
    REQUIRE(run_in(dir, {"decode", "a b c", "--kind", "causal", "--png", "o"}).code == 0);
    const std::set<std::string> show_files =
        fresh_run({"show", "--kind", "causal", "a b c", "--png", "o", "--pos", "rope"});
    const std::set<std::string> decode_files = fresh_run({"decode", "a b c", "--kind", "causal", "--png", "o"});
    std::set<std::string> want = own_files("o", "causal", ".png");
    want.insert(show_files.begin(), show_files.end());
    want.insert(decode_files.begin(), decode_files.end());
    want.insert("words.txt");
    CHECK(files_in(dir) == want);
    CHECK(want.count("o/causal-decode-steps.png") == 1);
    CHECK(want.count("o/causal-rope.png") == 1);
    // a show run without --pos removes its own earlier rope figure, and leaves decode's
    REQUIRE(run_in(dir, {"show", "--kind", "causal", "a b c", "--png", "o"}).code == 0);
    want.erase("o/causal-rope.png");
    CHECK(files_in(dir) == want);
}

TEST_CASE("output folders: show --model keeps another head's figures for slides, and removes arrays of layers the model does not have") {
    const std::string dir = temp_dir(), model = model_fixtures_dir() + "/model-ok";
    // the model's figures start with its type (gpt2), its arrays with "model": clashes are found under those names
    for (const char* json : {"o/gpt2-overview.png", "o/gpt2-l0-h1-scores.png"}) {  // one it writes, one it would remove
        const RunResult clash = run_in(dir, {"show", "--model", model, "a b", "--png", "o", "--json", json});
        CHECK(clash.code == 2);
        CHECK(clash.err.find(std::string("two outputs would both be written to '") + json + "'") != std::string::npos);
    }
    const RunResult npy_clash = run_in(dir, {"show", "--model", model, "a b", "--npy", "n", "--json", "n/model-l0-mean.npy"});
    CHECK(npy_clash.code == 2);
    CHECK(files_in(dir).empty());
    REQUIRE(run_in(dir, {"show", "--model", model, "a b", "--head", "1", "--png", "o", "--npy", "n"}).code == 0);
    REQUIRE(files_in(dir).count("o/gpt2-l0-h1-weights.png") == 1);
    // an earlier run of a larger model: layer 3, head 7
    for (const char* name : {"n/model-l3-h7-weights.npy", "n/model-l3-mean.npy", "n/model-l3-rollout.npy"})
        write(dir + "/" + name, "an earlier run's");
    write(dir + "/o/gpt2-l3-h7-scores.png", "an earlier run's");
    write_own_files(dir + "/o", "gpt2", ".png");
    write(dir + "/n/model-notes.npy", "mine");
    std::set<std::string> own = own_files("o", "gpt2", ".png");
    own.insert("n/model-notes.npy");
    // the figures of head 1 and of the larger model's layer 3 head 7 stay beside head 0's
    for (const std::string& f : files_in(dir))
        if (f.rfind("o/gpt2-l", 0) == 0) own.insert(f);
    REQUIRE(own.count("o/gpt2-l3-h7-scores.png") == 1);
    REQUIRE(own.count("o/gpt2-l0-h1-weights.png") == 1);
    const std::vector<std::string> again = {"show", "--model", model, "a b", "--head", "0", "--png", "o", "--npy", "n"};
    REQUIRE(run_in(dir, again).code == 0);
    CHECK(files_in(dir) == fresh_run(again, own));
}

TEST_CASE("output folders: attn render removes only its own earlier figures of the heads it draws, and refuses outputs over its input") {
    const std::string dir = temp_dir();
    REQUIRE(run_in(dir, {"show", "--kind", "mha", "--heads", "2", "a b c", "--json", "t.json", "--png", "o", "--pos", "rope"}).code == 0);
    write_own_files(dir + "/o", "mha", ".png");
    // head 0, then head 1: a run removes only files it would write itself, so head 0's figures stay
    // (slides collect heads), and the show run's figures stay beside render's
    REQUIRE(run_in(dir, {"render", "t.json", "--png", "o", "--head", "0"}).code == 0);
    REQUIRE(run_in(dir, {"render", "t.json", "--png", "o", "--head", "1"}).code == 0);
    std::set<std::string> want;
    {
        const std::string fresh = temp_dir();
        REQUIRE(run_in(fresh, {"show", "--kind", "mha", "--heads", "2", "a b c", "--json", "t.json", "--png", "o", "--pos",
                               "rope"}).code == 0);
        REQUIRE(run_in(fresh, {"render", "t.json", "--png", "o", "--head", "0"}).code == 0);
        REQUIRE(run_in(fresh, {"render", "t.json", "--png", "o", "--head", "1"}).code == 0);
        want = files_in(fresh);
    }
    const auto own = own_files("o", "mha", ".png");
    want.insert(own.begin(), own.end());
    CHECK(files_in(dir) == want);
    CHECK(want.count("o/mha-h1-weights.png") == 1);
    CHECK(want.count("o/mha-h0-weights.png") == 1);
    CHECK(want.count("o/mha-rope.png") == 1);
    // clashes, refused before anything is written
    const RunResult same = run_in(dir, {"render", "t.json", "--html", "t.json"});
    CHECK(same.code == 2);
    CHECK(same.err.find("--html 't.json' is the same file as input 't.json'") != std::string::npos);
    const RunResult into = run_in(dir, {"render", "t.json", "--png", "o", "--head", "0", "--html", "o/mha-h0-mask.png"});
    CHECK(into.code == 2);
    CHECK(files_in(dir) == want);
}

TEST_CASE("output folders: every figure and array name attn writes is one of its names for the prefix used") {
    const std::string dir = temp_dir(), model = model_fixtures_dir() + "/model-ok";
    const std::string all = "scores,masked-scores,mask,weights,zeroed,dropped-weights,tiles,queries,keys,values,context,output,query";
    struct Run {
        std::vector<std::string> args;
        std::string folder, prefix;
        render::FileType type;
    };
    const std::vector<Run> runs = {
        {{"show", "a b c", "--kind", "flash", "--heads", "2", "--query", "1", "--figures", all, "--png", "p1"}, "p1", "flash",
         render::FileType::png},
        {{"show", "a b c", "--kind", "flash", "--heads", "2", "--query", "1", "--figures", all, "--svg", "s1", "--prefix", "f"},
         "s1", "f", render::FileType::svg},
        {{"show", "a b c", "--kind", "mha", "--heads", "2", "--dropout", "0.5", "--pos", "sinusoidal", "--query", "0", "--figures",
          all, "--png", "p2"},
         "p2", "mha", render::FileType::png},
        {{"show", "a b c", "--kind", "mha", "--heads", "2", "--pos", "rope", "--png", "p3", "--prefix", "r"}, "p3", "r",
         render::FileType::png},
        {{"show", "a b c", "--kind", "mha", "--heads", "2", "--pos", "alibi", "--png", "p4"}, "p4", "mha", render::FileType::png},
        {{"show", "a b c", "--kind", "mha", "--heads", "2", "--pos", "rope", "--npy", "n1", "--qkv-bias"}, "n1", "mha",
         render::FileType::npy},
        {{"decode", "a b c", "--kind", "gqa", "--png", "p5"}, "p5", "gqa", render::FileType::png},
        {{"show", "--model", model, "a b", "--head", "1", "--png", "p6", "--npy", "n2"}, "p6", render::kModelFigurePrefix,
         render::FileType::png},
        {{"show", "--model", model, "a b", "--npy", "n2"}, "n2", render::kModelArrayPrefix, render::FileType::npy},
        {{"show", "--model", model, "a b", "--json", "m.json"}, "", "", render::FileType::png},
        {{"render", "m.json", "--png", "p7", "--head", "1"}, "p7", render::kModelFigurePrefix, render::FileType::png},
        {{"render", "m.json", "--png", "p8", "--show", "heads,mean,rollout"}, "p8", render::kModelFigurePrefix, render::FileType::png},
    };
    for (const Run& r : runs) {
        INFO(r.args[0] << " ... " << r.folder);
        REQUIRE(run_in(dir, r.args).code == 0);
        if (r.folder.empty()) continue;
        std::vector<std::string> names;
        fuzz::list_tree(dir + "/" + r.folder, "", names);
        CHECK(names.size() >= 2);
        for (const std::string& name : names) {
            INFO(name);
            CHECK(render::is_attn_file_name(r.type, r.prefix, name));
        }
    }
    // the figures each run was asked for are there
    const auto files = files_in(dir);
    for (const char* f : {"p1/flash-query.png", "p1/flash-tiles.png", "p2/mha-dropped-weights.png", "p1/flash-zeroed.png",
                          "s1/f-masked-scores.svg", "s1/f-output.svg", "p2/mha-positions.png", "p3/r-rope.png",
                          "p4/mha-alibi.png", "p5/gqa-decode-steps.png", "p5/gqa-decode-cache.png", "p6/gpt2-overview.png",
                          "p6/gpt2-l0-h1-weights.png", "n2/model-l0-h1-mask.npy", "n2/model-token_ids.npy",
                          "p7/gpt2-l0-h1-weights.png", "p8/gpt2-l0-weights.png", "p8/gpt2-l0-mean.png", "p8/gpt2-l0-rollout.png", "n1/mha-b_query.npy"})
        CHECK(files.count(f) == 1);
}

TEST_CASE("output folders: attn's names for a prefix, and names that only look like them") {
    using render::FileType;
    const auto png = [](const std::string& p, const std::string& n) { return render::is_attn_file_name(FileType::png, p, n); };
    const auto npy = [](const std::string& p, const std::string& n) { return render::is_attn_file_name(FileType::npy, p, n); };
    for (const char* n : {"causal-masked-scores.png", "causal-zeroed.png", "causal-query.png", "causal-queries.png",
                          "causal-output.png", "causal-positions.png", "causal-rope.png", "causal-alibi.png",
                          "causal-decode-steps.png", "causal-decode-cache.png", "causal-overview.png", "causal-l11-h0-weights.png",
                          "causal-l3-scores.png", "causal-h10-mask.png", "causal-l0-h1-tiles.png", "causal-l2-mean.png",
                          "causal-l0-rollout.png", "causal-heads-previous.png", "causal-heads-sink.png"})
        CHECK_MESSAGE(png("causal", n), n);
    for (const char* n : {"notes.png", "causal-scores-old.png", "causal-scores.png.bak", "causal-query-0.png", "causal-Weights.png",
                          "causal-l01-h0-weights.png", "causal-layer1-weights.png", "causal-l-scores.png", "causal-l1-.png",
                          "causal-h1-l0-scores.png", "causal-l1-h1-overview.png", "causal-weights.svg", "causal-.png",
                          "causal-head0-weights.png", "other-weights.png", "causalx-weights.png", "causal-l1-h0-mean.png",
                          "causal-mean.png", "causal-heads-kind.png", "causal-heads-.png"})
        CHECK_MESSAGE(!png("causal", n), n);
    CHECK(!png("mha", "mha-wrapper-weights.png"));
    CHECK(png("mha-wrapper", "mha-wrapper-weights.png"));
    CHECK(render::is_attn_file_name(FileType::svg, "lec", "lec-masked-scores.svg"));
    CHECK(!render::is_attn_file_name(FileType::svg, "lec", "lec-masked-scores.png"));
    for (const char* n : {"model-token_ids.npy", "model-l0-h11-scores.npy", "model-l23-mean.npy", "model-l0-rollout.npy"})
        CHECK_MESSAGE(npy("model", n), n);
    for (const char* n : {"model-l0-h1-context.npy", "model-l0-h1.npy", "model-l0-notes.npy", "model-lx-mean.npy", "model-token.npy"})
        CHECK_MESSAGE(!npy("model", n), n);
    // each command's own set: decode's two figures, render's layer and head names, show's the rest
    using render::FileSet;
    const auto in = [](FileSet set, const std::string& n) { return render::is_attn_file_name(FileType::png, "causal", n, set); };
    CHECK(in(FileSet::decode, "causal-decode-steps.png"));
    CHECK(!in(FileSet::decode, "causal-weights.png"));
    CHECK(!in(FileSet::show, "causal-decode-cache.png"));
    CHECK(!in(FileSet::render, "causal-decode-cache.png"));
    CHECK(in(FileSet::show, "causal-rope.png"));
    CHECK(in(FileSet::show, "causal-l1-h0-weights.png"));
    CHECK(!in(FileSet::show, "causal-l0-weights.png"));  // render's layer grid
    CHECK(!in(FileSet::show, "causal-l0-mean.png"));     // a layer's mean: removed by no run
    CHECK(!in(FileSet::render, "causal-l0-mean.png"));
    CHECK(!in(FileSet::show, "causal-heads-first.png"));
    CHECK(in(FileSet::heads, "causal-heads-first.png"));
    CHECK(!in(FileSet::heads, "causal-weights.png"));
    CHECK(!in(FileSet::heads, "causal-l0-h0-weights.png"));  // attn heads --top writes show's names, never removes them
    CHECK(in(FileSet::render, "causal-weights.png"));  // asked with each layer or head prefix it drew
    CHECK(!in(FileSet::render, "causal-rope.png"));
    CHECK(in(FileSet::show, "causal-weights.png"));
    CHECK(!render::is_attn_file_name(FileType::npy, "causal", "causal-x.npy", FileSet::decode));
    // the policy asks the same question
    CHECK(policy::is_output_name(policy::Folder::png, "causal", "causal-masked-scores.png"));
    CHECK(policy::is_output_name(policy::Folder::svg, "causal", "causal-query.svg"));
    CHECK(!policy::is_output_name(policy::Folder::png, "causal", "causal-scores-old.png"));
}
