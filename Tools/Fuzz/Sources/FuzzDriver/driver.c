// SwiftPM links an executable with `--defsym main=<Target>_main`, so each fuzz target's entry point
// is defined here and hands control to libFuzzer. Built without `-sanitize=fuzzer`, libFuzzer is
// absent (a weak symbol left null): the target then replays the files named on its command line,
// so the package also builds and runs as a regression replayer.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *, size_t)) __attribute__((weak));

static int replay(int argc, char **argv) {
    for (int index = 1; index < argc; index++) {
        FILE *file = fopen(argv[index], "rb");
        if (!file) { perror(argv[index]); return 1; }
        uint8_t *buffer = NULL;
        size_t size = 0, capacity = 0, got;
        uint8_t chunk[4096];
        while ((got = fread(chunk, 1, sizeof chunk, file)) > 0) {
            if (size + got > capacity) {
                capacity = (size + got) * 2;
                uint8_t *grown = realloc(buffer, capacity);
                if (!grown) { free(buffer); fclose(file); return 1; }
                buffer = grown;
            }
            for (size_t byte = 0; byte < got; byte++) buffer[size + byte] = chunk[byte];
            size += got;
        }
        fclose(file);
        LLVMFuzzerTestOneInput(buffer, size);
        free(buffer);
        printf("replayed %s\n", argv[index]);
    }
    return 0;
}

static int run(int argc, char **argv) {
    if (LLVMFuzzerRunDriver) return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
    return replay(argc, argv);
}

int FuzzJSON_main(int argc, char **argv) { return run(argc, argv); }
int FuzzSettings_main(int argc, char **argv) { return run(argc, argv); }
int FuzzEnvelope_main(int argc, char **argv) { return run(argc, argv); }
int FuzzREST_main(int argc, char **argv) { return run(argc, argv); }
int FuzzGraphQL_main(int argc, char **argv) { return run(argc, argv); }
