// The font faces behind text in images: the embedded DejaVu Sans, --font FILE and fontconfig's fallbacks.
#include "render/text/font_faces.h"
#include "render/text/font.h"

#include <fontconfig/fontconfig.h>
#include <hb-ft.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <stdexcept>

#include "data/base/error.h"
#include "data/base/files.h"

// 1. The font file, embedded at build time. ATTN_FONT_PATH (set by CMakeLists.txt to DejaVuSans.ttf from
//    fonts-dejavu-core) is pasted into an assembler .incbin; CMake's OBJECT_DEPENDS on the font rebuilds
//    this file when it changes. GNU as and clang's integrated assembler both understand this (ELF targets).
#ifndef ATTN_FONT_PATH
#error "ATTN_FONT_PATH must name the TrueType file to embed (CMakeLists.txt defines it for attn_render)"
#endif

asm(".pushsection .rodata\n"
    ".balign 16\n"
    ".globl attn_embedded_font_begin\n"
    ".hidden attn_embedded_font_begin\n"
    "attn_embedded_font_begin:\n"
    ".incbin \"" ATTN_FONT_PATH "\"\n"
    ".globl attn_embedded_font_end\n"
    ".hidden attn_embedded_font_end\n"
    "attn_embedded_font_end:\n"
    ".byte 0\n"
    ".popsection\n");

extern "C" {
extern const unsigned char attn_embedded_font_begin[];
extern const unsigned char attn_embedded_font_end[];
}

namespace attn::render {

std::string_view embedded_font() {
    const auto n = static_cast<std::size_t>(attn_embedded_font_end - attn_embedded_font_begin);
    return {reinterpret_cast<const char*>(attn_embedded_font_begin), n};
}

namespace {

constexpr const char* kFontHint = "give a TrueType or OpenType file, e.g. /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

// Opens face `index` of a font in memory (bytes outlive the face) or, when bytes is empty, of a file.
// Returns nullptr unless FreeType opens it and it is scalable (outlines, not only bitmaps).
FT_Face open_face(FT_Library lib, std::string_view bytes, const std::string& path, int index) {
    FT_Face f = nullptr;
    const FT_Error err = bytes.empty()
        ? FT_New_Face(lib, path.c_str(), index, &f)
        : FT_New_Memory_Face(lib, reinterpret_cast<const FT_Byte*>(bytes.data()), static_cast<FT_Long>(bytes.size()),
                             index, &f);
    if (err != 0) return nullptr;
    if (!FT_IS_SCALABLE(f)) {
        FT_Done_Face(f);
        return nullptr;
    }
    return f;
}

// Why a face's global metrics are absurd ("" when they are not): an em below 16 units (FreeType's own
// floor, and the OpenType spec's), or a glyph box, an advance or a line height over kMaxFontEms ems. A
// font whose head.unitsPerEm is cut from 2048 to 16 draws each glyph 128 times too large: a 6-token
// figure then asked for a 201362 x 21044 canvas.
std::string absurd_metrics(FT_Face f) {
    const long em = f->units_per_EM;
    if (em < 16) return "its em is " + std::to_string(em) + " units (at least 16)";
    const auto ems = [em](long units) { return double(units) / double(em); };
    const double box_w = ems(f->bbox.xMax - f->bbox.xMin), box_h = ems(f->bbox.yMax - f->bbox.yMin);
    const double advance = ems(f->max_advance_width), line = ems(long(f->ascender) - long(f->descender));
    const double worst = std::max({box_w, box_h, advance, line});
    if (!(worst <= kMaxFontEms)) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "its glyphs reach %.0f ems (units per em %ld; at most %.0f ems)", worst, em, kMaxFontEms);
        return buf;
    }
    return {};
}

std::unique_ptr<Face> make_face(FT_Face ft, std::string name) {
    auto face = std::make_unique<Face>();
    face->name = std::move(name);
    face->ft = ft;
    hb_face_t* hf = hb_ft_face_create_referenced(ft);  // HarfBuzz reads the tables through FreeType
    face->hb = hb_font_create(hf);                     // OpenType metrics, scale set per size
    hb_face_destroy(hf);
    return face;
}

// fontconfig is started once per process (it reads its cache of the system's fonts); queries are
// serialised, since fontconfig's thread safety depends on how it was built.
std::mutex& fc_mutex() {
    static std::mutex m;
    return m;
}
// Released at exit: fontconfig's loaded configuration holds memory nothing else points to, which leak
// checkers (LeakSanitizer) report unless it is destroyed.
struct FcConfigHolder {
    FcConfig* config = FcInitLoadConfigAndFonts();  // nullptr when fontconfig has no configuration
    ~FcConfigHolder() {
        if (config != nullptr) FcConfigDestroy(config);
    }
};
FcConfig* fc_config() {
    static FcConfigHolder holder;
    return holder.config;
}

