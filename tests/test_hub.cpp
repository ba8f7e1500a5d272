// The Hugging Face cache read as huggingface_hub lays it out (data/hub/hub_cache.h), the names the hub
// client checks before they touch a path (data/hub/hub_names.h), the hashes blobs are named by, and
// --model NAME from a cache written by hand. Downloads are tested against a fake hub (tests/hub/).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "data/base/error.h"
#include "data/hub/hub_cache.h"
#include "data/hub/hub_hash.h"
#include "data/hub/hub_names.h"
#include "tests/helpers.h"

using namespace attn;
using namespace attn::hub;
using namespace attn::test;

namespace {

// Sets (or, with nullopt, unsets) environment variables for a scope, restoring them after.
class EnvScope {
public:
    EnvScope(std::initializer_list<std::pair<const char*, std::optional<std::string>>> vars) {
        for (const char* name : {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME", "HOME", "HF_ENDPOINT", "HF_TOKEN",
                                 "HUGGING_FACE_HUB_TOKEN", "HF_TOKEN_PATH", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HUB_DISABLE_IMPLICIT_TOKEN"}) {
            const char* v = std::getenv(name);
            saved_[name] = v ? std::optional<std::string>(v) : std::nullopt;
            if (std::string(name) != "HOME") ::unsetenv(name);
        }
        for (const auto& [name, value] : vars) {
            if (value) ::setenv(name, value->c_str(), 1);
            else ::unsetenv(name);
        }
    }
    ~EnvScope() {
        for (const auto& [name, value] : saved_) {
            if (value) ::setenv(name.c_str(), value->c_str(), 1);
            else ::unsetenv(name.c_str());
        }
    }

private:
    std::map<std::string, std::optional<std::string>> saved_;
};

void put_file(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

void mkdirs(const std::string& path) {
    for (std::size_t at = 1; at <= path.size(); ++at)
        if (at == path.size() || path[at] == '/') ::mkdir(path.substr(0, at).c_str(), 0777);
}

const std::string kCommit = "0123456789abcdef0123456789abcdef01234567";

// A snapshot of repo in cache holding `files` (name -> bytes), as symlinks into blobs/ or plain files.
std::string make_snapshot(const std::string& cache, const std::string& repo, const std::map<std::string, std::string>& files, bool links = true,
                          const std::string& ref_text = kCommit) {
    const std::string base = cache + "/" + repo_folder_name(repo), snap = base + "/snapshots/" + kCommit;
    mkdirs(snap);
    mkdirs(base + "/refs");
    mkdirs(base + "/blobs");
    put_file(base + "/refs/main", ref_text);
    int i = 0;
    for (const auto& [name, bytes] : files) {
        if (!links) {
            put_file(snap + "/" + name, bytes);
            continue;
        }
        const std::string blob = std::string(40, 'a' + static_cast<char>(i++));
        put_file(base + "/blobs/" + blob, bytes);
        CHECK(::symlink(("../../blobs/" + blob).c_str(), (snap + "/" + name).c_str()) == 0);
    }
    return snap;
}

}  // namespace

TEST_CASE("hub names: repo ids as the hub allows them, with an optional @revision") {
    for (const char* ok : {"gpt2", "openai-community/gpt2", "HuggingFaceTB/SmolLM2-135M", "org/name@main", "a_b.c/x-y@refs/pr/1", "gpt2@v1.0"})
        CHECK_MESSAGE(looks_like_repo_id(ok), ok);
    for (const char* bad : {"", "gpt2/", "./gpt2", "/abs/gpt2", "a/b/c", "a--b/c", "a/b..c", "org/name.git", "-x", "x-", ".hidden", "org/",
                            "o rg/name", "org\\name", "../x"})
        CHECK_MESSAGE(!looks_like_repo_id(bad), bad);
    const RepoRef r = parse_repo_ref("org/name@refs/pr/1");
    CHECK(r.repo == "org/name");
    CHECK(r.revision == "refs/pr/1");
    CHECK(parse_repo_ref("gpt2").revision == "main");
    CHECK(parse_repo_ref("gpt2").text() == "gpt2");
    for (const char* bad_rev : {"gpt2@", "gpt2@../x", "gpt2@a//b", "gpt2@/x", "gpt2@x y", "gpt2@a\\b"}) {
        INFO(bad_rev);
        CHECK_THROWS_WITH_AS(parse_repo_ref(bad_rev), doctest::Contains("not a revision"), Error);
    }
    CHECK_THROWS_WITH_AS(parse_repo_ref("a/b/c"), doctest::Contains("neither a folder nor a Hugging Face repo id"), Error);
}

TEST_CASE("hub names: the cache folder, commits, etags and repo paths are checked before they touch a path") {
    CHECK(repo_folder_name("gpt2") == "models--gpt2");
    CHECK(repo_folder_name("HuggingFaceTB/SmolLM2-135M") == "models--HuggingFaceTB--SmolLM2-135M");
    CHECK(is_commit(kCommit));
    CHECK_FALSE(is_commit(kCommit.substr(1)));
    CHECK_FALSE(is_commit("0123456789ABCDEF0123456789abcdef01234567"));
    CHECK_FALSE(is_commit("../../../../../../../../../../../../../x"));
    CHECK(is_etag(std::string(40, 'f')));
    CHECK(is_etag(std::string(64, '0')));
    CHECK_FALSE(is_etag(std::string(63, '0')));
    CHECK_FALSE(is_etag("../../evil"));
    for (const char* ok : {"model.safetensors", "sub/model-00001-of-00002.safetensors", "a.b/c"}) CHECK_MESSAGE(is_safe_repo_path(ok), ok);
    for (const char* bad : {"", "/etc/passwd", "../x.safetensors", "a/../b", "./a", "a//b", "a/", "C:x", "a\\b", "a\x01"})
        CHECK_MESSAGE(!is_safe_repo_path(bad), bad);
    CHECK_FALSE(is_safe_repo_path(std::string("a\0b", 3)));
}

TEST_CASE("hub cache: the folder from HF_HUB_CACHE, HUGGINGFACE_HUB_CACHE, HF_HOME, XDG_CACHE_HOME, then ~/.cache, as huggingface_hub reads them") {
    {
        EnvScope e({{"HOME", "/home/u"}});
        CHECK(hub_environment().cache == "/home/u/.cache/huggingface/hub");
        CHECK(hub_environment().endpoint == "https://huggingface.co");
    }
    {
        EnvScope e({{"HOME", "/home/u"}, {"XDG_CACHE_HOME", "/xdg"}});
        CHECK(hub_environment().cache == "/xdg/huggingface/hub");
    }
    {
        EnvScope e({{"HOME", "/home/u"}, {"XDG_CACHE_HOME", "/xdg"}, {"HF_HOME", "~/hf"}});
        CHECK(hub_environment().cache == "/home/u/hf/hub");
    }
    {
        EnvScope e({{"HOME", "/home/u"}, {"HF_HOME", "/hf"}, {"HUGGINGFACE_HUB_CACHE", "/legacy"}});
        CHECK(hub_environment().cache == "/legacy");
    }
    {
        EnvScope e({{"HOME", "/home/u"}, {"HF_HOME", "/hf"}, {"HUGGINGFACE_HUB_CACHE", "/legacy"}, {"HF_HUB_CACHE", "$HOME/c/${HOME}/$NOPE_UNSET"},
                    {"HF_ENDPOINT", "http://127.0.0.1:9/"}});
        CHECK(hub_environment().cache == "/home/u/c//home/u/$NOPE_UNSET");
        CHECK(hub_environment().endpoint == "http://127.0.0.1:9");
    }
}

TEST_CASE("hub cache: the token from HF_TOKEN, HUGGING_FACE_HUB_TOKEN, then the token file, cleaned, and offline as huggingface_hub reads it") {
    const std::string dir = temp_dir();
    put_file(dir + "/token", "  hf_fromfile\r\n");
    put_file(dir + "/other", "hf_other\n");
    {
        EnvScope e({{"HF_HOME", dir}});
        CHECK(hub_environment().token == std::optional<std::string>("hf_fromfile"));
        CHECK_FALSE(hub_environment().offline);
    }
    {
        EnvScope e({{"HF_HOME", dir}, {"HF_TOKEN_PATH", dir + "/other"}});
        CHECK(hub_environment().token == std::optional<std::string>("hf_other"));
    }
    {
        EnvScope e({{"HF_HOME", dir}, {"HUGGING_FACE_HUB_TOKEN", "hf_legacy"}});
        CHECK(hub_environment().token == std::optional<std::string>("hf_legacy"));
    }
    {
        EnvScope e({{"HF_HOME", dir}, {"HUGGING_FACE_HUB_TOKEN", "hf_legacy"}, {"HF_TOKEN", " hf_a\nb "}});
        CHECK(hub_environment().token == std::optional<std::string>("hf_ab"));
    }
    {
        EnvScope e({{"HF_HOME", dir}, {"HF_TOKEN", "hf_x"}, {"HF_HUB_DISABLE_IMPLICIT_TOKEN", "1"}});
        CHECK_FALSE(hub_environment().token.has_value());
    }
    {
        EnvScope e({{"HF_HOME", dir + "/none"}, {"HF_TOKEN", " \r\n"}});
        CHECK_FALSE(hub_environment().token.has_value());
    }
    for (const char* yes : {"1", "ON", "yes", "True"}) {
        EnvScope e({{"HF_HUB_OFFLINE", std::string(yes)}});
        CHECK_MESSAGE(hub_environment().offline, yes);
    }
    {
        EnvScope e({{"TRANSFORMERS_OFFLINE", "TRUE"}});
        CHECK(hub_environment().offline);
    }
    {
        EnvScope e({{"TRANSFORMERS_OFFLINE", "1"}, {"HF_HUB_OFFLINE", "0"}});  // a set HF_HUB_OFFLINE masks the other
        CHECK_FALSE(hub_environment().offline);
    }
}

TEST_CASE("hub cache: refs/main names the snapshot (white space ignored), a commit revision is the snapshot itself, a bad ref is refused by name") {
    const std::string cache = temp_dir();
    const std::string snap = make_snapshot(cache, "org/tiny", {{"config.json", "{}"}}, true, kCommit + "\n");
    auto s = find_snapshot(cache, parse_repo_ref("org/tiny"));
    REQUIRE(s.has_value());
    CHECK(s->commit == kCommit);
    CHECK(s->path == snap);
    CHECK(find_snapshot(cache, parse_repo_ref("org/tiny@" + kCommit))->path == snap);
    CHECK_FALSE(find_snapshot(cache, parse_repo_ref("org/tiny@dev")).has_value());
    CHECK_FALSE(find_snapshot(cache, parse_repo_ref("org/other")).has_value());
    CHECK_FALSE(find_snapshot(cache, parse_repo_ref("org/tiny@" + std::string(40, 'e'))).has_value());
    mkdirs(cache + "/models--org--tiny/refs/refs/pr");
    put_file(cache + "/models--org--tiny/refs/refs/pr/1", kCommit);
    CHECK(find_snapshot(cache, parse_repo_ref("org/tiny@refs/pr/1"))->path == snap);
    put_file(cache + "/models--org--tiny/refs/main", "../../../etc");
    CHECK_THROWS_WITH_AS(find_snapshot(cache, parse_repo_ref("org/tiny")), doctest::Contains("not a commit"), Error);
}

TEST_CASE("hub cache: a snapshot lacks config.json, the weights, a shard its index names, or a tokenizer, and says which") {
    const std::string cache = temp_dir();
    const std::string full = make_snapshot(cache, "a/full", {{"config.json", "{}"}, {"model.safetensors", "x"}, {"tokenizer.json", "{}"}});
    CHECK(missing_model_files(full).empty());
    const std::string plain = make_snapshot(cache, "a/plain", {{"config.json", "{}"}, {"model.safetensors", "x"}, {"vocab.txt", "a"}}, false);
    CHECK(missing_model_files(plain).empty());
    const std::string bare = make_snapshot(cache, "a/bare", {{"merges.txt", ""}});
    CHECK(missing_model_files(bare) == std::vector<std::string>{"config.json", "model.safetensors", "tokenizer.json"});
    const std::string index = R"({"weight_map": {"a": "model-1.safetensors", "b": "model-2.safetensors"}})";
    const std::string sharded = make_snapshot(cache, "a/sharded", {{"config.json", "{}"}, {"model.safetensors.index.json", index},
                                                                   {"model-1.safetensors", "x"}, {"vocab.json", "{}"}});
    CHECK(missing_model_files(sharded) == std::vector<std::string>{"model-2.safetensors"});
    // a symlink whose blob is gone is a missing file
    const std::string broken = make_snapshot(cache, "a/broken", {{"config.json", "{}"}, {"model.safetensors", "x"}, {"tokenizer.json", "{}"}});
    REQUIRE(::unlink((cache + "/models--a--broken/blobs/" + std::string(40, 'b')).c_str()) == 0);
    CHECK(missing_model_files(broken) == std::vector<std::string>{"model.safetensors (a link to a missing blob)"});
}

TEST_CASE("hub cache: a dangling link is named as the file it is, pytorch_model.bin or vocab.json, not as a file the folder never had, and a link loop is named a loop") {
    const std::string cache = temp_dir();
    // blobs by name order: config.json a…, merges.txt b…, pytorch_model.bin c…, vocab.json d…
    const std::string snap = make_snapshot(cache, "org/bin", {{"config.json", "{}"}, {"merges.txt", ""}, {"pytorch_model.bin", "x"}, {"vocab.json", "{}"}});
    CHECK(missing_model_files(snap).empty());
    REQUIRE(::unlink((cache + "/models--org--bin/blobs/" + std::string(40, 'c')).c_str()) == 0);
    REQUIRE(::unlink((cache + "/models--org--bin/blobs/" + std::string(40, 'd')).c_str()) == 0);
    CHECK(missing_model_files(snap) ==
          std::vector<std::string>{"pytorch_model.bin (a link to a missing blob)", "vocab.json (a link to a missing blob)"});
    REQUIRE(::unlink((snap + "/config.json").c_str()) == 0);
    REQUIRE(::symlink("config.json", (snap + "/config.json").c_str()) == 0);
    CHECK(missing_model_files(snap).front() == "config.json (a link loop)");
}

TEST_CASE("hub cache: a ref that is a folder, a link to nothing or too long is refused by name, and a ref linking outside the cache is not quoted") {
    const std::string cache = temp_dir();
    make_snapshot(cache, "org/tiny", {{"config.json", "{}"}});
    const std::string ref = cache + "/models--org--tiny/refs/main";
    const std::string hint = "delete it and pull again: attn pull org/tiny";
    auto error_of = [&] {
        try {
            find_snapshot(cache, parse_repo_ref("org/tiny"));
        } catch (const Error& e) {
            return std::string(e.what()) + " (hint: " + e.hint() + ")";
        }
        return std::string("found");
    };
    REQUIRE(::unlink(ref.c_str()) == 0);
    mkdirs(ref);
    CHECK(error_of() == "the cache's " + ref + " is a folder, not a file holding a commit (hint: " + hint + ")");
    REQUIRE(::rmdir(ref.c_str()) == 0);
    put_file(ref, std::string(5000, 'a'));
    CHECK(error_of() == "the cache's " + ref + " holds 5000 bytes, far more than a commit (hint: " + hint + ")");
    REQUIRE(::unlink(ref.c_str()) == 0);
    REQUIRE(::symlink((cache + "/nothing").c_str(), ref.c_str()) == 0);
    CHECK(error_of() == "the cache's " + ref + " is a link to nothing, not a file holding a commit (hint: " + hint + ")");
    put_file(cache + "/secret", "password=hunter2");
    REQUIRE(::unlink(ref.c_str()) == 0);
    REQUIRE(::symlink((cache + "/secret").c_str(), ref.c_str()) == 0);
    CHECK(error_of() == "the cache's " + ref + " (a link) does not hold a commit (hint: delete that file and pull again: attn pull org/tiny)");
}

TEST_CASE("hub cache: every cached snapshot is listed by repo and revision, and a snapshot folder names its repo") {
    const std::string cache = temp_dir();
    make_snapshot(cache, "gpt2", {{"config.json", "{}"}});
    make_snapshot(cache, "org/name", {{"config.json", "{}"}});
    mkdirs(cache + "/models--bad..name/snapshots/" + kCommit);
    mkdirs(cache + "/datasets--x--y/snapshots/" + kCommit);
    const auto all = cached_snapshots(cache);
    REQUIRE(all.size() == 2);
    CHECK(all[0].repo == "gpt2");
    CHECK(all[0].revision == "main");
    CHECK(all[1].repo == "org/name");
    CHECK(all[1].commit == kCommit);
    CHECK(repo_of_snapshot_path(all[1].path) == std::optional<std::string>("org/name"));
    CHECK(repo_of_snapshot_path(all[0].path + "/") == std::optional<std::string>("gpt2"));
    CHECK_FALSE(repo_of_snapshot_path("/x/gpt2").has_value());
    CHECK_FALSE(repo_of_snapshot_path("/x/models--a/snapshots/" + kCommit + "x").has_value());
}

TEST_CASE("hub hashes: sha256 for 64-hex etags, git's blob SHA-1 for 40-hex etags (git hash-object's values)") {
    const std::string dir = temp_dir();
    put_file(dir + "/hello", "hello");
    put_file(dir + "/hello_nl", "hello\n");
    CHECK(etag_of_file(dir + "/hello", 64) == std::optional<std::string>("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"));
    CHECK(etag_of_file(dir + "/hello_nl", 40) == std::optional<std::string>("ce013625030ba8dba906f756967f9e9ca394464a"));
    CHECK_FALSE(etag_of_file(dir + "/absent", 64).has_value());
}

TEST_CASE("--model NAME: a cached snapshot runs offline and says which one, an existing folder wins, an uncached name offline says to pull") {
    const std::string dir = temp_dir(), cache = dir + "/cache";
    // a real GPT-2 folder (the test fixtures' maker) copied into the cache as plain files
    const std::string src = dir + "/src";
    REQUIRE(std::system(("/usr/bin/python3 " ATTN_SOURCE_DIR "/tests/gpt2/make_checkpoint.py " + src + " > /dev/null").c_str()) == 0);
    std::map<std::string, std::string> files;
    for (const char* f : {"config.json", "model.safetensors", "vocab.json", "merges.txt"}) files[f] = slurp(src + "/" + f);
    const std::string snap = make_snapshot(cache, "org/tiny", files);
    EnvScope e({{"HF_HUB_CACHE", cache}, {"HF_HUB_OFFLINE", "1"}, {"HF_ENDPOINT", "http://127.0.0.1:9"}});
    const RunResult r = run_in(dir, {"show", "--model", "org/tiny", "Hello world"});
    CHECK(r.code == 0);
    CHECK(r.err.find("org/tiny from the Hugging Face cache: " + snap) != std::string::npos);
    CHECK(r.out.find("org/tiny (gpt2) · F32 · 2 layers") != std::string::npos);  // named by its repo id
    // the same model from the folder itself gives the same numbers, named by the folder
    const RunResult direct = run_in(dir, {"show", "--model", src, "Hello world"});
    std::string renamed = r.out;
    for (auto at = renamed.find("org/tiny"); at != std::string::npos; at = renamed.find("org/tiny", at)) renamed.replace(at, 8, "src");
    CHECK(direct.out.find("src (gpt2) · F32 · 2 layers") != std::string::npos);
    CHECK(direct.out == renamed);
    const RunResult by_commit = run_in(dir, {"heads", "--model", "org/tiny@" + kCommit, "Hello world"});
    CHECK(by_commit.code == 0);
    CHECK(by_commit.out.find("org/tiny") != std::string::npos);
    const RunResult missing = run_in(dir, {"show", "--model", "org/absent", "hi"});
    CHECK(missing.code == 1);
    CHECK(one_line(missing).find("neither a folder nor a model in the Hugging Face cache") != std::string::npos);
    CHECK(missing.err.find("attn pull org/absent") != std::string::npos);
    // a folder named like a repo id wins over the cache
    mkdirs(dir + "/org/tiny");
    const RunResult folder = run_in(dir, {"show", "--model", "org/tiny", "hi"});
    CHECK(folder.code == 1);
    CHECK(folder.err.find("no config.json in 'org/tiny'") != std::string::npos);
    // pull refuses to run offline; --offline is for --model only
    const RunResult pull = run_in(dir, {"pull", "org/tiny"});
    CHECK(pull.code == 2);
    CHECK(one_line(pull).find("needs the network") != std::string::npos);
    CHECK(run_in(dir, {"show", "--offline", "--kind", "causal", "hi"}).code == 2);
    const RunResult listed = run_in(dir, {"models", "--cached", "--json"});
    REQUIRE(listed.code == 0);
    const auto j = nlohmann::json::parse(listed.out);
    REQUIRE(j.size() == 1);
    CHECK(j[0]["repo"] == "org/tiny");
    CHECK(j[0]["family"] == "gpt2");
    CHECK(j[0]["path"] == snap);
    CHECK(j[0]["runnable"] == true);
}

TEST_CASE("--model NAME and attn models --cached print a cache path's control characters escaped, never raw") {
    const std::string dir = temp_dir(), cache = dir + "/ca\x1b]0;pwned\x07" "che\n";
    const std::string shown = dir + "/ca\\x1b]0;pwned\\x07che\\x0a";  // as excerpt writes them
    const std::string src = dir + "/src";
    REQUIRE(std::system(("/usr/bin/python3 " ATTN_SOURCE_DIR "/tests/gpt2/make_checkpoint.py " + src + " > /dev/null").c_str()) == 0);
    std::map<std::string, std::string> files;
    for (const char* f : {"config.json", "model.safetensors", "vocab.json", "merges.txt"}) files[f] = slurp(src + "/" + f);
    const std::string snap = make_snapshot(cache, "org/tiny", files);
    const std::string snap_shown = shown + snap.substr(cache.size());
    EnvScope e({{"HF_HUB_CACHE", cache}, {"HF_HUB_OFFLINE", "1"}, {"HF_ENDPOINT", "http://127.0.0.1:9"}});
    const RunResult r = run_in(dir, {"show", "--model", "org/tiny", "Hello world"});
    CHECK(r.code == 0);
    CHECK(r.err == "attn: org/tiny from the Hugging Face cache: " + snap_shown + "\n");
    const RunResult listed = run_in(dir, {"models", "--cached"});
    CHECK(listed.code == 0);
    CHECK(listed.out.find(snap_shown + "\n") != std::string::npos);
    CHECK(listed.out.find("Models in the Hugging Face cache " + shown + " that attn runs") != std::string::npos);
    for (const RunResult* run : {&r, &listed})
        for (char ch : run->out + run->err) CHECK((ch == '\n' || static_cast<unsigned char>(ch) >= 0x20));
    // the JSON keeps the path itself (JSON escapes it)
    const RunResult json = run_in(dir, {"models", "--cached", "--json", "-"});
    REQUIRE(json.code == 0);
    CHECK(nlohmann::json::parse(json.out)[0]["path"] == snap);
}
