// decode() of tests/png_helpers.h: the tests' one copy of stb_image.
#include "tests/png_helpers.h"

#include "render/backends/stb_begin.h"
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>
#include "render/backends/stb_end.h"

namespace attn::test::png {

Decoded decode(const std::string& png) {
    int w = 0, h = 0, n = 0;
    unsigned char* p = stbi_load_from_memory(reinterpret_cast<const unsigned char*>(png.data()),
                                             static_cast<int>(png.size()), &w, &h, &n, 3);
    REQUIRE_MESSAGE(p != nullptr, "stb_image could not decode the PNG");
    Decoded d{w, h, std::vector<std::uint8_t>(p, p + static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3)};
    stbi_image_free(p);
    return d;
}

}  // namespace attn::test::png
