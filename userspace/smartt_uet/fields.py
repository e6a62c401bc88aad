# SPDX-License-Identifier: GPL-2.0
"""The wire constants smarttctl decode knows: UET PDS and SES (the
transport's wire format, Documentation/protocol.rst), the project's CRP
control packets (struct smartt_hdr + struct smartt_crp_ext of the uAPI
header) and the fabric's DSCP classes.  Names are the UET names; where the
public sources differ, Documentation/decode.rst says which one is followed.

Sizes are bytes, offsets are from the start of the header named.
"""

UET_PORT = 4793
CRP_PORT = 4794

# PDS prologue: type (5 bits) | next_hdr or ctl_type (4) | flags (7).
PDS_TYPE_SHIFT, PDS_TYPE_MASK = 11, 0x1f
PDS_NH_SHIFT, PDS_NH_MASK = 7, 0xf
PDS_FLAGS_MASK = 0x7f

PDS_TYPES = {
    0: "RESERVED",
    1: "TSS",
    2: "RUD_REQ",
    3: "ROD_REQ",
    4: "RUDI_REQ",
    5: "RUDI_RESP",
    6: "UUD_REQ",
    7: "ACK",
    8: "ACK_CC",
    9: "ACK_CCX",
    10: "NACK",
    11: "CTRL",
    12: "NACK_CCX",
    13: "RUD_CC_REQ",
    14: "ROD_CC_REQ",
}
T_RUD_REQ, T_ROD_REQ, T_RUDI_REQ, T_RUDI_RESP, T_UUD_REQ = 2, 3, 4, 5, 6
T_ACK, T_ACK_CC, T_ACK_CCX, T_NACK, T_CTRL = 7, 8, 9, 10, 11
T_NACK_CCX, T_RUD_CC_REQ, T_ROD_CC_REQ = 12, 13, 14
REQUEST_TYPES = (T_RUD_REQ, T_ROD_REQ, T_RUD_CC_REQ, T_ROD_CC_REQ)
ACK_TYPES = (T_ACK, T_ACK_CC, T_ACK_CCX)
NACK_TYPES = (T_NACK, T_NACK_CCX)
# The types the transport sends (Documentation/protocol.rst); the others
# decode but are noted as not smartt's.
SMARTT_TYPES = (T_RUD_REQ, T_ACK, T_ACK_CC, T_NACK, T_CTRL)

# PDS header sizes, prologue included.
PDS_LEN = {
    T_RUD_REQ: 12, T_ROD_REQ: 12, T_RUD_CC_REQ: 16, T_ROD_CC_REQ: 16,
    T_RUDI_REQ: 8, T_RUDI_RESP: 8, T_UUD_REQ: 4,
    T_ACK: 12, T_ACK_CC: 32, T_ACK_CCX: 40,
    T_NACK: 16, T_NACK_CCX: 32, T_CTRL: 16,
}

NEXT_HDRS = {
    0: "NONE",
    1: "REQ_SMALL",
    2: "REQ_MEDIUM",
    3: "REQ_STD",
    4: "RSP",
    5: "RSP_DATA",
    6: "RSP_DATA_SMALL",
}
NH_NONE, NH_REQ_SMALL, NH_REQ_MEDIUM, NH_REQ_STD = 0, 1, 2, 3
NH_RSP, NH_RSP_DATA, NH_RSP_DATA_SMALL = 4, 5, 6

CTL_TYPES = {
    0: "NOOP",
    1: "ACK_REQ",
    2: "CLEAR",
    3: "CLEAR_REQ",
    4: "CLOSE",
    5: "CLOSE_REQ",
    6: "PROBE",
    7: "CREDIT",
    8: "CREDIT_REQ",
    9: "NEGOTIATION",
}
CTL_PROBE = 6
# What the 32-bit payload of a CTRL packet holds, per ctl_type.
CTL_PAYLOAD = {
    0: "null", 1: "message_id", 2: "clear_psn", 3: "clear_psn", 4: "null",
    5: "null", 6: "sack_base_psn", 7: "credit", 8: "credit_target", 9: "negotiation",
}

# Flag bits (the 7 flag bits of the prologue), per header kind, and the
# bits that must be zero.  Masks of the reference provider and Wireshark.
REQ_FLAGS = (("retx", 0x10), ("ar", 0x08), ("syn", 0x04))
REQ_RSVD = 0x63
ACK_FLAGS = (("m", 0x20), ("retx", 0x10), ("p", 0x08))
# ACK (type 7) only: EPSN, a closing ACK that carries the expected PSN in
# 4 more bytes (the reference provider; reserved in Wireshark).
ACK_EPSN = 0x40
ACK_REQ_MASK, ACK_REQ_SHIFT = 0x06, 1
ACK_REQ_NAMES = {0: "none", 1: "clear", 2: "close", 3: "reserved"}
ACK_RSVD = 0x41         # ACK_CC, ACK_CCX; ACK: 0x01 (EPSN is a flag)
NACK_FLAGS = (("m", 0x20), ("retx", 0x10), ("nt", 0x08))
NACK_RSVD = 0x47
CTRL_FLAGS = (("isrod", 0x20), ("retx", 0x10), ("ar", 0x08), ("syn", 0x04))
CTRL_RSVD = 0x43
RUDI_RSVD = 0x7f
UUD_RSVD = 0x7f

