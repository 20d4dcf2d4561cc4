#ifndef MARBLES_CCHECKSUM_H
#define MARBLES_CCHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/// CRC-32C (Castagnoli: polynomial 0x1EDC6F41, reflected as 0x82F63B78; initial value and
/// final XOR 0xFFFFFFFF) of `count` bytes at `bytes`, continuing from `crc`, the checksum of
/// the bytes before them (0 to start). The checksum of the binary trace encoding's chunks
/// since encoding 2.0: x86-64 computes it with SSE 4.2's `crc32` instruction where the
/// processor has it (eight bytes an instruction), anything else with tables.
uint32_t marbles_crc32c(uint32_t crc, const void *bytes, size_t count);

/// The same checksum computed with tables only, whatever the processor: what the
/// instruction's result is checked against.
uint32_t marbles_crc32c_tables(uint32_t crc, const void *bytes, size_t count);

/// Whether `marbles_crc32c` uses the processor's instruction on this machine.
int marbles_crc32c_uses_instruction(void);

#endif
