// Every kind in the registry against tests/reference.h, an independent plain-loop reference in
// double precision, over many shapes (tests/reference_check.h compares). Each comparison reports its
// largest difference (INFO on failure, MESSAGE per kind). The invariants are tests/test_invariants.cpp.
#include <vector>

#include "tests/helpers.h"
#include "tests/reference_check.h"

using namespace attn;
using namespace attn::test;

TEST_CASE("reference: simple") {
    check_cases("simple", {
        Case("simple").t(6).dims(8, 8),
        Case("simple").t(1).dims(8, 8),
        Case("simple").t(7).dims(3, 3).causal(),
        Case("simple").t(13).dims(16, 16).seed(7),
        Case("simple").t(6).dims(5, 5).user(UserMask::sparse),
        Case("simple").t(6).dims(5, 5).causal().dropout(0.2f),
    });
}

TEST_CASE("reference: self") {
    check_cases("self", {
        Case("self").t(6).dims(8, 4),
        Case("self").t(1).dims(8, 4),
        Case("self").t(7).dims(5, 12).qkv_bias(),
        Case("self").t(13).dims(16, 16).causal(),
        Case("self").t(6).dims(3, 2).init("torch-rand"),
        Case("self").t(6).dims(3, 2).init("torch-rand").qkv_bias(),
        Case("self").t(7).dims(8, 4).qkv_bias().user(UserMask::sparse),
        Case("self").t(7).dims(8, 4).qkv_bias().dropout(0.1f),
    });
}

TEST_CASE("reference: causal, -inf masking and --renorm") {
    check_cases("causal", {
        Case("causal").t(6).dims(8, 4).causal(),
        Case("causal").t(1).dims(8, 4).causal(),
        Case("causal").t(7).dims(5, 12).causal().qkv_bias(),
        Case("causal").t(13).dims(16, 16).causal().seed(99),
        Case("causal").t(7).dims(8, 4).causal().user(UserMask::sparse),
        Case("causal").t(7).dims(8, 4).causal().dropout(0.3f),
        Case("causal").t(7).dims(8, 4).causal(false),  // --no-causal: plain self-attention
    });
    check_cases("causal --renorm", {
        Case("causal").t(6).dims(8, 4).causal().renorm(),
        Case("causal").t(1).dims(8, 4).causal().renorm(),
        Case("causal").t(13).dims(5, 12).causal().renorm().qkv_bias(),
        Case("causal").t(7).dims(8, 4).causal().renorm().user(UserMask::sparse),
        Case("causal").t(7).dims(8, 4).causal().renorm().user(UserMask::row),
        Case("causal").t(7).dims(8, 4).causal().renorm().dropout(0.3f),
    });
}

TEST_CASE("reference: mha-wrapper") {
    check_cases("mha-wrapper", {
        Case("mha-wrapper").t(6).dims(8, 4).heads(1, 1).causal(),
        Case("mha-wrapper").t(6).dims(8, 4).heads(2, 2).causal(),
        Case("mha-wrapper").t(7).dims(5, 3).heads(4, 4).causal().qkv_bias(),
        Case("mha-wrapper").t(1).dims(8, 2).heads(2, 2).causal(),
        Case("mha-wrapper").t(7).dims(8, 4).heads(2, 2),
        Case("mha-wrapper").t(7).dims(8, 4).heads(2, 2).causal().user(UserMask::sparse),
        Case("mha-wrapper").t(7).dims(8, 4).heads(2, 2).causal().dropout(0.25f),
    });
}

TEST_CASE("reference: mha") {
    check_cases("mha", {
        Case("mha").t(6).dims(8, 8).heads(1, 1).causal(),
        Case("mha").t(6).dims(8, 8).heads(2, 2).causal(),
        Case("mha").t(7).dims(8, 8).heads(4, 4).causal().qkv_bias(),
        Case("mha").t(7).dims(8, 16).heads(8, 8).causal(),
        Case("mha").t(13).dims(6, 8).heads(8, 8).qkv_bias(),
        Case("mha").t(1).dims(8, 8).heads(2, 2).causal(),
        Case("mha").t(7).dims(8, 8).heads(2, 2).causal().user(UserMask::sparse),
        Case("mha").t(7).dims(8, 8).heads(4, 4).causal().dropout(0.2f),
    });
}

