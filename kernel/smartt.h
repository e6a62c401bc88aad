/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types and prototypes shared inside smartt.ko.
 */
#ifndef SMARTT_H
#define SMARTT_H

#include <linux/types.h>
#include <linux/smartt.h>

#ifndef SMARTT_VERSION
#define SMARTT_VERSION "unknown"
#endif

#endif /* SMARTT_H */
