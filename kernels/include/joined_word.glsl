// Runs of bytes that start 2 bytes into a 32-bit word (Q6_K's 210-byte blocks are only 2-byte
// aligned) read as whole words and joined.
#ifndef PB_JOINED_WORD_GLSL
#define PB_JOINED_WORD_GLSL

// A word of such a run: lo itself, or, where the run starts 2 bytes into its first word
// (`shifted`), the upper half of lo joined to the lower half of hi.
uint joined_word(uint lo, uint hi, bool shifted) { return shifted ? (lo >> 16) | (hi << 16) : lo; }

#endif
