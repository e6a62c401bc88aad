/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the shared test vectors (userspace unit tests and KUnit).
 */
#ifndef SMARTT_VECTORS_COMMON_H
#define SMARTT_VECTORS_COMMON_H

/* a mod n without a raw 64-bit %, for code that also builds in the kernel */
static inline u64 vec_mod(u64 a, u64 n)
{
	return a - div64_u64(a, n) * n;
}

#endif /* SMARTT_VECTORS_COMMON_H */
