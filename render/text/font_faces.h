// The chain of font faces that text in images is drawn from, loaded with FreeType and shaped with
// HarfBuzz. Used by render/text/font.cpp only.
//
// Fallback chain, asked per character in this order (the first face that has a glyph for it wins):
//   1. the font given with --font FILE, if any;
//   2. DejaVu Sans, compiled into the binary and opened from memory (Latin, Greek, Cyrillic, Hebrew,
//      Arabic, many symbols);
//   3. fontconfig's best scalable, non-colour match for "sans-serif" that covers the character (on
//      Debian: WenQuanYi Micro Hei or Droid Sans Fallback for CJK, Symbola for emoji and symbols).
// A character no face covers is drawn as a box and reported once (Font::missing).
//
// Security: only fonts the user names (--font) or the system provides (fontconfig) are parsed, by
// FreeType, which is fuzzed continuously; a font is never taken from an input file.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <ft2build.h>
#include FT_FREETYPE_H
#include <hb.h>

namespace attn::render {

// The bytes of the embedded TrueType font (DejaVu Sans, fonts-dejavu-core), valid for the whole run.
std::string_view embedded_font();

// One font file: its FreeType face (for glyph outlines) and its HarfBuzz font (for shaping).
struct Face {
    std::string name;  // "DejaVu Sans (built in)" or the file's path
    FT_Face ft = nullptr;
    hb_font_t* hb = nullptr;
    std::unique_ptr<std::string> bytes;  // --font's contents (FreeType reads them in place)
};

class FaceChain {
public:
    // Throws attn::Error (runtime) if font_file (when not empty) cannot be read or is not a scalable
    // font FreeType can open; std::runtime_error if FreeType cannot start or the embedded font is bad.
    explicit FaceChain(const std::string& font_file);
    ~FaceChain();
    FaceChain(const FaceChain&) = delete;
    FaceChain& operator=(const FaceChain&) = delete;

    // The face to draw cp with: `prefer` if it has a glyph for it (keeps marks with their base), else
    // the first face of the chain that does, else -1.
    int face_for(char32_t cp, int prefer = -1);
    Face& face(int i) { return *faces_[static_cast<std::size_t>(i)]; }
    const Face& face(int i) const { return *faces_[static_cast<std::size_t>(i)]; }
    int primary() const { return 0; }  // metrics (ascent, descent) come from the first face
    FT_Library library() const { return lib_; }

private:
    bool has(int i, char32_t cp) const;
    int load_fallback(char32_t cp);  // fontconfig's match for cp, loaded (or found loaded); -1 none

    FT_Library lib_ = nullptr;
    std::vector<std::unique_ptr<Face>> faces_;
    int builtin_ = 0;                                     // faces_ before it come from --font
    std::map<char32_t, int> fallback_;                    // cp -> face (or -1), asked of fontconfig once
    std::map<std::pair<std::string, int>, int> by_file_;  // (file, index) -> face
};

}  // namespace attn::render
