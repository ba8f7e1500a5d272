// PyTorch checkpoints (pytorch_model.bin) read without running their pickle: hand-built files
// (tests/torch_bin/torch_file.h) read back exactly, every refusal's message, and a GPT-2 folder holding
// only pytorch_model.bin giving the same `attn show --model` trace as its model.safetensors.
// tests/torch_bin/torch_bin_check.py checks files torch.save wrote against torch.load.
#include <dirent.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstring>

#include "data/base/error.h"
#include "data/checkpoint/torch_checkpoint.h"
#include "data/checkpoint/torch_pickle.h"
#include "fuzz/harness_model.h"
#include "tests/helpers.h"
#include "tests/model_fixtures.h"
#include "tests/torch_bin/torch_file.h"

namespace {

using attn::test::TorchEntry;

std::string floats(std::initializer_list<float> v) {
    std::string b(v.size() * 4, '\0');
    std::size_t i = 0;
    for (float f : v) std::memcpy(&b[4 * i++], &f, 4);
    return b;
}

// The error reading `bytes` gives (its exit code checked to be 1), or "" when it loads.
std::string torch_error(const std::string& bytes) {
    try {
        attn::torch_checkpoint_from_bytes(bytes, "m/pytorch_model.bin");
    } catch (const attn::Error& e) {
        CHECK(e.exit_code() == 1);
        CHECK(std::string(e.what()).find('\n') == std::string::npos);
        return e.what();
    }
    return "";
}

std::string zip_of_pickle(const std::string& pickle) { return attn::test::torch_zip({}, pickle); }

const std::string kNever = ", which no state dict holds; attn never runs code from a checkpoint";

}  // namespace

TEST_CASE("torch checkpoint: a hand-built zip and legacy file read back every tensor, a transposed view copied out row-major") {
    // storage "0" holds 0..5; w is it as (2, 3), wt the (3, 2) transpose (strides 1, 3), b a slice at offset 4
    const std::string six = floats({0, 1, 2, 3, 4, 5});
    TorchEntry w = attn::test::torch_entry("w", "0", {2, 3}, six);
    TorchEntry wt = w;
    wt.name = "wt", wt.size = {3, 2}, wt.stride = {1, 3};
    TorchEntry b = w;
    b.name = "b", b.offset = 4, b.size = {2}, b.stride = {1};
    for (bool legacy : {false, true}) {
        INFO("legacy " << legacy);
        const std::string bytes = legacy ? attn::test::torch_legacy({w, wt, b}) : attn::test::torch_zip({w, wt, b});
        const auto t = attn::torch_checkpoint_from_bytes(bytes, "m/pytorch_model.bin");
        REQUIRE(t.size() == 3);
        CHECK(t[0].name == "w");
        CHECK(t[0].dtype == "F32");
        CHECK(t[0].shape == std::vector<std::size_t>{2, 3});
        CHECK(t[0].bytes == six);
        CHECK(t[1].shape == std::vector<std::size_t>{3, 2});
        CHECK(t[1].bytes == floats({0, 3, 1, 4, 2, 5}));
        CHECK(t[2].bytes == floats({4, 5}));
    }
}

TEST_CASE("torch checkpoint: a GLOBAL os.system, builtins.eval through REDUCE, STACK_GLOBAL and INST are refused by name") {
    const std::string hint = " (hint: ";
    CHECK(torch_error(zip_of_pickle(std::string("\x80\x02") + "cos\nsystem\n" + attn::test::pickle_str("touch /tmp/x") + "\x85R.")) ==
          "m/pytorch_model.bin: the pickle calls os.system" + kNever);
    CHECK(torch_error(zip_of_pickle(std::string("\x80\x02") + "cbuiltins\neval\n" + attn::test::pickle_str("1") + "\x85R.")) ==
          "m/pytorch_model.bin: the pickle calls builtins.eval" + kNever);
    CHECK(torch_error(zip_of_pickle(std::string("\x80\x02") + attn::test::pickle_str("os") + attn::test::pickle_str("system") + "\x93.")) ==
          "m/pytorch_model.bin: the pickle uses opcode STACK_GLOBAL at byte 20" + kNever);
    CHECK(torch_error(zip_of_pickle(std::string("\x80\x02(") + "ios\nsystem\n.")) ==
          "m/pytorch_model.bin: the pickle uses opcode INST at byte 3" + kNever);
    CHECK(torch_error(zip_of_pickle(std::string("\x80\x02(\x81."))) == "m/pytorch_model.bin: the pickle uses opcode NEWOBJ at byte 3" + kNever);
    // a storage type called as a function (REDUCE on an allowed global that is not a callable of a state dict)
    CHECK(torch_error(zip_of_pickle(std::string("\x80\x02") + "ctorch\nFloatStorage\n)R.")) ==
          "m/pytorch_model.bin: the pickle calls torch.FloatStorage" + kNever);
    // the legacy format's first pickle runs no code either
    CHECK(torch_error(std::string("\x80\x02") + "cposix\nsystem\n" + attn::test::pickle_str("id") + "\x85R.") ==
          "m/pytorch_model.bin: the pickle calls posix.system" + kNever);
}

