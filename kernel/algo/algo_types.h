/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The only file of kernel/algo/ that knows where it is being built.
 *
 * kernel/algo/ is pure C: no struct sock, no sk_buff, no locks, no
 * allocation, no clock, no floating point.  The same sources build into
 * smartt.ko (__KERNEL__), into the userspace unit tests, the replayer and
 * the fuzzer (hosted C), and, for header-only parts, into BPF programs
 * (__bpf__).  This header gives all of them the kernel's vocabulary:
 * u8..u64/s8..s64, bool, min_t()/max_t()/clamp_t(), div_u64(),
 * div64_u64(), div64_s64(), div_u64_rem(), U32_MAX/U64_MAX,
 * likely()/unlikely(), __always_inline, noinline, static_assert(), plus
 * SMARTT_EINVAL (a negative errno in every
 * environment) and the overflow-checking builtins wrapped as
 * smartt_mul_overflow()/smartt_add_overflow().
 */
#ifndef SMARTT_ALGO_TYPES_H
#define SMARTT_ALGO_TYPES_H

#if defined(__KERNEL__)

#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/errno.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>

#define SMARTT_EINVAL	(-EINVAL)

#elif defined(__bpf__)

/* BPF programs include vmlinux.h (or linux/types.h) before this file. */
#ifndef U8_MAX
#define U8_MAX		((u8)~0U)
#endif
#ifndef U16_MAX
#define U16_MAX		((u16)~0U)
#endif
#ifndef U32_MAX
#define U32_MAX		((u32)~0U)
#endif
#ifndef S32_MAX
#define S32_MAX		((s32)(U32_MAX >> 1))
#endif
#ifndef U64_MAX
#define U64_MAX		((u64)~0ULL)
#endif
#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif
#define min_t(type, a, b) ({ type __a = (a); type __b = (b); __a < __b ? __a : __b; })
#define max_t(type, a, b) ({ type __a = (a); type __b = (b); __a > __b ? __a : __b; })
#define clamp_t(type, v, lo, hi)	min_t(type, max_t(type, v, lo), hi)
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
/*
 * The cores build into BPF too (the struct_ops congestion controls and
 * smartt-replay --bpf): compiled with -fvisibility=hidden, their external
 * functions become static BPF subprograms, verified in their callers'
 * context.  BPF has no signed 64-bit division before cpu v4: the cores
 * use none (div64_s64() is deliberately missing here).
 */
#ifndef static_assert
#define static_assert(expr, ...)	extern int smartt_static_assert[(expr) ? 1 : -1]
#endif
/*
 * BPF calls take at most five arguments, and some of the cores' helpers
 * take six: in BPF every function of the cores is inlined (the BPF
 * wrappers apply always_inline to the cores' files), so the markers that
 * keep the C build small have no meaning there.
 */
#undef noinline
#define noinline
static __always_inline u64 div64_u64(u64 a, u64 b) { return a / b; }
static __always_inline u64 div_u64(u64 a, u32 b) { return a / b; }
static __always_inline u64 div_u64_rem(u64 a, u32 b, u32 *r)
{
	*r = a % b;
	return a / b;
}

#define SMARTT_EINVAL	(-22)

#else /* hosted C: unit tests, smartt-replay, fuzzers */

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/cdefs.h>
#include <linux/types.h>

/* The kernel's own spellings, from the uAPI types (as tools/include does). */
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

#define U8_MAX		((u8)~0U)
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define S32_MAX		((s32)(U32_MAX >> 1))
#define U64_MAX		((u64)~0ULL)
#define S64_MAX		((s64)(U64_MAX >> 1))

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
/* glibc's <sys/cdefs.h> provides __always_inline and the noinline spelling */
#define noinline	__attribute_noinline__
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#define min_t(type, a, b) ({ type __a = (a); type __b = (b); __a < __b ? __a : __b; })
#define max_t(type, a, b) ({ type __a = (a); type __b = (b); __a > __b ? __a : __b; })
#define clamp_t(type, v, lo, hi)	min_t(type, max_t(type, v, lo), hi)

static inline u64 div_u64(u64 dividend, u32 divisor) { return dividend / divisor; }
static inline u64 div64_u64(u64 dividend, u64 divisor) { return dividend / divisor; }
static inline s64 div64_s64(s64 dividend, s64 divisor) { return dividend / divisor; }
static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

/* Userspace has no errno.h dependency here: EINVAL is 22 on Linux. */
#define SMARTT_EINVAL	(-22)

#endif

/*
 * GCC and clang builtins, available to the kernel (check_mul_overflow() is
 * built on them) and to hosted C.  BPF has no 128-bit multiply, which the
 * 64-bit multiply builtin needs (clang also turns a division-based check
 * into it), so BPF programs check with 32-bit halves.
 */
#if defined(__bpf__)
static __always_inline bool smartt_mul_overflow(u64 a, u64 b, u64 *d)
{
	u64 lo = (a & U32_MAX) * (b & U32_MAX), cross;

	*d = a * b;
	if (!((a | b) >> 32))
		return false;
	if ((a >> 32) && (b >> 32))
		return true;
	/* one high half is 0: the cross product is 32 x 32 bits */
	cross = (a >> 32) * (b & U32_MAX) + (b >> 32) * (a & U32_MAX);
	return (cross + (lo >> 32)) >> 32;
}
#else
#define smartt_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)
#endif
#define smartt_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)

/*
 * smartt_hide_u64() - @v, with everything the compiler knows of its value
 * forgotten (the kernel's OPTIMIZER_HIDE_VAR()).  Branch-free code for the
 * BPF verifier uses it: otherwise the compiler turns a - b >> 63 back into
 * a compare, which BPF has only as a branch.
 */
static __always_inline u64 smartt_hide_u64(u64 v)
{
#if defined(__KERNEL__)
	OPTIMIZER_HIDE_VAR(v);
#else
	__asm__ ("" : "+r" (v));
#endif
	return v;
}

#endif /* SMARTT_ALGO_TYPES_H */