TEST_CASE("reference: gqa") {
    std::vector<Case> cases;
    const std::vector<std::pair<std::size_t, std::size_t>> groups = {{2, 1}, {4, 1}, {4, 2}, {4, 4}, {6, 2},
                                                                     {6, 3}, {8, 1}, {8, 2}, {8, 4}, {8, 8}};
    for (const auto& [H, G] : groups) {
        cases.push_back(Case("gqa").t(7).dims(8, 2 * H).heads(H, G).causal());
        cases.push_back(Case("gqa").t(5).dims(6, 3 * H).heads(H, G).qkv_bias());
    }
    cases.push_back(Case("gqa").t(1).dims(8, 8).heads(4, 2).causal());
    cases.push_back(Case("gqa").t(7).dims(8, 8).heads(4, 2).causal().user(UserMask::sparse));
    cases.push_back(Case("gqa").t(7).dims(8, 8).heads(4, 2).causal().dropout(0.2f));
    check_cases("gqa", cases);
}

TEST_CASE("reference: mqa") {
    check_cases("mqa", {
        Case("mqa").t(6).dims(8, 8).heads(1, 1).causal(),
        Case("mqa").t(6).dims(8, 8).heads(2, 1).causal(),
        Case("mqa").t(7).dims(8, 8).heads(4, 1).causal().qkv_bias(),
        Case("mqa").t(7).dims(5, 16).heads(8, 1),
        Case("mqa").t(1).dims(8, 8).heads(4, 1).causal(),
        Case("mqa").t(7).dims(8, 8).heads(4, 1).causal().dropout(0.2f),
    });
}

TEST_CASE("reference: cross, T != S") {
    check_cases("cross", {
        Case("cross").t(5).s(3, 6).dims(8, 4),
        Case("cross").t(1).s(4, 6).dims(8, 4),
        Case("cross").t(4).s(1, 6).dims(8, 4),
        Case("cross").t(1).s(1, 3).dims(8, 4),
        Case("cross").t(6).dims(8, 5),                      // no source: the sentence itself
        Case("cross").t(3).s(6, 8).dims(8, 5).causal(),     // top-left aligned: j <= i
        Case("cross").t(7).s(3, 8).dims(8, 5).causal(),     // rows past S see every key
        Case("cross").t(6).s(4, 6).dims(8, 4).qkv_bias(),
        Case("cross").t(6).s(4, 6).dims(8, 4).user(UserMask::sparse),
        Case("cross").t(6).s(4, 6).dims(8, 4).dropout(0.2f),
    });
}

TEST_CASE("reference: additive (Bahdanau)") {
    check_cases("additive", {
        Case("additive").t(5).s(3, 6).dims(8, 4),
        Case("additive").t(1).s(4, 6).dims(8, 4),
        Case("additive").t(4).s(1, 6).dims(8, 4),
        Case("additive").t(6).dims(8, 10),
        Case("additive").t(5).s(7, 3).dims(4, 1),
        Case("additive").t(5).s(3, 6).dims(8, 4).init("torch-rand"),
        Case("additive").t(6).s(4, 6).dims(8, 4).user(UserMask::sparse),
        Case("additive").t(6).s(4, 6).dims(8, 4).dropout(0.2f),
    });
}

