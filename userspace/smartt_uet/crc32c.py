# SPDX-License-Identifier: GPL-2.0
"""CRC32C (Castagnoli, reflected polynomial 0x82f63b78, initial value and
final XOR 0xffffffff), the trailer of the transport's packets.

The trailer covers the IP source and destination addresses (4 + 4 bytes
for IPv4, 16 + 16 for IPv6), then the 8-byte UDP header, then the UDP
payload before the trailer, all as on the wire except the UDP checksum,
taken as 0 (a checksum, if any, is computed after the trailer and covers
it), and holds the CRC little endian (least significant byte first).
"""

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
    """CRC32C of data (bytes-like); crc continues an earlier result
    (crc32c(b, crc32c(a)) == crc32c(a + b))."""
    c = crc ^ 0xffffffff
    t = TABLE
    for b in data:
        c = t[(c ^ b) & 0xff] ^ (c >> 8)
    return c ^ 0xffffffff


def trailer_crc(prefix, body):
    """The CRC32C a trailer holds: over prefix (the addresses and the UDP
    header) and body (the UDP payload before the trailer)."""
    return crc32c(body, crc32c(prefix))


def bswap32(v):
    return int.from_bytes(v.to_bytes(4, "little"), "big")
