/*
 * mock_fp8.h - an fp8 byte as a double, for the mock driver and the mock
 * cuBLASLt (separate shared libraries, each with its copy of this inline
 * function): e4m3 (OCP's E4M3FN: no infinities, 0x7f and 0xff NaN) or
 * e5m2 (IEEE-like), decoded from their fields with ldexp, independently
 * of the runtime's dtype table (contract/dtype.c), which the mocks test.
 */
#ifndef CUTEC_TESTS_MOCK_FP8_H
#define CUTEC_TESTS_MOCK_FP8_H

#include <math.h>
#include <stdint.h>

static inline double mock_fp8_value(uint8_t x, int e5m2)
{
    int mbits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
    int e = (x & 0x7f) >> mbits, m = x & ((1 << mbits) - 1);
    double sign = (x & 0x80) ? -1.0 : 1.0;
    if (!e5m2 && (x & 0x7f) == 0x7f) return NAN;
    if (e5m2 && e == 31) return m ? NAN : sign * INFINITY;
    if (e == 0) return sign * ldexp((double)m, 1 - bias - mbits);
    return sign * ldexp((double)((1 << mbits) + m), e - bias - mbits);
}

#endif
