# SPDX-License-Identifier: GPL-2.0
"""smartt_uet: `smarttctl decode`, the transport's packets in a capture file
decoded field by field (Documentation/decode.rst).

  fields.py   the wire constants: UET PDS/SES, CRP, DSCP classes
  crc32c.py   the CRC32C of the trailer
  pcap.py     pcap and pcapng files -> (time, link type, bytes)
  net.py      link layer, IPv4/IPv6 and UDP -> addresses, DSCP/ECN, UDP payload
  decode.py   one UDP payload -> its fields and what is malformed about it
  fmt.py      text and JSON output
  cli.py      the command (smarttctl dispatches to it)
"""
