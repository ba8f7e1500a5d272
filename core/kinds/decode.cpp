#include "core/kinds/decode.h"

#include <algorithm>
#include <cmath>

#include "core/base/ops.h"
#include "core/base/positions.h"
#include "data/base/error.h"

namespace attn {
namespace {

std::vector<float> row_of(const Mat& m, std::size_t r) {
    return std::vector<float>(m.data() + r * m.shape(1), m.data() + (r + 1) * m.shape(1));
}

Mat row_matrix(const Mat& m, std::size_t r) {  // m[r:r+1, :]   (1, D)
    Mat out = Mat::from_shape({1, m.shape(1)});
    std::copy_n(m.data() + r * m.shape(1), m.shape(1), out.data());
    return out;
}

const Mat* param_or_null(const Trace& t, const std::string& name) {
    const Param* p = t.param(name);
    return p ? &p->value : nullptr;
}

// x (1, D) · W + b, as the full pass projects (nn.Linear).
Mat project_row(const Trace& t, const Mat& x, const char* name) {
    return linear(x, t.param(std::string("W_") + name)->value, param_or_null(t, std::string("b_") + name));
}

// Appends row (1, n) to cache (N, n) -> (N + 1, n).
void append_row(Mat& cache, const Mat& row) {
    Mat grown = Mat::from_shape({cache.shape(0) + 1, row.shape(1)});
    std::copy(cache.begin(), cache.end(), grown.begin());
    std::copy(row.begin(), row.end(), grown.begin() + static_cast<std::ptrdiff_t>(cache.size()));
    cache = std::move(grown);
}

// A G between 1 and H for the GQA line: this run's when it is one, else the largest proper divisor.
std::size_t gqa_groups(std::size_t H, std::size_t G) {
    if (G > 1 && G < H) return G;
    for (std::size_t g = H / 2; g > 1; --g)
        if (H % g == 0) return g;
    return 0;
}

// One step: token t's k, v appended to the caches, then every head's query over t + 1 keys.
DecodeStep step(const Inputs& in, const Settings& c, const DecodeTrace& d, std::size_t t, std::vector<Mat>& keys,
                std::vector<Mat>& values) {
    const Trace& full = d.full;
    const PosKind pos = parse_pos(c.pos);
    const RopeStyle style = parse_rope_style(c.rope_style);
    const std::int64_t p = c.pos_offset + static_cast<std::int64_t>(t);  // this token's position
    // 1. the token's embedding, with its positional row for sinusoidal          (1, d_in)
    Mat x = row_matrix(in.x, t);
    if (pos == PosKind::sinusoidal) x += sinusoidal_table(1, x.shape(1), p);
    // 2. projections of the one token                     q (1, H·d_k), k (1, G·d_k), v (1, G·d_v)
    const Mat q = project_row(full, x, "query"), k = project_row(full, x, "key"), v = project_row(full, x, "value");
    // 3. the caches grow by one row per kv head; keys rotated at their position     (t + 1, d_k)
    for (std::size_t g = 0; g < d.kv_heads; ++g) {
        Mat kg = columns(k, g * d.d_k, d.d_k);
        if (pos == PosKind::rope) rope_rotate(kg, p, c.rope_base, style);
        append_row(keys[g], kg);
        append_row(values[g], columns(v, g * d.d_v, d.d_v));
    }
    // 4. each head: scores over the cache, softmax bottom-right (query t sees keys <= t), context
    DecodeStep s;
    s.step = t, s.token = in.tokens[t];
    MaskSpec mask;
    mask.causal = true, mask.shift = static_cast<std::int64_t>(t);  // S − T = (t + 1) − 1
    mask.window = c.window;  // local: step t sees keys t − W .. t
    const std::vector<double> slopes = alibi_slopes(d.heads);
    std::vector<Mat> contexts;
    for (std::size_t h = 0; h < d.heads; ++h) {
        const std::size_t g = h / (d.heads / d.kv_heads);
        Mat qh = columns(q, h * d.d_k, d.d_k);                 // (1, d_k)
        if (pos == PosKind::rope) rope_rotate(qh, p, c.rope_base, style);
        Mat w = matmul_nt(qh, keys[g]);                          // (1, t + 1)
        const LinearBias bias{static_cast<float>(slopes[h]), p, c.pos_offset};
        std::vector<std::size_t> empty;
        softmax_rows(w.data(), w.data(), 0, 1, t + 1, full.heads()[h].scale, mask, empty,
                     pos == PosKind::alibi ? &bias : nullptr);
        contexts.push_back(matmul(w, values[g]));               // (1, d_v)
        s.heads.push_back({h, g, row_of(w, 0)});
    }
    // 5. contexts side by side, then the output projection where the kind has one   (1, d_out)
    std::vector<const Mat*> parts;
    for (const auto& m : contexts) parts.push_back(&m);
    Mat out = concat_columns(parts);
    if (full.param("W_out")) out = linear(out, full.param("W_out")->value, param_or_null(full, "b_out"));
    s.output = row_of(out, 0);
    s.cache_bytes = (t + 1) * cache_bytes_per_token(d.layers, d.kv_heads, d.d_k, d.d_v);
    return s;
}

}  // namespace

bool kind_decodes(const Kind& kind) { return (kind.options & opt_pos) && !(kind.options & opt_source); }

std::string decoding_kinds() {
    std::string names;
    for (const auto& k : kinds())
        if (kind_decodes(k)) names += (names.empty() ? "" : ", ") + std::string(k.name);
    return names;
}

std::uint64_t cache_bytes_per_token(std::size_t layers, std::size_t kv_heads, std::size_t d_k, std::size_t d_v,
                                    std::size_t dtype_bytes) {
    return static_cast<std::uint64_t>(layers) * kv_heads * (d_k + d_v) * dtype_bytes;
}

std::vector<CacheVariant> cache_variants(std::size_t layers, std::size_t H, std::size_t G, std::size_t d_k, std::size_t d_v,
                                         std::size_t dtype_bytes) {
    std::vector<CacheVariant> v;
    const std::size_t g_mid = gqa_groups(H, G);
    v.push_back({"MHA", H, cache_bytes_per_token(layers, H, d_k, d_v, dtype_bytes), G == H});
    if (g_mid) v.push_back({"GQA", g_mid, cache_bytes_per_token(layers, g_mid, d_k, d_v, dtype_bytes), G == g_mid});
    if (H > 1) v.push_back({"MQA", 1, cache_bytes_per_token(layers, 1, d_k, d_v, dtype_bytes), G == 1});
    return v;
}

DecodeTrace run_decode(const Inputs& in, const Settings& settings, const RunHooks& hooks) {
    // 1. the kind must decode; the full causal pass checks everything else and draws the parameters
    const Kind& kind = kind_named(settings.kind);
    if (!kind_decodes(kind))
        usage_error("kind '" + settings.kind + "' does not decode token by token",
                    "decode takes kinds whose keys come from the sentence: " + decoding_kinds());
    Settings c = settings;
    c.causal = true, c.dropout = 0.0f, c.keep_weights = true, c.renorm = false, c.bottom_right = false;
    DecodeTrace d;
    d.full = run_attention(in, c, hooks);
    // 2. the cache's geometry, from the registry: H, G, d_k, d_v
    const HeadGeometry g = kind.geometry(c, in.source_x.shape(1));
    d.heads = g.heads, d.kv_heads = g.kv_heads, d.d_k = g.d_k, d.d_v = g.d_v;
    // 3. the steps, one token at a time
    const std::size_t T = in.tokens.size();
    std::vector<Mat> keys(d.kv_heads, Mat::from_shape({0, d.d_k})), values(d.kv_heads, Mat::from_shape({0, d.d_v}));
    for (std::size_t t = 0; t < T; ++t) {
        d.steps.push_back(step(in, c, d, t, keys, values));
        if (hooks.progress) hooks.progress("steps", t + 1, T);
    }
    // 4. each step against row t of the full pass (and the full pass's future weights are 0)
    for (const DecodeStep& s : d.steps) {
        for (const DecodeHeadStep& h : s.heads)
            for (std::size_t j = 0; j < T; ++j) {
                const double want = d.full.heads()[h.head].weights(s.step, j);
                const double got = j <= s.step ? double(h.weights[j]) : 0.0;
                d.max_abs_diff = std::max(d.max_abs_diff, std::fabs(got - want));
            }
        for (std::size_t o = 0; o < s.output.size(); ++o)
            d.max_abs_diff = std::max(d.max_abs_diff, std::fabs(double(s.output[o]) - double(d.full.output(s.step, o))));
    }
    // 5. what the cache would cost with G = H, a G between, and G = 1
    d.variants = cache_variants(d.layers, d.heads, d.kv_heads, d.d_k, d.d_v);
    return d;
}

}  // namespace attn
