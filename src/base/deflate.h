/* deflate.h - raw DEFLATE (RFC 1951) compression, for what tlab writes
 * that a browser unpacks (DecompressionStream('deflate-raw')). */
#ifndef TL_DEFLATE_H
#define TL_DEFLATE_H

#include <stddef.h>

#include "util.h"

/* Append the raw DEFLATE stream of in[0..n) to out (no zlib or gzip
 * header): one final block with the fixed Huffman codes. */
void tl_deflate_encode(tl_buf *out, const unsigned char *in, size_t n);

#endif