TEST_CASE("torch checkpoint: Double, Byte and Bool storages read back as F64, U8 and BOOL, a complex storage is refused by name, as are a truncated storage and a view past its storage's end") {
    TorchEntry d = attn::test::torch_entry("w", "0", {2}, floats({1, 2, 3, 4}), "DoubleStorage");
    TorchEntry u = attn::test::torch_entry("u", "1", {3}, std::string("\x00\x01\xff", 3), "ByteStorage");
    TorchEntry b = attn::test::torch_entry("b", "2", {2, 2}, std::string("\x01\x00\x01\x01", 4), "BoolStorage");
    const auto t = attn::torch_checkpoint_from_bytes(attn::test::torch_zip({d, u, b}), "m/pytorch_model.bin");
    REQUIRE(t.size() == 3);
    CHECK(t[0].dtype == "F64");
    CHECK(t[0].bytes == floats({1, 2, 3, 4}));
    CHECK(t[1].dtype == "U8");
    CHECK(t[1].bytes == std::string("\x00\x01\xff", 3));
    CHECK(t[2].dtype == "BOOL");
    CHECK(t[2].shape == std::vector<std::size_t>{2, 2});
    TorchEntry c = attn::test::torch_entry("c", "0", {2}, floats({1, 2, 3, 4}), "ComplexFloatStorage");
    CHECK(torch_error(attn::test::torch_zip({c})) ==
          "m/pytorch_model.bin: the checkpoint holds a torch.ComplexFloatStorage, which attn does not read (it reads the real, integer and "
          "bool storages: Float, Half, BFloat16, Double, Long, Int, Short, Char, Byte, Bool)");
    TorchEntry w = attn::test::torch_entry("w", "0", {2, 3}, floats({0, 1, 2, 3, 4, 5}));
    TorchEntry cut = w;
    cut.data.resize(20);
    CHECK(torch_error(attn::test::torch_zip({cut}, attn::test::state_dict_pickle({w}))) ==
          "m/pytorch_model.bin: storage '0' holds 20 bytes but its 6 F32 elements need 24");
    TorchEntry more = w;
    more.data += floats({7});
    CHECK(torch_error(attn::test::torch_zip({more}, attn::test::state_dict_pickle({w}))) ==
          "m/pytorch_model.bin: storage '0' holds 28 bytes, more than its 6 F32 elements take (24)");
    const std::string zip = attn::test::torch_zip({w});
    CHECK(torch_error(zip.substr(0, zip.size() - 30)) ==
          "m/pytorch_model.bin: not a readable zip: no zip directory at its end: it is cut short, or not a zip");
    TorchEntry past = w;
    past.offset = 1;
    CHECK(torch_error(attn::test::torch_zip({past})) == "m/pytorch_model.bin: tensor 'w' reads element 6 of storage '0', which holds 6");
    past.offset = 0, past.size = {1ull << 40, 1ull << 40};
    CHECK(torch_error(attn::test::torch_zip({past})) == "m/pytorch_model.bin: tensor 'w' is impossibly large");
    const std::string legacy = attn::test::torch_legacy({w});
    CHECK(torch_error(legacy.substr(0, legacy.size() - 4)) == "m/pytorch_model.bin: storage '0' needs 24 bytes but the file has 20 left");
}

