#include "render/backends/encode.h"

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "data/base/threads.h"
#include "render/backends/canvas.h"
#include "render/backends/display_list.h"
#include "render/backends/png_encode.h"
#include "render/backends/svg_surface.h"
#include "render/view/style.h"

namespace attn::render {

namespace {

// A kept figure's PNG, its rows drawn strip by strip (each part's rows on the thread that deflates them).
PngParts png_of(const DisplayList& list) {
    return PngParts(list.width() * list.scale(), list.height() * list.scale(),
                    [&list](int y0, int y1, std::vector<std::uint8_t>& out) {
                        Canvas cv(list.width(), list.height(), kBackground, list.scale(), y0, y1 - y0, std::move(out));
                        list.play(cv);
                        out = cv.take().rgb;
                    });
}

std::string png_bytes(const Drawing& d, int scale) {
    check_canvas(d.width, d.height, scale);
    const DisplayList list(d, scale);
    PngParts png = png_of(list);
    run_tasks(png.tasks(), kMaxPoolThreads, [&](std::size_t i) { png.run(i); });
    return png.file();
}

}  // namespace

std::string encode(const Drawing& d, int scale, FileType type) {
    switch (type) {
        case FileType::png: return png_bytes(d, scale);
        case FileType::svg: return svg_bytes(d, scale);
        case FileType::npy: break;
    }
    throw std::invalid_argument("a figure is written as PNG or SVG, not .npy");
}

namespace {

// PNG figures whose canvases together hold at most this many bytes are kept ahead of their encoding:
// this thread keeps them in turn (laying out and rasterising their text) while the pool draws and
// deflates the strips of the ones already kept. More than this, they are kept and encoded one at a time,
// and one figure's calls are held at once (a heatmap's copied values are a third of its canvas at 1-pixel cells).
constexpr std::uint64_t kDrawnAheadBytes = std::uint64_t{16} << 20;

std::uint64_t canvas_bytes(const Drawing& d, int scale) {
    return std::uint64_t(std::max(d.width, 0)) * std::uint64_t(std::max(d.height, 0)) * std::uint64_t(scale) * std::uint64_t(scale) * 3;
}

// Task 0 keeps every figure in turn; the tasks after it are the figures' PngParts steps, in figure order,
// each waiting until its figure is kept. Task 0 is the first any thread takes, so a waiting step never
// waits for a figure no thread has begun; a failed one releases the waiting steps and is rethrown.
std::vector<std::string> encode_drawn_ahead(const std::vector<Drawing>& drawings, int scale) {
    const std::size_t n = drawings.size();
    for (const Drawing& d : drawings) check_canvas(d.width, d.height, scale);
    std::vector<std::size_t> first(n + 1, 1);  // figure f's steps are tasks [first[f], first[f + 1])
    for (std::size_t f = 0; f < n; ++f)
        first[f + 1] = first[f] + PngParts::tasks(drawings[f].width * scale, drawings[f].height * scale);
    std::vector<std::optional<DisplayList>> lists(n);
    std::vector<std::optional<PngParts>> png(n);
    std::mutex m;
    std::condition_variable kept;
    std::size_t ready = 0;  // figures kept
    bool failed = false;
    run_tasks(first[n], kMaxPoolThreads, [&](std::size_t i) {
        if (i == 0) {
            try {
                for (std::size_t f = 0; f < n; ++f) {
                    lists[f].emplace(drawings[f], scale);
                    png[f].emplace(png_of(*lists[f]));
                    const std::lock_guard<std::mutex> lock(m);
                    ready = f + 1;
                    kept.notify_all();
                }
            } catch (...) {
                const std::lock_guard<std::mutex> lock(m);
                failed = true;
                kept.notify_all();
                throw;
            }
            return;
        }
        const std::size_t f = static_cast<std::size_t>(std::upper_bound(first.begin(), first.end(), i) - first.begin()) - 1;
        {
            std::unique_lock<std::mutex> lock(m);
            kept.wait(lock, [&] { return failed || ready > f; });
            if (failed) return;
        }
        png[f]->run(i - first[f]);
    });
    std::vector<std::string> out;
    for (auto& p : png) out.push_back(p->file());
    return out;
}

}  // namespace

std::vector<std::string> encode_all(const std::vector<Drawing>& drawings, int scale, FileType type) {
    std::uint64_t bytes = 0;
    for (const Drawing& d : drawings) bytes += canvas_bytes(d, scale);
    if (type == FileType::png && drawings.size() > 1 && bytes <= kDrawnAheadBytes && scale >= 1 && scale <= kMaxScale)
        return encode_drawn_ahead(drawings, scale);
    std::vector<std::string> out;
    for (const Drawing& d : drawings) out.push_back(encode(d, scale, type));
    return out;
}

}  // namespace attn::render
