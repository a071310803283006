#include "HeapUsage.h"
#if defined(__linux__)
#include <malloc.h>
#endif

size_t heap_bytes_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    // Chunks in use in every arena, and the large blocks malloc maps on their own (arrays of 128 KB and more).
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
#else
    return 0;
#endif
}