TEST_CASE("reference: luong dot, general and concat") {
    check_cases("luong dot", {
        Case("luong").t(5).s(3, 8).dims(8, 4),
        Case("luong").t(1).s(1, 8).dims(8, 4),
        Case("luong").t(4).s(1, 8).dims(8, 4),
        Case("luong").t(6).dims(8, 4),
        Case("luong").t(6).s(4, 8).dims(8, 4).user(UserMask::sparse),
        Case("luong").t(6).s(4, 8).dims(8, 4).dropout(0.2f),
    });
    check_cases("luong general", {
        Case("luong").t(5).s(3, 6).dims(8, 4).score("general"),
        Case("luong").t(1).s(5, 6).dims(8, 4).score("general"),
        Case("luong").t(4).s(1, 6).dims(8, 4).score("general"),
        Case("luong").t(6).dims(8, 4).score("general"),
        Case("luong").t(6).s(4, 6).dims(8, 4).score("general").dropout(0.2f),
    });
    check_cases("luong concat", {
        Case("luong").t(5).s(3, 6).dims(8, 7).score("concat"),
        Case("luong").t(1).s(1, 6).dims(8, 7).score("concat"),
        Case("luong").t(6).dims(8, 4).score("concat"),
        Case("luong").t(6).s(4, 6).dims(8, 4).score("concat").user(UserMask::sparse),
    });
}

TEST_CASE("reference: local, with and without a causal window") {
    std::vector<Case> cases;
    for (std::size_t w : {0u, 1u, 2u, 3u, 20u})
        for (bool causal : {false, true}) cases.push_back(Case("local").t(7).dims(8, 4).window(w).causal(causal));
    cases.push_back(Case("local").t(1).dims(8, 4).window(1));
    cases.push_back(Case("local").t(13).dims(5, 12).window(2).qkv_bias());
    cases.push_back(Case("local").t(7).dims(8, 4).window(2).user(UserMask::sparse));
    cases.push_back(Case("local").t(7).dims(8, 4).window(1).causal().dropout(0.2f));
    check_cases("local", cases);
}

TEST_CASE("reference: flash, blocks that do and do not divide T") {
    std::vector<Case> cases;
    const std::vector<std::pair<std::size_t, std::size_t>> blocks = {{1, 1}, {3, 3}, {64, 64}, {2, 3}, {3, 2}, {4, 5}};
    for (std::size_t T : {1u, 7u, 13u})
        for (const auto& [bq, bk] : blocks)
            for (bool causal : {false, true}) cases.push_back(Case("flash").t(T).dims(8, 4).blocks(bq, bk).causal(causal));
    cases.push_back(Case("flash").t(7).dims(5, 12).blocks(3, 3).qkv_bias());
    cases.push_back(Case("flash").t(7).dims(8, 4).blocks(3, 2).user(UserMask::sparse));
    cases.push_back(Case("flash").t(7).dims(8, 4).blocks(3, 2).causal().user(UserMask::row, 4));
    // --heads: the projection split into H heads of d_out / H, contexts side by side
    cases.push_back(Case("flash").t(7).dims(8, 8).heads(2, 2).blocks(3, 2).causal().qkv_bias());
    cases.push_back(Case("flash").t(13).dims(8, 8).heads(4, 4).blocks(5, 3).user(UserMask::sparse));
    check_cases("flash", cases);
}

TEST_CASE("reference: every kind under a user mask and under dropout") {
    std::vector<Case> cases = every_kind(UserMask::sparse);
    for (const Case& c : every_kind(UserMask::row)) cases.push_back(c);
    for (const Case& c : every_kind(UserMask::none, 0.5f)) cases.push_back(c);
    check_cases("every kind, masked or with dropout", cases);
}

TEST_CASE("reference: every kind in the registry, with the kind's own defaults") {
    // A kind added to the registry without a reference fails here (ref::run throws).
    Worst worst;
    for (const Kind& k : kinds()) {
        Case c = Case(k.name).t(7).dims(8, 8).heads(k.defaults.heads, k.defaults.kv_heads).causal(k.defaults.causal);
        if (k.options & opt_source) c.s(5, 8);
        if (k.options & opt_qkv_bias) c.qkv_bias();
        INFO(c.label());
        CHECK_NOTHROW(check_against_reference(make_inputs(c), make_config(c), worst));
    }
    CHECK(worst.cases == kinds().size());
    MESSAGE(worst.summary("every kind with its defaults"));
}
