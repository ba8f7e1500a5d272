// Closes the scope render/backends/stb_begin.h opened.
#pragma GCC diagnostic pop
