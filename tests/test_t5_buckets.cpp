// T5's relative-position buckets against tests/seq2seq/t5_buckets.txt, the table PyTorch computes
// (tests/seq2seq/seq2seq_reference.py, modeling_t5's _relative_position_bucket in float32): every distance
// rel = key − query from −1000 to 1000, bidirectional (encoder) and causal (decoder), for 32 buckets with
// max distance 128 (T5's default) and 16 buckets with max distance 64.
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "core/model/seq2seq.h"
#include "tests/helpers.h"

TEST_CASE("t5 buckets: every distance from -1000 to 1000, both directions, 32 buckets to 128 and 16 to 64, gives PyTorch's bucket") {
    std::ifstream file(std::string(ATTN_SOURCE_DIR) + "/tests/seq2seq/t5_buckets.txt");
    REQUIRE(file);
    std::string line;
    std::size_t rows = 0, wrong = 0;
    while (std::getline(file, line)) {
        if (line.empty() || line[0] == '#') continue;  // the header names the columns
        std::istringstream fields(line);
        int bidirectional = 0;
        std::size_t num_buckets = 0, max_distance = 0, bucket = 0;
        std::int64_t rel = 0;
        REQUIRE(static_cast<bool>(fields >> bidirectional >> num_buckets >> max_distance >> rel >> bucket));
        ++rows;
        if (attn::t5_bucket(rel, bidirectional == 1, num_buckets, max_distance) == bucket) continue;
        ++wrong;
        CAPTURE(line);
        CHECK(attn::t5_bucket(rel, bidirectional == 1, num_buckets, max_distance) == bucket);
    }
    CHECK(rows == 2 * 2 * 2001);  // two bucket settings, two directions, 2001 distances
    CHECK(wrong == 0);
}
