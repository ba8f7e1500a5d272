// The chapter's printed numbers (Raschka, Build a Large Language Model (From Scratch), ch. 3),
// each checked against PyTorch 1.13: golden values that the code under test did not produce.
#include "core/base/ops.h"
#include "tests/helpers.h"

using namespace attn;
using namespace attn::test;

TEST_CASE("golden: simple attention on the journey example (§3.3)") {
    const Trace t = run_attention(journey(), journey_config("simple", 3, "torch", 123));
    check_row(t.heads()[0].weights, 1, {0.1385f, 0.2379f, 0.2333f, 0.1240f, 0.1082f, 0.1581f});
    check_row(t.heads()[0].context, 1, {0.4419f, 0.6515f, 0.5683f});
}

TEST_CASE("golden: self-attention v1, torch.rand weights, seed 123") {
    const Trace t = run_attention(journey(), journey_config("self", 2, "torch-rand", 123));
    const HeadTrace& h = t.heads()[0];
    check_row(h.queries, 1, {0.4306f, 1.4551f});
    check_row(h.scores, 1, {1.2705f, 1.8524f, 1.8111f, 1.0795f, 0.5577f, 1.5440f});
    check_row(h.weights, 1, {0.1500f, 0.2264f, 0.2199f, 0.1311f, 0.0906f, 0.1820f});
    check_matrix(t.output, {{0.2996f, 0.8053f}, {0.3061f, 0.8210f}, {0.3058f, 0.8203f},
                            {0.2948f, 0.7939f}, {0.2927f, 0.7891f}, {0.2990f, 0.8040f}});
}

TEST_CASE("golden: self-attention v2, nn.Linear weights, seed 789") {
    const Trace t = run_attention(journey(), journey_config("self", 2, "torch", 789));
    check_matrix(t.output, {{-0.0739f, 0.0713f}, {-0.0748f, 0.0703f}, {-0.0749f, 0.0702f},
                            {-0.0760f, 0.0685f}, {-0.0763f, 0.0679f}, {-0.0754f, 0.0693f}});
}

TEST_CASE("golden: causal attention, nn.Linear weights, seed 123") {
    const Trace t = run_attention(journey(), journey_config("causal", 2, "torch", 123));
    check_matrix(t.output, {{-0.4519f, 0.2216f}, {-0.5874f, 0.0058f}, {-0.6300f, -0.0632f},
                            {-0.5675f, -0.0843f}, {-0.5526f, -0.0981f}, {-0.5299f, -0.1081f}});
    check_row(t.heads()[0].weights, 2, {0.3190f, 0.3408f, 0.3402f, 0.0f, 0.0f, 0.0f});
    for (std::size_t i = 0; i < 6; ++i)
        for (std::size_t j = i + 1; j < 6; ++j) CHECK(t.heads()[0].weights(i, j) == 0.0f);  // exactly 0
}

TEST_CASE("golden: multi-head attention with an output projection, seed 123") {
    Settings c = journey_config("mha", 2, "torch", 123);
    c.heads = 2;
    const Trace t = run_attention(journey(), c);
    check_matrix(t.output, {{0.3190f, 0.4858f}, {0.2943f, 0.3897f}, {0.2856f, 0.3593f},
                            {0.2693f, 0.3873f}, {0.2639f, 0.3928f}, {0.2575f, 0.4028f}});
}

TEST_CASE("golden: multi-head wrapper stacks two causal heads, seed 123") {
    Settings c = journey_config("mha-wrapper", 2, "torch", 123);
    c.heads = 2;
    const Trace t = run_attention(journey(), c);
    REQUIRE(t.output.shape(1) == 4);
    const std::vector<std::vector<float>> head0 = {{-0.4519f, 0.2216f}, {-0.5874f, 0.0058f}, {-0.6300f, -0.0632f},
                                                   {-0.5675f, -0.0843f}, {-0.5526f, -0.0981f}, {-0.5299f, -0.1081f}};
    const std::vector<std::vector<float>> head1 = {{0.4772f, 0.1063f}, {0.5891f, 0.3257f}, {0.6202f, 0.3860f},
                                                   {0.5478f, 0.3589f}, {0.5321f, 0.3428f}, {0.5077f, 0.3493f}};
    for (std::size_t i = 0; i < 6; ++i) {
        check_row(columns(t.output, 0, 2), i, head0[i]);
        check_row(columns(t.output, 2, 2), i, head1[i]);
    }
}
