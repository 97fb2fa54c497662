/* deflate.c - raw DEFLATE (RFC 1951) compression, the encoder only.
 *
 * `tlab autograder web` embeds tlab.wasm in wasm.js for pages opened from
 * file://; deflated, it is a third of the base64 of the raw module, and
 * the page unpacks it with the browser's DecompressionStream('deflate-raw').
 * tlab links no zlib, and only compression is needed, so this is the small
 * half of DEFLATE:
 *   - LZ77 over the 32 KiB window: a hash of the next 3 bytes heads a chain
 *     of the earlier positions with that hash (prev[], indexed modulo the
 *     window); greedy, the longest match of at most CHAIN candidates, the
 *     earliest of equal length, 3..258 bytes, distance 1..32768;
 *   - one final block with the fixed Huffman codes (BTYPE 01), so no code
 *     tables are built or sent: on tlab.wasm (1.45 MB) 612 KB, against
 *     gzip -9's 508 KB with dynamic codes, which would need a length-limited
 *     code builder here. Input without repeats grows by up to 1/8 (bytes
 *     from 144 up take 9 bits), which a wasm module never is.
 * Invariants: a chain visits strictly decreasing positions within the
 * window (a prev[] slot overwritten by a newer position ends the chain);
 * bits go out least significant first, Huffman codes bit-reversed
 * (RFC 1951 3.1.1). The output is deterministic: same input, same bytes.
 */
#include "deflate.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WSIZE 32768
#define WMASK (WSIZE - 1)
#define HBITS 15
#define HSIZE (1 << HBITS)
#define MIN_MATCH 3
#define MAX_MATCH 258
#define CHAIN 256

typedef struct bitw {
    tl_buf *out;
    uint32_t bits;
    int n;
} bitw;

static void put_bits(bitw *w, uint32_t v, int n)
{
    w->bits |= v << w->n;
    w->n += n;
    while (w->n >= 8) {
        tl_buf_putc(w->out, (char)(w->bits & 255));
        w->bits >>= 8;
        w->n -= 8;
    }
}

/* a Huffman code of len bits, most significant bit first */
static void put_code(bitw *w, uint32_t code, int len)
{
    uint32_t r = 0;
    for (int i = 0; i < len; i++, code >>= 1)
        r = r << 1 | (code & 1);
    put_bits(w, r, len);
}

/* the fixed literal/length code (RFC 1951 3.2.6) */
static void put_sym(bitw *w, int sym)
{
    if (sym < 144)
        put_code(w, 0x30 + (uint32_t)sym, 8);
    else if (sym < 256)
        put_code(w, 0x190 + (uint32_t)(sym - 144), 9);
    else if (sym < 280)
        put_code(w, (uint32_t)(sym - 256), 7);
    else
        put_code(w, 0xc0 + (uint32_t)(sym - 280), 8);
}

static const uint16_t len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,
                                      15, 17, 19, 23, 27, 31, 35, 43, 51,  59,
                                      67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {1,    2,    3,    4,    5,    7,     9,     13,
                                       17,   25,   33,   49,   65,   97,    129,   193,
                                       257,  385,  513,  769,  1025, 1537,  2049,  3073,
                                       4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

static void put_match(bitw *w, size_t len, size_t dist)
{
    int i = 28;
    while (len_base[i] > len)
        i--;
    put_sym(w, 257 + i);
    put_bits(w, (uint32_t)(len - len_base[i]), len_extra[i]);
    int d = 29;
    while (dist_base[d] > dist)
        d--;
    put_code(w, (uint32_t)d, 5);
    put_bits(w, (uint32_t)(dist - dist_base[d]), dist_extra[d]);
}

static uint32_t hash3(const unsigned char *p)
{
    return ((uint32_t)p[0] << 10 ^ (uint32_t)p[1] << 5 ^ p[2]) & (HSIZE - 1);
}

void tl_deflate_encode(tl_buf *out, const unsigned char *in, size_t n)
{
    int64_t *head = tl_xmalloc(HSIZE * sizeof *head);
    int64_t *prev = tl_xmalloc(WSIZE * sizeof *prev);
    for (size_t i = 0; i < HSIZE; i++)
        head[i] = -1;
    bitw w = {out, 0, 0};
    put_bits(&w, 1, 1); /* BFINAL */
    put_bits(&w, 1, 2); /* BTYPE 01: fixed codes */
    size_t i = 0;
    /* position p enters its hash chain */
#define INSERT(p)                                                              \
    do {                                                                       \
        uint32_t h_ = hash3(in + (p));                                         \
        prev[(p) & WMASK] = head[h_];                                          \
        head[h_] = (int64_t)(p);                                               \
    } while (0)
    while (i < n) {
        size_t best = 0, dist = 0;
        if (n - i >= MIN_MATCH) {
            size_t max = n - i < MAX_MATCH ? n - i : MAX_MATCH;
            int64_t c = head[hash3(in + i)];
            for (int k = 0; c >= 0 && i - (size_t)c <= WSIZE && k < CHAIN; k++) {
                const unsigned char *a = in + i, *b = in + c;
                if (b[best] == a[best]) {
                    size_t l = 0;
                    while (l < max && a[l] == b[l])
                        l++;
                    if (l > best) {
                        best = l, dist = i - (size_t)c;
                        if (l == max)
                            break;
                    }
                }
                int64_t next = prev[c & WMASK];
                if (next >= c)
                    break;
                c = next;
            }
            INSERT(i);
        }
        if (best >= MIN_MATCH) {
            put_match(&w, best, dist);
            for (size_t k = 1; k < best; k++)
                if (n - (i + k) >= MIN_MATCH)
                    INSERT(i + k);
            i += best;
        } else {
            put_sym(&w, in[i]);
            i++;
        }
    }
#undef INSERT
    put_sym(&w, 256); /* end of block */
    if (w.n > 0)
        put_bits(&w, 0, 8 - w.n);
    free(head);
    free(prev);
}
