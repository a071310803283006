#ifndef HEAP_USAGE_H
#define HEAP_USAGE_H
#include <stddef.h>

/// Bytes of heap in use, from glibc's mallinfo2 (0 where it does not exist).
size_t heap_usage_in_use(void);

#endif
