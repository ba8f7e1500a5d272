// One function per attention kind (core/kinds/attention.cpp) and the layers each builds.
// Each run_<kind> fills t.heads() (its one set's one layer) and t.output from the inputs and t.params.
#pragma once

#include "core/kinds/kinds.h"

namespace attn {

std::vector<LayerSpec> layers_none(const Settings& c, std::size_t d_src);
std::vector<LayerSpec> layers_qkv(const Settings& c, std::size_t d_src);
std::vector<LayerSpec> layers_wrapper(const Settings& c, std::size_t d_src);
std::vector<LayerSpec> layers_mha(const Settings& c, std::size_t d_src);
std::vector<LayerSpec> layers_additive(const Settings& c, std::size_t d_src);
std::vector<LayerSpec> layers_luong(const Settings& c, std::size_t d_src);

void run_simple(const Inputs& in, const Settings& c, const RunHooks& hooks, TorchGenerator& gen,
             Trace& t);
void run_self(const Inputs& in, const Settings& c, const RunHooks& hooks, TorchGenerator& gen,
             Trace& t);
void run_causal(const Inputs& in, const Settings& c, const RunHooks& hooks, TorchGenerator& gen,
             Trace& t);
void run_mha_wrapper(const Inputs& in, const Settings& c, const RunHooks& hooks, TorchGenerator& gen,
             Trace& t);
void run_mha(const Inputs& in, const Settings& c, const RunHooks& hooks, TorchGenerator& gen,
             Trace& t);
void run_cross(const Inputs& in, const Settings& c, const RunHooks& hooks, TorchGenerator& gen,
             Trace& t);
void run_additive(const Inputs& in, const Settings& c, const RunHooks& hooks, TorchGenerator& gen,
             Trace& t);
void run_luong(const Inputs& in, const Settings& c, const RunHooks& hooks, TorchGenerator& gen,
             Trace& t);
void run_gqa(const Inputs& in, const Settings& c, const RunHooks& hooks, TorchGenerator& gen,
             Trace& t);  // also mqa (G = 1)
void run_local(const Inputs& in, const Settings& c, const RunHooks& hooks, TorchGenerator& gen,
             Trace& t);
void run_flash(const Inputs& in, const Settings& c, const RunHooks& hooks, TorchGenerator& gen,
             Trace& t);

}  // namespace attn
