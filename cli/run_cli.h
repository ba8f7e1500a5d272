// The whole program as one function (cli/app.cpp): main calls it, the end-to-end fuzzer drives it with
// argument vectors. Apart from cli/cli.h so that main.cpp does not parse CLI11 (about 5 s of CPU per
// translation unit that includes it).
#pragma once

namespace attn::cli {

int run_cli(int argc, const char* const* argv);

}  // namespace attn::cli