# SYN: the DPDCID field holds pdc_info (4 bits) and psn_offset (12 bits);
# pdc_info's top bit (bit 15 of the field) is "use reserved PDC".
PDC_INFO_SHIFT, PDC_INFO_MASK = 12, 0xf
PDC_INFO_USE_RSV_PDC = 0x8
PSN_OFFSET_MASK = 0x0fff

# ACK_CC/ACK_CCX byte 13: the maximum PSN range (MPR), in units of 128 PSNs
# (2 is a 256-PSN window).
MPR_UNIT = 128

CC_TYPES = {0: "NSCC", 1: "CREDIT"}
CC_NSCC, CC_CREDIT = 0, 1

NACK_CODES = {
    0x01: "TRIMMED",
    0x02: "TRIMMED_LASTHOP",
    0x03: "TRIMMED_ACK",
    0x04: "NO_PDC_AVAIL",
    0x05: "NO_CCC_AVAIL",
    0x06: "NO_BITMAP",
    0x07: "NO_PKT_BUFFER",
    0x08: "NO_GTD_DEL_AVAIL",
    0x09: "NO_SES_MSG_AVAIL",
    0x0a: "NO_RESOURCE",
    0x0b: "PSN_OOR_WINDOW",
    0x0d: "ROD_OOO",
    0x0e: "INV_DPDCID",
    0x0f: "PDC_HDR_MISMATCH",
    0x10: "CLOSING",
    0x11: "CLOSING_IN_ERR",
    0x12: "PKT_NOT_RCVD",
    0x13: "GTD_DEL_RESP_UNAVAIL",
    0x14: "ACK_WITH_DATA",
    0x15: "INVALID_SYN",
    0x16: "PDC_MODE_MISMATCH",
    0x17: "NEW_START_PSN",
    0x18: "RCVD_SES_PROCG",
    0x19: "UNEXP_EVENT",
    0x1a: "RCVR_INFER_LOSS",
    0xfd: "EXP_NACK_NORMAL",
    0xfe: "EXP_NACK_ERR",
    0xff: "EXP_NACK_FATAL",
}
# The transport's own meaning of an experimental code (vendor_code 1).
SMARTT_VENDOR = 1
SMARTT_VENDOR_NACKS = {0xfd: "SPEC_DROPPED"}

# SES standard request, 44 bytes.
SES_STD_LEN = 44
SES_RSP_LEN = 12
SES_OPCODES = {
    0x00: "NO_OP",
    0x01: "WRITE",
    0x02: "READ",
    0x03: "ATOMIC",
    0x04: "FETCHING_ATOMIC",
    0x05: "SEND",
    0x06: "RENDEZVOUS_SEND",
    0x07: "DATAGRAM_SEND",
    0x08: "DEFERRABLE_SEND",
    0x09: "TAGGED_SEND",
    0x0a: "RENDEZVOUS_TSEND",
    0x0b: "DEFERRABLE_TSEND",
    0x0c: "DEFERRABLE_RTR",
    0x0d: "TSEND_ATOMIC",
    0x0e: "TSEND_FETCH_ATOMIC",
    0x0f: "MSG_ERROR",
}
SES_SEND = 0x05
SES_FLAGS = (("dc", 0x20), ("ie", 0x10), ("rel", 0x08), ("hd", 0x04), ("eom", 0x02),
             ("som", 0x01))
# REL: relative addressing, the PIDonFEP is looked up within the JobID (set
# on every request the transport sends); clear: absolute.
SES_REL = 0x08
SES_REL_NAMES = {False: "absolute", True: "relative"}
SES_PAYLOAD_LEN_MASK = 0x3fff

SES_RSP_OPCODES = {0: "DEFAULT_RESPONSE", 1: "RESPONSE", 2: "RESPONSE_W_DATA",
                   3: "NO_RESPONSE"}
