/* cpu.c - the one CPU feature probe (cpu.h).
 *
 * cpuid traps to the hypervisor on a VM (2.5 us a call on the machine the
 * benchmarks ran on): the SHA-256 check, the CPU loops' own probe and
 * libgcc's __cpu_indicator_init (behind target_clones) made 20 calls at
 * every start, 50 us of a 1.5 ms `tlab check`. Now there are three, made
 * the first time a caller needs the answer. Invariant: the cached word is
 * written once with the full answer (bit 31 marks it known), so a racing
 * thread either probes again or reads the same bits.
 */
#include "cpu.h"

#include <stdbool.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define TL_CPU_X86 1
#endif

#define KNOWN (1u << 31)

static unsigned probe(void)
{
    unsigned f = 0;
#ifdef TL_CPU_X86
    unsigned a, b, c, d;
    __cpuid(0, a, b, c, d);
    unsigned max = a;
    if (max < 1)
        return 0;
    __cpuid(1, a, b, c, d);
    unsigned c1 = c;
    if (c1 & (1u << 9))
        f |= TL_CPU_SSSE3;
    if (c1 & (1u << 19))
        f |= TL_CPU_SSE41;
    bool ymm = false, zmm = false;
    if (c1 & (1u << 27)) { /* OSXSAVE: xgetbv says which states the OS saves */
        unsigned lo, hi;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        (void)hi;
        ymm = (lo & 6u) == 6u;
        zmm = (lo & 0xe6u) == 0xe6u;
    }
    bool avx = ymm && (c1 & (1u << 28));
    if (avx && (c1 & (1u << 29)))
        f |= TL_CPU_F16C;
    if (avx && (c1 & (1u << 12)))
        f |= TL_CPU_FMA;
    if (max >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        if (avx && (b & (1u << 5)))
            f |= TL_CPU_AVX2;
        if (zmm && (b & (1u << 16)))
            f |= TL_CPU_AVX512F;
        if ((b & (1u << 29)) && (f & TL_CPU_SSSE3) && (f & TL_CPU_SSE41))
            f |= TL_CPU_SHA;
    }
#endif
    return f;
}

unsigned tl_cpu_features(void)
{
    static unsigned cached;
    unsigned v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (!(v & KNOWN)) {
        v = probe() | KNOWN;
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v & ~KNOWN;
}