TEST_CASE("torch checkpoint: a zip whose byteorder record says big is refused as big-endian, little reads as without the record") {
    // torch 2.1+ writes archive/byteorder and swaps a big-endian file's storages when it loads it
    const TorchEntry w = attn::test::torch_entry("w", "0", {2}, floats({1, 2}));
    auto with_order = [&](const std::string& order) {
        return attn::test::zip_stored({{"archive/data.pkl", attn::test::state_dict_pickle({w})}, {"archive/byteorder", order},
                                       {"archive/data/0", w.data}, {"archive/version", "3\n"}});
    };
    CHECK(torch_error(with_order("big")) == "m/pytorch_model.bin: a big-endian checkpoint (its byteorder record says big), which attn does not read");
    CHECK(torch_error(with_order("middle")) == "m/pytorch_model.bin: the byteorder record holds 'middle', neither little nor big");
    const auto t = attn::torch_checkpoint_from_bytes(with_order("little"), "m/pytorch_model.bin");
    REQUIRE(t.size() == 1);
    CHECK(t[0].bytes == floats({1, 2}));
    try {
        attn::torch_checkpoint_from_bytes(with_order("big"), "m/pytorch_model.bin");
        FAIL("a big-endian checkpoint was read");
    } catch (const attn::Error& e) {
        CHECK(e.hint() == "load it with torch.load on this machine and save it again (torch swaps the bytes), or use the model's model.safetensors");
    }
}

TEST_CASE("torch checkpoint: a legacy file with a wrong magic number, a zip without data.pkl and a cut pickle are refused") {
    const TorchEntry w = attn::test::torch_entry("w", "0", {2}, floats({1, 2}));
    CHECK(torch_error(attn::test::torch_legacy({w}, 0x20f9469cfc6dull)) ==
          "m/pytorch_model.bin: not a PyTorch checkpoint: the first pickle is not torch's magic number 0x1950a86a20f9469cfc6c");
    CHECK(torch_error(attn::test::zip_stored({{"archive/data/0", w.data}})) ==
          "m/pytorch_model.bin: the zip holds no <folder>/data.pkl: not a PyTorch checkpoint");
    CHECK(torch_error(zip_of_pickle(std::string("\x80\x02X\xff\xff\xff\x7f" "abc"))) ==
          "m/pytorch_model.bin: the pickle ends inside BINUNICODE at byte 2");
    CHECK(torch_error(zip_of_pickle(std::string("\x80\x02X\x02\0\0\0\xf5\x80.", 10))) ==
          "m/pytorch_model.bin: the pickle holds a string that is not UTF-8 (byte 2), which is not a state dict torch.save writes");
    CHECK(torch_error("hello") == "m/pytorch_model.bin: not a PyTorch checkpoint (neither a zip nor a pickle)");
    CHECK(torch_error("") == "m/pytorch_model.bin: the file is empty");
}

TEST_CASE("torch checkpoint: nesting, the stack and the memo are bounded and a memo entry must exist") {
    // 2000 nested MARKs: refused at the 1025th, without recursion
    CHECK(torch_error(zip_of_pickle("\x80\x02" + std::string(2000, '('))).find("nests MARK more than 1024 deep") != std::string::npos);
    CHECK(torch_error(zip_of_pickle(std::string("\x80\x02h\x07."))).find("gets memo entry 7, which was never put") != std::string::npos);
    CHECK(torch_error(zip_of_pickle(std::string("\x80\x02R."))).find("REDUCE pops an empty stack") != std::string::npos);
    // a dict holding itself (BINGET of the dict as its own value) is no cycle to follow: it is refused as not a tensor
    CHECK(torch_error(zip_of_pickle(std::string("\x80\x02}q\x00", 5) + attn::test::pickle_str("k") + std::string("h\x00s.", 4))) ==
          "m/pytorch_model.bin: the state dict's entry 'k' is not a tensor");
}

