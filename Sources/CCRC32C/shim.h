// The CPU's CRC-32C instruction (SSE 4.2 `crc32` on x86-64), which Swift cannot name: header-only functions that
// the Swift compiler builds where they are used. Elsewhere `shelf_crc32c_hardware` is 0 and the caller computes
// the checksum in software (ShelfCore's CRC32C).
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)
#include <cpuid.h>

/// 1 when this CPU has the SSE 4.2 `crc32` instruction (CPUID leaf 1, ECX bit 20), else 0.
static inline int shelf_crc32c_hardware(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    return (ecx & bit_SSE4_2) != 0;
}

/// `crc` (not inverted: the caller applies the initial value and the final XOR) updated with `count` bytes at
/// `bytes`, eight at a time. Only call it when `shelf_crc32c_hardware()` is 1.
__attribute__((target("sse4.2")))
static inline uint32_t shelf_crc32c_update(uint32_t crc, const uint8_t *bytes, size_t count) {
    uint64_t wide = crc;
    while (count >= 8) {
        uint64_t word;
        __builtin_memcpy(&word, bytes, 8);
        wide = __builtin_ia32_crc32di(wide, word);
        bytes += 8;
        count -= 8;
    }
    uint32_t narrow = (uint32_t)wide;
    while (count > 0) {
        narrow = __builtin_ia32_crc32qi(narrow, *bytes);
        bytes++;
        count--;
    }
    return narrow;
}
#else
static inline int shelf_crc32c_hardware(void) { return 0; }

static inline uint32_t shelf_crc32c_update(uint32_t crc, const uint8_t *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return crc;
}
#endif
