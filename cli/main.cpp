#include "cli/run_cli.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

// glibc hands blocks of 128 KiB and more to mmap and returns freed heap tops past 128 KiB to the kernel,
// so each figure's canvas and PNG rows (5.5 MB at the default --scale 2) come back as fresh pages that
// fault in again, page by page. Keeping blocks under 8 MiB in the heap and up to 64 MiB of free heap top
// lets the second and later figures reuse the first one's pages: a 6-token run with three PNGs takes
// 3,600 page faults instead of 6,500. Larger blocks (a model's weights and activations) still use mmap and
// go back to the kernel when freed, as do attn's matrices of 4 MiB and more ((T, T) from 1,024 tokens on),
// which its allocator maps itself (data/base/tensor.h). With a threshold of 32 MiB, the freed matrices
// of a 2,048-token 1-head model run stayed in the two threads' heaps: 239 MiB resident for 192.5 MiB of
// heap in use at the peak (207 MiB resident at 8 MiB).
void keep_figure_pages() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 8 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

}  // namespace

int main(int argc, char** argv) {
    keep_figure_pages();
    return attn::cli::run_cli(argc, argv);
}