TEST_CASE("torch checkpoint: a GPT-2 folder with only pytorch_model.bin (zip with a transposed wte, legacy, sharded) gives model.safetensors' trace") {
    const std::string dir = attn::test::temp_dir();
    const std::string cfg = attn::test::tiny_gpt2_config();
    const auto st = attn::test::tiny_gpt2_tensors();
    attn::test::write_model_folder(dir, "st", cfg, attn::test::safetensors_file(st));
    std::vector<TorchEntry> entries;
    for (std::size_t i = 0; i < st.size(); ++i) {
        std::vector<std::uint64_t> shape(st[i].shape.begin(), st[i].shape.end());
        entries.push_back(attn::test::torch_entry(st[i].name, std::to_string(i), shape, st[i].bytes));
    }
    // wte (257, 4) stored as the transpose of a (4, 257) storage: a view with strides (1, 257)
    TorchEntry& wte = entries[0];
    std::string t(wte.data.size(), '\0');
    for (std::size_t r = 0; r < 257; ++r)
        for (std::size_t c = 0; c < 4; ++c) std::memcpy(&t[(c * 257 + r) * 4], &wte.data[(r * 4 + c) * 4], 4);
    TorchEntry transposed = wte;
    transposed.data = t, transposed.stride = {1, 257};
    std::vector<TorchEntry> zipped = entries;
    zipped[0] = transposed;
    auto folder = [&](const std::string& name) {
        attn::test::write_model_folder(dir, name, cfg, "");
        return dir + "/" + name;
    };
    attn::test::write_bytes(folder("bin-zip") + "/pytorch_model.bin", attn::test::torch_zip(zipped, attn::test::state_dict_pickle(zipped), "pytorch_model"));
    attn::test::write_bytes(folder("bin-legacy") + "/pytorch_model.bin", attn::test::torch_legacy(entries));
    const std::string sharded = folder("bin-sharded");
    std::vector<TorchEntry> a(entries.begin(), entries.begin() + 5), b(entries.begin() + 5, entries.end());
    attn::test::write_bytes(sharded + "/pytorch_model-00001-of-00002.bin", attn::test::torch_zip(a));
    attn::test::write_bytes(sharded + "/pytorch_model-00002-of-00002.bin", attn::test::torch_legacy(b));
    std::string index = "{\"metadata\": {}, \"weight_map\": {";
    for (std::size_t i = 0; i < entries.size(); ++i)
        index += std::string(i ? ", " : "") + "\"" + entries[i].name + "\": \"pytorch_model-0000" + (i < 5 ? "1" : "2") + "-of-00002.bin\"";
    attn::test::write_bytes(sharded + "/pytorch_model.bin.index.json", index + "}}");
    const auto want = attn::test::run_attn({"show", "--model", dir + "/st", "--json", "-", "a b"});
    REQUIRE(want.code == 0);
    for (const std::string name : {"bin-zip", "bin-legacy", "bin-sharded"}) {
        INFO(name);
        const auto got = attn::test::run_attn({"show", "--model", dir + "/" + name, "--json", "-", "a b"});
        CHECK(got.err == "");
        REQUIRE(got.code == 0);
        std::string renamed = got.out;  // the same trace but for the folder's name
        const std::string from = "\"name\":\"" + name + "\"";
        REQUIRE(renamed.find(from) != std::string::npos);
        renamed.replace(renamed.find(from), from.size(), "\"name\":\"st\"");
        CHECK(attn::test::first_difference(renamed, want.out) == "");
    }
    // a hostile pickle in the folder: refused with the file's path, nothing run
    attn::test::write_bytes(folder("bin-hostile") + "/pytorch_model.bin",
                            zip_of_pickle(std::string("\x80\x02") + "cos\nsystem\n" + attn::test::pickle_str("id") + "\x85R."));
    const auto r = attn::test::run_attn({"show", "--model", dir + "/bin-hostile", "--json", "-", "a b"});
    CHECK(r.code == 1);
    CHECK(r.err.find(dir + "/bin-hostile/pytorch_model.bin: the pickle calls os.system" + kNever) != std::string::npos);
    // a shard the index names is missing: the hint names the index's own kind of shard
    std::remove((sharded + "/pytorch_model-00002-of-00002.bin").c_str());
    const auto m = attn::test::run_attn({"show", "--model", sharded, "--json", "-", "a b"});
    CHECK(m.code == 1);
    CHECK(m.err == "attn: error: " + sharded + "/pytorch_model.bin.index.json: names shard 'pytorch_model-00002-of-00002.bin', which is missing "
                   "from the folder (hint: the index and its shards belong together: download every pytorch_model-*.bin the index names)\n");
}