// The file and face index of fontconfig's best scalable, non-colour "sans-serif" font covering cp.
bool fontconfig_match(char32_t cp, std::string& file, int& index) {
    const std::lock_guard<std::mutex> lock(fc_mutex());
    FcConfig* config = fc_config();
    if (config == nullptr) return false;
    FcPattern* pat = FcPatternCreate();
    FcCharSet* want = FcCharSetCreate();
    FcCharSetAddChar(want, static_cast<FcChar32>(cp));
    FcPatternAddString(pat, FC_FAMILY, reinterpret_cast<const FcChar8*>("sans-serif"));
    FcPatternAddCharSet(pat, FC_CHARSET, want);
    FcPatternAddBool(pat, FC_SCALABLE, FcTrue);
    FcConfigSubstitute(config, pat, FcMatchPattern);
    FcDefaultSubstitute(pat);
    FcResult result = FcResultNoMatch;
    FcFontSet* set = FcFontSort(config, pat, FcFalse, nullptr, &result);
    bool found = false;
    for (int i = 0; set != nullptr && i < set->nfont && !found; ++i) {
        FcPattern* f = set->fonts[i];
        FcCharSet* cs = nullptr;
        FcBool colour = FcFalse, scalable = FcFalse;
        FcChar8* path = nullptr;
        int idx = 0;
        if (FcPatternGetCharSet(f, FC_CHARSET, 0, &cs) != FcResultMatch || !FcCharSetHasChar(cs, static_cast<FcChar32>(cp)))
            continue;
        FcPatternGetBool(f, FC_COLOR, 0, &colour);  // colour emoji fonts hold bitmaps only: not drawable here
        FcPatternGetBool(f, FC_SCALABLE, 0, &scalable);
        if (colour || !scalable || FcPatternGetString(f, FC_FILE, 0, &path) != FcResultMatch) continue;
        FcPatternGetInteger(f, FC_INDEX, 0, &idx);
        file = reinterpret_cast<const char*>(path);
        index = idx;
        found = true;
    }
    if (set != nullptr) FcFontSetDestroy(set);
    FcCharSetDestroy(want);
    FcPatternDestroy(pat);
    return found;
}

}  // namespace

FaceChain::FaceChain(const std::string& font_file) {
    if (FT_Init_FreeType(&lib_) != 0) throw std::runtime_error("FreeType could not start (out of memory?)");
    try {
        // 1. --font FILE, read whole (the same size limit and errors as every file attn reads).
        if (!font_file.empty()) {
            auto bytes = std::make_unique<std::string>(read_file(font_file, "font file"));  // FreeType keeps a pointer
            FT_Face f = open_face(lib_, *bytes, font_file, 0);
            if (f == nullptr) input_error(font_file + ": not a scalable font FreeType can read", kFontHint);
            const std::string absurd = absurd_metrics(f);
            if (!absurd.empty()) {
                FT_Done_Face(f);
                input_error(font_file + ": the font's metrics are absurd: " + absurd, kFontHint);
            }
            faces_.push_back(make_face(f, font_file));
            faces_.back()->bytes = std::move(bytes);
        }
        // 2. The embedded DejaVu Sans.
        builtin_ = static_cast<int>(faces_.size());
        FT_Face f = open_face(lib_, embedded_font(), {}, 0);
        if (f == nullptr)
            throw std::runtime_error("the embedded font could not be opened: rebuild attn with ATTN_FONT set to "
                                     "DejaVuSans.ttf (fonts-dejavu-core)");
        faces_.push_back(make_face(f, "DejaVu Sans (built in)"));
    } catch (...) {
        for (auto& face : faces_) {
            hb_font_destroy(face->hb);
            FT_Done_Face(face->ft);
        }
        FT_Done_FreeType(lib_);
        throw;
    }
}

FaceChain::~FaceChain() {
    for (auto& face : faces_) {
        hb_font_destroy(face->hb);  // releases its reference to the FreeType face
        FT_Done_Face(face->ft);
    }
    FT_Done_FreeType(lib_);
}

bool FaceChain::has(int i, char32_t cp) const {
    return FT_Get_Char_Index(faces_[static_cast<std::size_t>(i)]->ft, static_cast<FT_ULong>(cp)) != 0;
}

int FaceChain::face_for(char32_t cp, int prefer) {
    if (prefer >= 0 && has(prefer, cp)) return prefer;
    for (int i = 0; i <= builtin_; ++i)
        if (has(i, cp)) return i;
    const auto it = fallback_.find(cp);
    if (it != fallback_.end()) return it->second;
    for (int i = builtin_ + 1; i < static_cast<int>(faces_.size()); ++i)  // a fallback already loaded
        if (has(i, cp)) return fallback_[cp] = i;
    return fallback_[cp] = load_fallback(cp);
}

int FaceChain::load_fallback(char32_t cp) {
    std::string file;
    int index = 0;
    if (!fontconfig_match(cp, file, index)) return -1;
    const auto key = std::make_pair(file, index);
    const auto it = by_file_.find(key);
    if (it != by_file_.end()) return it->second >= 0 && has(it->second, cp) ? it->second : -1;
    FT_Face f = open_face(lib_, {}, file, index);
    if (f != nullptr && !absurd_metrics(f).empty()) {  // a broken system font is skipped, as a missing one
        FT_Done_Face(f);
        f = nullptr;
    }
    if (f == nullptr) return by_file_[key] = -1;
    faces_.push_back(make_face(f, file));
    const int i = static_cast<int>(faces_.size()) - 1;
    by_file_[key] = i;
    return has(i, cp) ? i : -1;
}

double check_font_file(const std::string& path) {
    FaceChain chain(path);
    // text in the font against DejaVu Sans (the chain's next face): line height and widest advance, in ems
    const auto ems = [](FT_Face f, long units) { return double(units) / double(f->units_per_EM); };
    const FT_Face font = chain.face(0).ft, dejavu = chain.face(1).ft;
    const double line = ems(font, long(font->ascender) - long(font->descender)) /
                        ems(dejavu, long(dejavu->ascender) - long(dejavu->descender));
    const double advance = ems(font, font->max_advance_width) / ems(dejavu, dejavu->max_advance_width);
    return std::max({1.0, line, advance});
}

}  // namespace attn::render
