#include "CChecksum.h"

#include <pthread.h>
#include <string.h>

// Eight tables of 256 entries ("slicing by 8"): table k gives the checksum of a byte
// followed by k zero bytes, so eight bytes are folded in per step.
static uint32_t tables[8][256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void make_tables(void) {
    for (uint32_t index = 0; index < 256; index++) {
        uint32_t value = index;
        for (int bit = 0; bit < 8; bit++) value = (value & 1) ? (value >> 1) ^ 0x82F63B78u : value >> 1;
        tables[0][index] = value;
    }
    for (int table = 1; table < 8; table++) {
        for (uint32_t index = 0; index < 256; index++) {
            uint32_t previous = tables[table - 1][index];
            tables[table][index] = (previous >> 8) ^ tables[0][previous & 0xFF];
        }
    }
}

uint32_t marbles_crc32c_tables(uint32_t crc, const void *bytes, size_t count) {
    pthread_once(&tables_once, make_tables);
    const unsigned char *next = bytes;
    uint32_t value = ~crc;
    while (count >= 8) {
        uint32_t low, high;
        memcpy(&low, next, 4);
        memcpy(&high, next + 4, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        low = __builtin_bswap32(low);
        high = __builtin_bswap32(high);
#endif
        low ^= value;
        value = tables[7][low & 0xFF] ^ tables[6][(low >> 8) & 0xFF] ^ tables[5][(low >> 16) & 0xFF]
            ^ tables[4][low >> 24] ^ tables[3][high & 0xFF] ^ tables[2][(high >> 8) & 0xFF]
            ^ tables[1][(high >> 16) & 0xFF] ^ tables[0][high >> 24];
        next += 8;
        count -= 8;
    }
    while (count > 0) {
        value = tables[0][(value ^ *next) & 0xFF] ^ (value >> 8);
        next++;
        count--;
    }
    return ~value;
}

#if defined(__x86_64__)
// Compiled for SSE 4.2 whatever the target's baseline; called only after the processor was
// asked (`__builtin_cpu_supports`).
__attribute__((target("sse4.2")))
static uint32_t crc32c_instruction(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *next = bytes;
    uint64_t value = ~crc;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, next, 8);
        value = __builtin_ia32_crc32di(value, word);
        next += 8;
        count -= 8;
    }
    uint32_t narrow = (uint32_t)value;
    while (count > 0) {
        narrow = __builtin_ia32_crc32qi(narrow, *next);
        next++;
        count--;
    }
    return ~narrow;
}
#endif

int marbles_crc32c_uses_instruction(void) {
#if defined(__x86_64__)
    return __builtin_cpu_supports("sse4.2") ? 1 : 0;
#else
    return 0;
#endif
}

uint32_t marbles_crc32c(uint32_t crc, const void *bytes, size_t count) {
#if defined(__x86_64__)
    // Asked once; threads that ask at the same time store the same answer (relaxed atomics,
    // so the thread sanitizer sees no race).
    static int uses_instruction = -1;
    int uses = __atomic_load_n(&uses_instruction, __ATOMIC_RELAXED);
    if (uses < 0) {
        uses = marbles_crc32c_uses_instruction();
        __atomic_store_n(&uses_instruction, uses, __ATOMIC_RELAXED);
    }
    if (uses) return crc32c_instruction(crc, bytes, count);
#endif
    return marbles_crc32c_tables(crc, bytes, count);
}
