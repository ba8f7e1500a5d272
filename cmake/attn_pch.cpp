// The translation unit that compiles attn's precompiled header (CMakeLists.txt, ATTN_PCH): the
// third-party headers every library reuses. It defines nothing.