TEST_CASE("torch checkpoint: a GPT-2 pytorch_model.bin holding uint8 or bool attn.bias and an F32 masked_bias buffer gives model.safetensors' trace") {
    // transformers 4.x saved GPT-2's causal mask h.N.attn.bias (1, 1, n_positions, n_positions) as a uint8,
    // later bool, buffer, and masked_bias as a float scalar: buffers Hugging Face drops when it loads
    const std::string dir = attn::test::temp_dir();
    const std::string cfg = attn::test::tiny_gpt2_config();
    const auto st = attn::test::tiny_gpt2_tensors();
    attn::test::write_model_folder(dir, "st", cfg, attn::test::safetensors_file(st));
    const auto want = attn::test::run_attn({"show", "--model", dir + "/st", "--json", "-", "a b"});
    REQUIRE(want.code == 0);
    std::string tril;  // the (4, 4) lower triangle
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) tril += static_cast<char>(c <= r);
    for (const std::string type : {"ByteStorage", "BoolStorage"}) {
        INFO(type);
        std::vector<TorchEntry> entries;
        for (std::size_t i = 0; i < st.size(); ++i) {
            std::vector<std::uint64_t> shape(st[i].shape.begin(), st[i].shape.end());
            entries.push_back(attn::test::torch_entry(st[i].name, std::to_string(i), shape, st[i].bytes));
            if (st[i].name == "h.0.attn.c_attn.weight") {
                entries.push_back(attn::test::torch_entry("h.0.attn.bias", "mask", {1, 1, 4, 4}, tril, type));
                entries.push_back(attn::test::torch_entry("h.0.attn.masked_bias", "masked", {}, floats({-1e4f})));
            }
        }
        const std::string name = type == "ByteStorage" ? "bin-u8" : "bin-bool";
        attn::test::write_model_folder(dir, name, cfg, "");
        attn::test::write_bytes(dir + "/" + name + "/pytorch_model.bin", attn::test::torch_zip(entries));
        const auto got = attn::test::run_attn({"show", "--model", dir + "/" + name, "--json", "-", "a b"});
        CHECK(got.err == "");
        REQUIRE(got.code == 0);
        std::string renamed = got.out;
        const std::string from = "\"name\":\"" + name + "\"";
        REQUIRE(renamed.find(from) != std::string::npos);
        renamed.replace(renamed.find(from), from.size(), "\"name\":\"st\"");
        CHECK(attn::test::first_difference(renamed, want.out) == "");
    }
    // a tensor the model reads in a dtype attn does not compute with is still refused, naming it
    std::vector<TorchEntry> entries;
    for (std::size_t i = 0; i < st.size(); ++i) {
        std::vector<std::uint64_t> shape(st[i].shape.begin(), st[i].shape.end());
        entries.push_back(attn::test::torch_entry(st[i].name, std::to_string(i), shape, st[i].bytes));
    }
    entries[2] = attn::test::torch_entry("h.0.ln_1.weight", "2", {4}, std::string(4, '\x01'), "ByteStorage");
    attn::test::write_model_folder(dir, "bin-u8-read", cfg, "");
    attn::test::write_bytes(dir + "/bin-u8-read/pytorch_model.bin", attn::test::torch_zip(entries));
    const auto r = attn::test::run_attn({"show", "--model", dir + "/bin-u8-read", "--json", "-", "a b"});
    CHECK(r.code == 1);
    CHECK(r.err.find("tensor 'h.0.ln_1.weight' is U8, which attn does not read") != std::string::npos);
}

TEST_CASE("corpus: torch_checkpoint seeds named ok- load and those named bad- are refused, each through the fuzz harness") {
    const std::string dir = std::string(ATTN_SOURCE_DIR) + "/fuzz/corpus/torch_checkpoint";
    std::size_t ok = 0, bad = 0;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (const dirent* e = ::readdir(d)) {
            const std::string name = e->d_name;
            if (name[0] == '.') continue;
            INFO(name);
            const std::string bytes = attn::test::slurp(dir + "/" + name);
            CHECK(attn::fuzz::torch_checkpoint_one(bytes) == "");
            if (name.compare(0, 3, "ok-") == 0) {
                CHECK(torch_error(bytes) == "");
                ++ok;
            }
            if (name.compare(0, 4, "bad-") == 0) {
                CHECK(torch_error(bytes) != "");
                ++bad;
            }
        }
        ::closedir(d);
    }
    CHECK(ok >= 5);
    CHECK(bad >= 5);
}

TEST_CASE("torch checkpoint: a deflated entry claiming more than 1032 times its compressed bytes is refused before it is allocated") {
    // data.pkl: 4 bytes stored; its headers then rewritten to say deflated, 2^27 bytes from 4
    std::string z = attn::test::zip_stored({{"archive/data.pkl", "abcd"}});
    auto patch = [&](std::size_t at, std::uint64_t v, int n) { z.replace(at, static_cast<std::size_t>(n), attn::test::pickle_le(v, n)); };
    const std::size_t central = z.find("PK\x01\x02");
    REQUIRE(central != std::string::npos);
    patch(8, 8, 2), patch(22, 1ull << 27, 4);                       // the local header: method, uncompressed size
    patch(central + 10, 8, 2), patch(central + 24, 1ull << 27, 4);  // the central directory's
    CHECK(torch_error(z) == "m/pytorch_model.bin: 'archive/data.pkl' claims 134217728 bytes from 4 compressed, more than deflate can give");
}

