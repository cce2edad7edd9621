// libFuzzer's driver, for a program that has a main of its own (llvm.org/docs/LibFuzzer.html, "Using libFuzzer as
// a library"). Linked by `-sanitize=fuzzer`.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
