// libFuzzer target: the bytes as a --font file for a small show run's figures (fuzz/harness.h font_one).
// Seeds: fuzz/corpus/font/, written by fuzz/make_font_seeds.py (tiny TrueType fonts, the small-em one of
// issue 21 among them).
#include <string>

#include "fuzz/harness.h"
#include "fuzz/report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string scratch = attn::fuzz::make_scratch("font");
    attn::fuzz::report(attn::fuzz::font_one({reinterpret_cast<const char*>(data), size}, scratch));
    return 0;
}
