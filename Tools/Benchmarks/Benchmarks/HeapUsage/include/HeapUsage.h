#include <stddef.h>

/// Bytes currently allocated by the process's malloc (glibc's mallinfo2().uordblks); 0 elsewhere.
size_t heap_bytes_in_use(void);
