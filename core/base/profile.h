// Time spent per stage of a run, for `attn bench`. A run with RunHooks::profile set adds each
// stage's wall time here; without it nothing is measured.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>

namespace attn {

// init: drawing the parameters (PyTorch's generator), which a forward pass does not include.
enum class ProfileStage : std::size_t { projections, scores, softmax, context, output, tiles, init, count };
constexpr std::size_t kProfileStageCount = static_cast<std::size_t>(ProfileStage::count);
constexpr std::array<const char*, kProfileStageCount> kStageNames = {
    "projections", "scores", "softmax", "context", "output", "tiles", "init"};

struct Profile {
    std::array<double, kProfileStageCount> seconds{};
};

// Adds the time from construction to destruction to one stage of a profile (if any).
class StageTimer {
public:
    StageTimer(Profile* p, ProfileStage s) : p_(p), s_(s), start_(std::chrono::steady_clock::now()) {}
    ~StageTimer() {
        if (p_ != nullptr)
            p_->seconds[static_cast<std::size_t>(s_)] +=
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }
    StageTimer(const StageTimer&) = delete;
    StageTimer& operator=(const StageTimer&) = delete;

private:
    Profile* p_;
    ProfileStage s_;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace attn
