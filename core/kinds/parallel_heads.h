// The heads of a seeded kind on the pool's threads (core/base/ops.h parallel_each), their traces kept in
// head order and their stage times shared out of the heads' wall time.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

#include "core/base/ops.h"
#include "core/base/profile.h"
#include "core/base/settings.h"
#include "core/base/trace.h"

namespace attn {

// head(h, hooks, trace) for h < H on the pool's threads, each thread taking the next undone head (its
// products and softmax then run on that thread): the heads' traces appended to t in head order, their
// empty rows too. Each head times its stages in its own profile; the heads' wall time is then shared
// among the stages in proportion, so that a bench's stages still add up to its total.
template <class Head>
void parallel_heads(std::size_t H, std::size_t work_per_head, const RunHooks& hk, Trace& t, const Head& head) {
    std::vector<HeadTrace> out(H);
    std::vector<std::vector<std::size_t>> empty(H);
    std::vector<Profile> profiles(H);
    std::mutex progress_mutex;
    std::size_t done = 0;
    const auto t0 = std::chrono::steady_clock::now();
    parallel_each(H, work_per_head, [&](std::size_t h) {
        RunHooks mine;
        mine.profile = hk.profile ? &profiles[h] : nullptr;
        Trace scratch;  // receives the head's empty rows
        out[h] = head(h, mine, scratch);
        empty[h] = std::move(scratch.empty_rows);
        if (!hk.progress) return;
        const std::lock_guard<std::mutex> lock(progress_mutex);
        hk.progress("heads", ++done, H);
    });
    for (std::size_t h = 0; h < H; ++h) {
        t.heads().push_back(std::move(out[h]));
        t.empty_rows.insert(t.empty_rows.end(), empty[h].begin(), empty[h].end());
    }
    if (hk.profile == nullptr) return;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    Profile sum;
    double busy = 0.0;
    for (const Profile& p : profiles)
        for (std::size_t s = 0; s < kProfileStageCount; ++s) sum.seconds[s] += p.seconds[s], busy += p.seconds[s];
    for (std::size_t s = 0; s < kProfileStageCount && busy > 0.0; ++s) hk.profile->seconds[s] += wall * sum.seconds[s] / busy;
}

}  // namespace attn