SES_RETURN_CODES = {
    0x00: "RC_NULL",
    0x01: "RC_OK",
    0x02: "RC_BAD_GENERATION",
    0x03: "RC_DISABLED",
    0x04: "RC_DISABLED_GEN",
    0x05: "RC_NO_MATCH",
    0x06: "RC_UNSUPPORTED_OP",
    0x07: "RC_UNSUPPORTED_SIZE",
    0x08: "RC_AT_INVALID",
    0x09: "RC_AT_PERM",
    0x0a: "RC_AT_ATS_ERROR",
    0x0b: "RC_AT_NO_TRANS",
    0x0c: "RC_AT_OUT_OF_RANGE",
    0x0d: "RC_HOST_POISONED",
    0x0e: "RC_HOST_UNSUCCESS_CMPL",
    0x0f: "RC_AMO_UNSUPPORTED_OP",
    0x10: "RC_AMO_UNSUPPORTED_DT",
    0x11: "RC_AMO_UNSUPPORTED_SIZE",
    0x12: "RC_AMO_UNALIGNED",
    0x13: "RC_AMO_FP_NAN",
    0x14: "RC_AMO_FP_UNDERFLOW",
    0x15: "RC_AMO_FP_OVERFLOW",
    0x16: "RC_AMO_FP_INEXACT",
    0x17: "RC_PERM_VIOLATION",
    0x18: "RC_OP_VIOLATION",
    0x19: "RC_BAD_INDEX",
    0x1a: "RC_BAD_PID",
    0x1b: "RC_BAD_JOB_ID",
    0x1c: "RC_BAD_MKEY",
    0x1d: "RC_BAD_ADDR",
    0x1e: "RC_CANCELLED",
    0x1f: "RC_UNDELIVERABLE",
    0x20: "RC_UNCOR",
    0x21: "RC_UNCOR_TRNSNT",
    0x22: "RC_TOO_LONG",
    0x23: "RC_INITIATOR_ERR",
    0x24: "RC_DROPPED",
}

# The CRC32C trailer of every untrimmed packet (no TSS): over the IP
# addresses, the UDP header and the UDP payload before it, little endian
# (crc32c.py).
CRC_LEN = 4

# The fabric's DSCP classes and their defaults (Documentation/decode.rst,
# the transport's dscp_* sysctls, smartt-fabric up's knobs).
DSCP_DEFAULTS = (
    ("trimmable", 10),
    ("trimmed", 12),
    ("trimmed_lasthop", 14),
    ("control", 46),
    ("crp_spec", 8),
    ("crp_granted", 18),
    ("crp_spec_dropped", 16),
)
DSCP_TRIMMED_CLASSES = ("trimmed", "trimmed_lasthop", "crp_spec_dropped")
DSCP_DATA_CLASSES = ("trimmable", "crp_spec", "crp_granted") + DSCP_TRIMMED_CLASSES
# A switch cuts a trimmed packet to this many bytes of UDP payload: the
# PDS request and the SES standard header.
TRIM_BYTES = 56

ECN_NAMES = {0: "Not-ECT", 1: "ECT(1)", 2: "ECT(0)", 3: "CE"}

# CRP control packets: struct smartt_hdr (64 bytes) + struct
# smartt_crp_ext (80 bytes), all fields big endian.
SMARTT_MAGIC = 0x5374
SMARTT_CRP_VERSIONS = (2,)
SMARTT_HDR_LEN = 64
SMARTT_CRP_EXT_LEN = 80
SMARTT_CRP_HLEN = SMARTT_HDR_LEN + SMARTT_CRP_EXT_LEN
CRP_TYPES = {7: "CRP_REQ", 8: "CRP_GRANT", 9: "CRP_RETRY"}
# (name, struct format) in wire order.
SMARTT_HDR_FIELDS = (
    ("magic", "H"), ("version", "B"), ("type", "B"), ("flags", "H"), ("trim_ttl", "B"),
    ("hdr_words", "B"), ("entropy", "I"), ("conn_id", "I"), ("psn", "Q"),
    ("payload_len", "H"), ("reserved", "H"), ("reserved2", "I"), ("tx_ts_ns", "Q"),
    ("rx_ts_ns", "Q"), ("echo_tx_ts_ns", "Q"), ("echo_rx_ts_ns", "Q"),
)
SMARTT_CRP_EXT_FIELDS = (
    ("sport", "H"), ("dport", "H"), ("epoch", "I"), ("msg_id", "Q"), ("seg_off", "Q"),
    ("seg_len", "I"), ("req_bytes", "I"), ("tag", "I"), ("crp_flags", "H"),
    ("retries", "H"), ("slot_base", "Q"), ("vec", "Q"), ("grant_slot", "Q"),
    ("grant_offset", "I"), ("retry_after_ns", "I"), ("grant_ns", "Q"),
)
CRP_FLAGS = (("dest_done", 0x0001), ("no_slot", 0x0002), ("dest_full", 0x0004),
             ("converted", 0x0008))
CRP_FLAGS_KNOWN = 0x000f
