// Closes the scope render/stb_begin.h opened.
#pragma GCC diagnostic pop
