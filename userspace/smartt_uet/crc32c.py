# SPDX-License-Identifier: GPL-2.0
"""CRC32C (Castagnoli, reflected polynomial 0x82f63b78, initial value and
final XOR 0xffffffff), the trailer of the transport's packets."""

POLY = 0x82f63b78


def _table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ POLY if c & 1 else c >> 1
        t.append(c)
    return tuple(t)


TABLE = _table()


def crc32c(data, crc=0):
    """CRC32C of data (bytes-like); crc continues an earlier result."""
    c = crc ^ 0xffffffff
    t = TABLE
    for b in data:
        c = t[(c ^ b) & 0xff] ^ (c >> 8)
    return c ^ 0xffffffff
