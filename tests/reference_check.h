// Checking kinds against tests/reference.h, the independent plain-loop reference in double precision:
// a Case (a kind, its shapes and options), its inputs and settings, and the comparison of every stage
// of a trace with the largest difference reported. tests/test_reference.cpp runs the kinds through it,
// tests/test_invariants.cpp uses it for the invariants.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/kinds/kinds.h"
#include "tests/reference.h"

namespace attn::test {

// ---- plain copies of the trace's matrices --------------------------------------------------------

ref::M plain(const Mat& m);
ref::Bits plain(const Mask& m);
ref::Params plain(const std::vector<Param>& params);

// ---- inputs --------------------------------------------------------------------------------------

enum class UserMask { none, sparse, row };

// One run to check: the kind, the shapes and the options. S = 0: the sentence is its own source.
struct Case {
    std::string kind;
    std::size_t T = 6, S = 0, d_in = 8, d_src = 0, d_out = 4, H = 1, G = 1;
    bool is_causal = false, bias = false, renorm_ = false;
    float p = 0.0f;
    std::optional<std::size_t> window_;
    std::string score_ = "dot", init_ = "torch";
    std::size_t bq = 2, bk = 2;
    std::uint64_t seed_ = 123;
    UserMask user_ = UserMask::none;
    std::size_t hidden_row = 2;

    explicit Case(std::string k) : kind(std::move(k)) {}
    Case& t(std::size_t n) { return T = n, *this; }
    Case& s(std::size_t n, std::size_t width = 0) { return S = n, d_src = width, *this; }
    Case& dims(std::size_t in, std::size_t out) { return d_in = in, d_out = out, *this; }
    Case& heads(std::size_t h, std::size_t g) { return H = h, G = g, *this; }
    Case& causal(bool on = true) { return is_causal = on, *this; }
    Case& qkv_bias() { return bias = true, *this; }
    Case& renorm() { return renorm_ = true, *this; }
    Case& dropout(float q) { return p = q, *this; }
    Case& window(std::size_t w) { return window_ = w, *this; }
    Case& score(std::string s) { return score_ = std::move(s), *this; }
    Case& init(std::string s) { return init_ = std::move(s), *this; }
    Case& blocks(std::size_t q, std::size_t k) { return bq = q, bk = k, *this; }
    Case& seed(std::uint64_t s) { return seed_ = s, *this; }
    Case& user(UserMask m, std::size_t row = 2) { return user_ = m, hidden_row = row, *this; }

    std::string label() const;  // every field, for INFO
};

// The case's embeddings (and source, and user mask).
Inputs make_inputs(const Case& c);

// The case's settings, resolved by the registry as the CLI resolves them (H and G where the kind takes them).
Settings make_config(const Case& c);

// The reference's settings from the config the test asked for (not the trace's), plus the cells
// dropout kept, read from the trace.
ref::Settings settings_for(const Settings& c, const Inputs& in, const Trace& t);

// One representative case per kind (and per luong score and causal method), T = 7, source S = 5.
std::vector<Case> every_kind(UserMask user, float p = 0.0f);

// ---- comparison ----------------------------------------------------------------------------------

inline constexpr double kTolerance = 1e-5;  // relative to the matrix's magnitude max(1, max |reference|)

// The largest relative difference seen per stage, across the cases of one kind.
struct Worst {
    std::map<std::string, double> stage;
    std::size_t cases = 0;
    void note(const std::string& name, double rel) { stage[name] = std::max(stage[name], rel); }
    std::string summary(const std::string& what) const {
        std::ostringstream o;
        o << what;
        if (cases > 0) o << " (" << cases << (cases == 1 ? " case)" : " cases)");
        o << ", largest difference relative to max(1, |reference|):";
        for (const auto& [name, rel] : stage) o << "  " << name << " " << rel;
        return o.str();
    }
};

// Checks got against want within kTolerance of max(1, max |want|), noting the difference in `worst`.
void compare(const std::string& stage, const Mat& got, const ref::M& want, Worst& worst);

// Runs one config on one input and checks every stage of the trace against the reference.
void check_against_reference(const Inputs& in, const Settings& c, Worst& worst);

// Every case against the reference; a MESSAGE with the largest differences, titled `what`.
void check_cases(const std::string& what, const std::vector<Case>& cases);

}  // namespace attn::test
