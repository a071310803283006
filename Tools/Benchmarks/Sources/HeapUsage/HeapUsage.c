#include "HeapUsage.h"
#if defined(__GLIBC__)
#include <malloc.h>
size_t heap_usage_in_use(void) { return mallinfo2().uordblks; }
#else
size_t heap_usage_in_use(void) { return 0; }
#endif
