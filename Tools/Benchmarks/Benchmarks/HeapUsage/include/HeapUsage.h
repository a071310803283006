#include <stddef.h>

/// Bytes currently allocated by the process's malloc: chunks in use in every arena and blocks mapped on their
/// own (glibc's mallinfo2(): uordblks + hblkhd); 0 elsewhere.
size_t heap_bytes_in_use(void);
