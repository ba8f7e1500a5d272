// The whole program as one function (cli/app.cpp): main calls it, the end-to-end fuzzer drives it with
// argument vectors. Apart from cli/cli.h so that main.cpp does not include CLI11, which cost it 6.0 s
// of CPU (GCC 12, -O3: CLI11 defines static validator objects that every includer compiles).
#pragma once

namespace attn::cli {

int run_cli(int argc, const char* const* argv);

}  // namespace attn::cli