// The page's zip reader (data/checkpoint/stored_zip.h) against libzip on every zip of its corpus: numpy.savez,
// torch.save, ZIP64 records, a deflated entry (which only libzip reads), damaged checkpoints.
TEST_CASE("corpus: stored_zip") {
    const std::string dir = std::string(ATTN_SOURCE_DIR) + "/fuzz/corpus/stored_zip";
    std::size_t n = 0;
    for (const char* name : {"npz-two-arrays", "zip64-entries", "deflated-entry", "torch-save", "torch-ok-zip-f32", "torch-ok-zip-bf16",
                             "torch-bad-truncated", "torch-bad-offset", "two-end-records"}) {
        const std::string bytes = attn::test::slurp(dir + "/" + name);
        REQUIRE(!bytes.empty());
        INFO(name);
        CHECK(attn::fuzz::stored_zip_one(bytes) == "");
        ++n;
    }
    CHECK(n == 9);
}

// Found by fuzz_stored_zip: a torch.save archive whose bytes hold an earlier end record too. libzip opens the
// earlier one's directory (3 entries), the stored reader would have opened the last (12): the two readers
// saw different files. The stored reader now refuses an archive with two end records that could open.
TEST_CASE("stored zip: an archive holding two end-of-directory records is refused by name, not read differently from libzip") {
    const std::string bytes = attn::test::slurp(std::string(ATTN_SOURCE_DIR) + "/fuzz/corpus/stored_zip/two-end-records");
    std::string why;
    CHECK_FALSE(attn::open_stored_zip(bytes.data(), bytes.size(), why));
    CHECK(why == "it holds two zip directories (one inside the other's bytes): which is meant is unclear");
    const auto libzip = attn::open_zip_in_memory(bytes.data(), bytes.size(), why);
    REQUIRE(libzip);
    CHECK(libzip->entries() == 3);
    // with the earlier records' signatures changed (at 409 and 525), the last record alone opens
    std::string hidden = bytes;
    for (std::size_t at = hidden.find("PK\x05\x06"); at < hidden.rfind("PK\x05\x06"); at = hidden.find("PK\x05\x06"))
        hidden.replace(at, 4, "PK\x05\x07");
    CHECK(attn::open_stored_zip(hidden.data(), hidden.size(), why));
}

TEST_CASE("stored zip: ZIP64 records and numpy.savez read as libzip reads them, a deflated entry refused by name, a changed byte by its CRC-32") {
    const std::string dir = std::string(ATTN_SOURCE_DIR) + "/fuzz/corpus/stored_zip";
    std::string why;
    const std::string z64 = attn::test::slurp(dir + "/zip64-entries");
    const auto z = attn::open_stored_zip(z64.data(), z64.size(), why);
    REQUIRE(z);
    REQUIRE(z->entries() == 2);
    CHECK(z->entry(0)->name == "big/data.pkl");
    CHECK(z->find("big/x") == std::optional<std::size_t>(1));
    std::string bytes;
    REQUIRE(z->read(1, 50, bytes, why));
    std::string hello;
    for (int k = 0; k < 10; ++k) hello += "hello";
    CHECK(bytes == hello);
    const std::string deflated = attn::test::slurp(dir + "/deflated-entry");
    const auto d = attn::open_stored_zip(deflated.data(), deflated.size(), why);
    REQUIRE(d);
    CHECK_FALSE(d->read(0, d->entry(0)->size, bytes, why));
    CHECK(why == "it is compressed, which the page does not read (numpy.savez and torch.save store entries as they are)");
    std::string changed = attn::test::slurp(dir + "/torch-save");
    const auto t = attn::open_stored_zip(changed.data(), changed.size(), why);
    REQUIRE(t);
    const std::string folder = t->entry(0)->name.substr(0, t->entry(0)->name.find('/'));
    REQUIRE(t->find(folder + "/data/0"));
    const std::size_t i = *t->find(folder + "/data/0");
    std::string before;
    REQUIRE(t->read(i, t->entry(i)->size, before, why));
    changed[changed.find(before)] ^= 0x01;  // the storage's first byte, in place
    const auto t2 = attn::open_stored_zip(changed.data(), changed.size(), why);
    REQUIRE(t2);
    CHECK_FALSE(t2->read(i, t2->entry(i)->size, bytes, why));
    CHECK(why == "its bytes do not match their CRC-32");
}
