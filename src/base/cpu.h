/* cpu.h - what the x86-64 CPU and its OS support, probed once.
 *
 * The binary is built for the baseline ISA; the SHA-256 block function and
 * the CPU backend's loops pick wider code at run time from these bits.
 * Owns nothing.
 */
#ifndef TL_CPU_H
#define TL_CPU_H

#ifdef __cplusplus
extern "C" {
#endif

enum {
    TL_CPU_SSSE3 = 1u << 0,
    TL_CPU_SSE41 = 1u << 1,
    TL_CPU_SHA = 1u << 2,     /* the SHA extensions (with SSSE3 and SSE4.1) */
    TL_CPU_F16C = 1u << 3,    /* with AVX state enabled by the OS */
    TL_CPU_FMA = 1u << 4,
    TL_CPU_AVX2 = 1u << 5,
    TL_CPU_AVX512F = 1u << 6, /* with ZMM state enabled by the OS */
};

/* The TL_CPU_* bits of this machine (0 off x86-64). The first call runs
 * cpuid three times (leaves 0, 1 and 7; under a hypervisor each one traps,
 * 2.5 us here) and xgetbv; later calls, from any thread, read the cache. */
unsigned tl_cpu_features(void);

#ifdef __cplusplus
}
#endif

#endif
