// libFuzzer target: the whole command line. The input is attn's arguments separated by NUL bytes;
// each run happens in one scratch folder (fuzz/harness.h cli_one), emptied after every input.
// Run with -close_fd_mask=3: attn's own output is not the fuzzer's (its reports still appear).
#include <cstdlib>

#include "fuzz/harness.h"
#include "fuzz/report.h"

namespace {
std::string g_scratch;
void remove_scratch() { attn::fuzz::remove_tree(g_scratch); }
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    g_scratch = attn::fuzz::make_scratch("fuzz-cli");
    std::atexit(remove_scratch);
    attn::fuzz::stdin_from_dev_null();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    attn::fuzz::report(attn::fuzz::cli_one({reinterpret_cast<const char*>(data), size}, g_scratch));
    return 0;
}
