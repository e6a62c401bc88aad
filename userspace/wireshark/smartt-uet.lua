-- SPDX-License-Identifier: GPL-2.0
--
-- smartt-uet.lua: Wireshark/tshark dissector for the smartt transport's
-- packets: UET PDS (RUD requests, ACK/ACK_CC, NACK, CTRL and the other PDS
-- types) with the SES standard request and response headers and the
-- CRC32C trailer on UDP port 4793, and the project's own CRP control
-- packets (struct smartt_hdr + struct smartt_crp_ext, a vendor-specific
-- protocol) on UDP port 4794.  For Wireshark versions without a UET
-- dissector (Debian bookworm's 4.0); filter names are uet.pds.*, uet.ses.*,
-- uet.crc.*, uet.dscp_class and smartt_crp.*.  Where this Wireshark has its
-- own "uet" protocol, this one registers as "smartt_uet" instead.
--
-- Every field is checked against the packet's own lengths, like
-- `smarttctl decode` (userspace/smartt_uet/, the same checks and messages):
-- what is malformed raises expert info (group Malformed, severity error).
-- The CRC32C trailer covers the IP source and destination addresses, the
-- UDP header and the UDP payload before it, as on the wire, and holds the
-- CRC little endian: the dissector gets the addresses and the UDP header
-- from the IP and UDP dissectors' fields (the innermost IP header before
-- the UDP header); without them the CRC is "unchecked", not bad.
-- Preferences (Protocols > UET): the ports, the DSCP of each class and the
-- trim size.  Documentation/decode.rst.
--
-- tshark -X lua_script:smartt-uet.lua -r capture.pcap -V, or installed in
-- the Lua plugin directory by `make install`.

local PFX = "uet"
for _, name in ipairs(Dissector.list()) do
    if name == "uet" then
        PFX = "smartt_uet"
    end
end

local uet = Proto(PFX, "Ultra Ethernet Transport (smartt)")
local crp = Proto("smartt_crp", "smartt CRP control (vendor-specific)")

local band, bor, bxor, lshift, rshift = bit32.band, bit32.bor, bit32.bxor, bit32.lshift,
    bit32.rshift

-- ---- names --------------------------------------------------------------

local PDS_TYPES = {
    [0] = "RESERVED", [1] = "TSS", [2] = "RUD_REQ", [3] = "ROD_REQ", [4] = "RUDI_REQ",
    [5] = "RUDI_RESP", [6] = "UUD_REQ", [7] = "ACK", [8] = "ACK_CC", [9] = "ACK_CCX",
    [10] = "NACK", [11] = "CTRL", [12] = "NACK_CCX", [13] = "RUD_CC_REQ", [14] = "ROD_CC_REQ",
}
local PDS_LEN = {
    [2] = 12, [3] = 12, [13] = 16, [14] = 16, [4] = 8, [5] = 8, [6] = 4,
    [7] = 12, [8] = 32, [9] = 40, [10] = 16, [12] = 32, [11] = 16,
}
local SMARTT_TYPES = { [2] = true, [7] = true, [8] = true, [10] = true, [11] = true }
local REQUEST = { [2] = true, [3] = true, [13] = true, [14] = true }
local ACKS = { [7] = true, [8] = true, [9] = true }
local NACKS = { [10] = true, [12] = true }
local NEXT_HDRS = {
    [0] = "NONE", [1] = "REQ_SMALL", [2] = "REQ_MEDIUM", [3] = "REQ_STD", [4] = "RSP",
    [5] = "RSP_DATA", [6] = "RSP_DATA_SMALL",
}
local CTL_TYPES = {
    [0] = "NOOP", [1] = "ACK_REQ", [2] = "CLEAR", [3] = "CLEAR_REQ", [4] = "CLOSE",
    [5] = "CLOSE_REQ", [6] = "PROBE", [7] = "CREDIT", [8] = "CREDIT_REQ", [9] = "NEGOTIATION",
}
local CC_TYPES = { [0] = "NSCC", [1] = "CREDIT" }
local NACK_CODES = {
    [0x01] = "TRIMMED", [0x02] = "TRIMMED_LASTHOP", [0x03] = "TRIMMED_ACK",
    [0x04] = "NO_PDC_AVAIL", [0x05] = "NO_CCC_AVAIL", [0x06] = "NO_BITMAP",
    [0x07] = "NO_PKT_BUFFER", [0x08] = "NO_GTD_DEL_AVAIL", [0x09] = "NO_SES_MSG_AVAIL",
    [0x0a] = "NO_RESOURCE", [0x0b] = "PSN_OOR_WINDOW", [0x0d] = "ROD_OOO",
    [0x0e] = "INV_DPDCID", [0x0f] = "PDC_HDR_MISMATCH", [0x10] = "CLOSING",
    [0x11] = "CLOSING_IN_ERR", [0x12] = "PKT_NOT_RCVD", [0x13] = "GTD_DEL_RESP_UNAVAIL",
    [0x14] = "ACK_WITH_DATA", [0x15] = "INVALID_SYN", [0x16] = "PDC_MODE_MISMATCH",
    [0x17] = "NEW_START_PSN", [0x18] = "RCVD_SES_PROCG", [0x19] = "UNEXP_EVENT",
    [0x1a] = "RCVR_INFER_LOSS", [0xfd] = "EXP_NACK_NORMAL", [0xfe] = "EXP_NACK_ERR",
    [0xff] = "EXP_NACK_FATAL",
}
local SES_OPCODES = {
    [0x00] = "NO_OP", [0x01] = "WRITE", [0x02] = "READ", [0x03] = "ATOMIC",
    [0x04] = "FETCHING_ATOMIC", [0x05] = "SEND", [0x06] = "RENDEZVOUS_SEND",
    [0x07] = "DATAGRAM_SEND", [0x08] = "DEFERRABLE_SEND", [0x09] = "TAGGED_SEND",
    [0x0a] = "RENDEZVOUS_TSEND", [0x0b] = "DEFERRABLE_TSEND", [0x0c] = "DEFERRABLE_RTR",
    [0x0d] = "TSEND_ATOMIC", [0x0e] = "TSEND_FETCH_ATOMIC", [0x0f] = "MSG_ERROR",
}
local SES_EXT = { [0x03] = 4, [0x04] = 4, [0x0d] = 4, [0x0e] = 4, [0x06] = 24, [0x0a] = 24 }
local SES_RSP_OPCODES = {
    [0] = "DEFAULT_RESPONSE", [1] = "RESPONSE", [2] = "RESPONSE_W_DATA", [3] = "NO_RESPONSE",
}
local RETURN_CODES = {
    [0x00] = "RC_NULL", [0x01] = "RC_OK", [0x02] = "RC_BAD_GENERATION", [0x03] = "RC_DISABLED",
    [0x04] = "RC_DISABLED_GEN", [0x05] = "RC_NO_MATCH", [0x06] = "RC_UNSUPPORTED_OP",
    [0x07] = "RC_UNSUPPORTED_SIZE", [0x08] = "RC_AT_INVALID", [0x09] = "RC_AT_PERM",
    [0x0a] = "RC_AT_ATS_ERROR", [0x0b] = "RC_AT_NO_TRANS", [0x0c] = "RC_AT_OUT_OF_RANGE",
    [0x0d] = "RC_HOST_POISONED", [0x0e] = "RC_HOST_UNSUCCESS_CMPL",
    [0x0f] = "RC_AMO_UNSUPPORTED_OP", [0x10] = "RC_AMO_UNSUPPORTED_DT",
    [0x11] = "RC_AMO_UNSUPPORTED_SIZE", [0x12] = "RC_AMO_UNALIGNED", [0x13] = "RC_AMO_FP_NAN",
    [0x14] = "RC_AMO_FP_UNDERFLOW", [0x15] = "RC_AMO_FP_OVERFLOW",
    [0x16] = "RC_AMO_FP_INEXACT", [0x17] = "RC_PERM_VIOLATION", [0x18] = "RC_OP_VIOLATION",
    [0x19] = "RC_BAD_INDEX", [0x1a] = "RC_BAD_PID", [0x1b] = "RC_BAD_JOB_ID",
    [0x1c] = "RC_BAD_MKEY", [0x1d] = "RC_BAD_ADDR", [0x1e] = "RC_CANCELLED",
    [0x1f] = "RC_UNDELIVERABLE", [0x20] = "RC_UNCOR", [0x21] = "RC_UNCOR_TRNSNT",
    [0x22] = "RC_TOO_LONG", [0x23] = "RC_INITIATOR_ERR", [0x24] = "RC_DROPPED",
}
local CRP_TYPES = { [7] = "CRP_REQ", [8] = "CRP_GRANT", [9] = "CRP_RETRY" }
local ECN_NAMES = { [0] = "Not-ECT", [1] = "ECT(1)", [2] = "ECT(0)", [3] = "CE" }

local function name(t, v)
    return t[v] or string.format("unknown(%d)", v)
end

-- ---- preferences ----------------------------------------------------------

local DSCP_CLASSES = {
    { "trimmable", 10 }, { "trimmed", 12 }, { "trimmed_lasthop", 14 }, { "control", 46 },
    { "crp_spec", 8 }, { "crp_granted", 18 }, { "crp_spec_dropped", 16 },
}
local TRIMMED = { trimmed = true, trimmed_lasthop = true, crp_spec_dropped = true }
uet.prefs.port = Pref.uint("UDP port", 4793, "UDP port of the transport's UET packets")
uet.prefs.crp_port = Pref.uint("CRP UDP port", 4794, "UDP port of the CRP control packets")
for _, c in ipairs(DSCP_CLASSES) do
    uet.prefs["dscp_" .. c[1]] = Pref.uint("DSCP " .. c[1], c[2],
        "DSCP of the " .. c[1] .. " class")
end
uet.prefs.trim_bytes = Pref.uint("Trim bytes", 56,
    "bytes of UDP payload a trimming switch keeps")

-- ---- fields ---------------------------------------------------------------

local F = {}
local function def(key, pf)
    F[key] = pf
end
local P = PFX .. "."
local function u(key, label, bits, base_, mask)
    local ctor = ({ [8] = ProtoField.uint8, [16] = ProtoField.uint16, [24] = ProtoField.uint24,
        [32] = ProtoField.uint32, [64] = ProtoField.uint64 })[bits]
    def(key, ctor(P .. key, label, base_ or base.DEC, nil, mask))
end
local function b(key, label, bits, mask)
    def(key, ProtoField.bool(P .. key, label, bits, nil, mask))
end

-- the packet
def("dscp_class", ProtoField.string(P .. "dscp_class", "DSCP class"))
u("entropy", "Entropy (UDP source port)", 16)
u("payload_bytes", "Payload bytes", 32)
def("payload", ProtoField.bytes(P .. "payload", "Payload"))
def("crc.status", ProtoField.string(P .. "crc.status", "CRC32C status"))
u("crc.value", "CRC32C", 32, base.HEX)
u("crc.computed", "CRC32C computed", 32, base.HEX)
-- PDS
def("pds", ProtoField.bytes(P .. "pds", "PDS"))
u("pds.type", "Type", 16, base.DEC, 0xf800)
u("pds.next_hdr", "Next header", 16, base.DEC, 0x0780)
u("pds.ctl_type", "Control type", 16, base.DEC, 0x0780)
u("pds.flags", "Flags", 16, base.HEX, 0x007f)
b("pds.flags.epsn", "Expected PSN (EPSN)", 16, 0x0040)
b("pds.flags.m", "ECN marked (M)", 16, 0x0020)
b("pds.flags.isrod", "ROD (ISROD)", 16, 0x0020)
b("pds.flags.retx", "Retransmission (RETX)", 16, 0x0010)
b("pds.flags.ar", "ACK request (AR)", 16, 0x0008)
b("pds.flags.p", "Probe answer (P)", 16, 0x0008)
b("pds.flags.nt", "NACK type RUDI (NT)", 16, 0x0008)
b("pds.flags.syn", "New PDC (SYN)", 16, 0x0004)
u("pds.flags.req", "Request (REQ)", 16, base.DEC, 0x0006)
u("pds.psn", "PSN", 32)
def("pds.clear_psn_offset", ProtoField.int16(P .. "pds.clear_psn_offset", "CLEAR_PSN offset"))
u("pds.clear_psn", "CLEAR_PSN (highest cleared PSN)", 32)
u("pds.spdcid", "Source PDC id (SPDCID)", 16)
u("pds.dpdcid", "Destination PDC id (DPDCID)", 16)
u("pds.pdc_info", "pdc_info", 16, base.HEX, 0xf000)
b("pds.pdc_info.use_rsv_pdc", "Use reserved PDC", 16, 0x8000)
u("pds.psn_offset", "PSN offset", 16, base.DEC, 0x0fff)
u("pds.start_psn", "Start PSN", 32)
u("pds.ccc_id", "CCC id", 8)
u("pds.credit_target", "Credit target", 24)
u("pds.cack_psn", "CACK_PSN", 32)
u("pds.probe_opaque", "Probe opaque", 16)
def("pds.ack_psn_offset", ProtoField.int16(P .. "pds.ack_psn_offset", "ACK_PSN offset"))
u("pds.ack_psn", "ACK_PSN", 32)
u("pds.epsn", "Expected PSN", 32)
u("pds.cc_type", "cc_type", 8, base.DEC, 0xf0)
u("pds.cc_flags", "cc_flags", 8, base.HEX, 0x0f)
u("pds.mpr", "Maximum PSN range (MPR, units of 128 PSNs)", 8)
u("pds.mpr_psn_range", "MPR in PSNs", 32)
def("pds.sack_psn_offset", ProtoField.int16(P .. "pds.sack_psn_offset", "SACK PSN offset"))
u("pds.sack_base_psn", "SACK base PSN", 32)
u("pds.sack_bitmap", "SACK bitmap", 64, base.HEX)
u("pds.cc_state.service_time", "service_time", 16)
b("pds.cc_state.rc", "restore_cwnd (rc)", 8, 0x80)
u("pds.cc_state.rcv_cwnd_pend", "rcv_cwnd_pend", 8, base.DEC, 0x7f)
u("pds.cc_state.rcvd_bytes", "rcvd_bytes", 24)
u("pds.cc_state.ooo_count", "ooo_count", 16)
u("pds.cc_state.credit", "credit", 24)
def("pds.cc_state", ProtoField.bytes(P .. "pds.cc_state", "cc_state"))
def("pds.ccx_state", ProtoField.bytes(P .. "pds.ccx_state", "ccx_state"))
u("pds.nack_code", "NACK code", 8, base.HEX)
u("pds.vendor_code", "Vendor code", 8)
u("pds.nack_psn", "NACK PSN", 32)
u("pds.payload", "Payload", 32)
u("pds.nccx_type", "nccx_type", 8, base.DEC, 0xf0)
def("pds.nccx_state", ProtoField.bytes(P .. "pds.nccx_state", "nccx_state"))
u("pds.rsvd", "Reserved", 16, base.HEX)
u("pds.pkt_id", "Packet id", 32)
-- SES
def("ses", ProtoField.bytes(P .. "ses", "SES"))
u("ses.opcode", "Opcode", 8, base.DEC, 0x3f)
u("ses.list", "List", 8, base.DEC, 0xc0)
u("ses.version", "Version", 8, base.DEC, 0xc0)
u("ses.flags", "Flags", 8, base.HEX, 0x3f)
b("ses.flags.dc", "Delivery complete (DC)", 8, 0x20)
b("ses.flags.ie", "Initiator error (IE)", 8, 0x10)
b("ses.flags.rel", "Relative addressing (REL)", 8, 0x08)
b("ses.flags.hd", "Header data (HD)", 8, 0x04)
b("ses.flags.eom", "End of message (EOM)", 8, 0x02)
b("ses.flags.som", "Start of message (SOM)", 8, 0x01)
u("ses.message_id", "message_id", 16)
u("ses.ri_generation", "Resource index generation", 8)
u("ses.job_id", "job_id", 24)
u("ses.pid_on_fep", "PIDonFEP", 16, base.DEC, 0x0fff)
u("ses.resource_index", "Resource index", 16, base.DEC, 0x0fff)
u("ses.buffer_offset", "Buffer offset", 64)
u("ses.initiator", "Initiator", 32)
u("ses.memory_key", "Memory key / match bits", 64, base.HEX)
u("ses.header_data", "Header data", 64, base.HEX)
u("ses.payload_length", "payload_length", 32, base.DEC, 0x3fff)
u("ses.message_offset", "message_offset", 32)
u("ses.request_length", "request_length", 32)
def("ses.ext_header", ProtoField.bytes(P .. "ses.ext_header", "Extension header"))
u("ses.return_code", "Return code", 8, base.HEX, 0x3f)
u("ses.modified_length", "Modified length", 32)

local CRP_HDR = {
    { "magic", 2, base.HEX }, { "version", 1 }, { "type", 1 }, { "flags", 2, base.HEX },
    { "trim_ttl", 1 }, { "hdr_words", 1 }, { "entropy", 4 }, { "conn_id", 4 }, { "psn", 8 },
    { "payload_len", 2 }, { "reserved", 2 }, { "reserved2", 4 }, { "tx_ts_ns", 8 },
    { "rx_ts_ns", 8 }, { "echo_tx_ts_ns", 8 }, { "echo_rx_ts_ns", 8 },
}
local CRP_EXT = {
    { "sport", 2 }, { "dport", 2 }, { "epoch", 4 }, { "msg_id", 8 }, { "seg_off", 8 },
    { "seg_len", 4 }, { "req_bytes", 4 }, { "tag", 4 }, { "crp_flags", 2, base.HEX },
    { "retries", 2 }, { "slot_base", 8 }, { "vec", 8, base.HEX }, { "grant_slot", 8 },
    { "grant_offset", 4 }, { "retry_after_ns", 4 }, { "grant_ns", 8 },
}
local CRP_FLAGS = { { "dest_done", 0x1 }, { "no_slot", 0x2 }, { "dest_full", 0x4 },
    { "converted", 0x8 } }
local CF = {}
local CTORS = { [1] = ProtoField.uint8, [2] = ProtoField.uint16, [4] = ProtoField.uint32,
    [8] = ProtoField.uint64 }
for _, fl in ipairs(CRP_HDR) do
    CF["smartt." .. fl[1]] = CTORS[fl[2]]("smartt_crp.smartt." .. fl[1], fl[1], fl[3] or base.DEC)
end
for _, fl in ipairs(CRP_EXT) do
    CF["crp." .. fl[1]] = CTORS[fl[2]]("smartt_crp.crp." .. fl[1], fl[1], fl[3] or base.DEC)
end
for _, fl in ipairs(CRP_FLAGS) do
    CF["crp.crp_flags." .. fl[1]] = ProtoField.bool("smartt_crp.crp.crp_flags." .. fl[1], fl[1],
        16, nil, fl[2])
end
CF.dscp_class = ProtoField.string("smartt_crp.dscp_class", "DSCP class")

local pf = {}
for _, v in pairs(F) do
    pf[#pf + 1] = v
end
uet.fields = pf
local cpf = {}
for _, v in pairs(CF) do
    cpf[#cpf + 1] = v
end
crp.fields = cpf

local ex_mal = ProtoExpert.new(P .. "malformed", "Malformed UET packet", expert.group.MALFORMED,
    expert.severity.ERROR)
local ex_note = ProtoExpert.new(P .. "note", "UET note", expert.group.PROTOCOL,
    expert.severity.NOTE)
uet.experts = { ex_mal, ex_note }
local cx_mal = ProtoExpert.new("smartt_crp.malformed", "Malformed CRP packet",
    expert.group.MALFORMED, expert.severity.ERROR)
local cx_note = ProtoExpert.new("smartt_crp.note", "CRP note", expert.group.PROTOCOL,
    expert.severity.NOTE)
crp.experts = { cx_mal, cx_note }

local f_dscp4 = Field.new("ip.dsfield.dscp")
local f_ecn4 = Field.new("ip.dsfield.ecn")
local f_dscp6 = Field.new("ipv6.tclass.dscp")
local f_ecn6 = Field.new("ipv6.tclass.ecn")
local f_iplen = Field.new("ip.len")
local f_iphl = Field.new("ip.hdr_len")
local f_ip6plen = Field.new("ipv6.plen")
local f_ip6nxt = Field.new("ipv6.nxt")
local f_udplen = Field.new("udp.length")
-- what the CRC32C trailer covers before the UDP payload
local f_ipsrc = Field.new("ip.src")
local f_ipdst = Field.new("ip.dst")
local f_ip6src = Field.new("ipv6.src")
local f_ip6dst = Field.new("ipv6.dst")
local f_udpsport = Field.new("udp.srcport")
local f_udpdport = Field.new("udp.dstport")
local f_udpsum = Field.new("udp.checksum")

-- ---- CRC32C -----------------------------------------------------------------

local CRC_T = {}
for i = 0, 255 do
    local c = i
    for _ = 1, 8 do
        if band(c, 1) ~= 0 then
            c = bxor(rshift(c, 1), 0x82f63b78)
        else
            c = rshift(c, 1)
        end
    end
    CRC_T[i] = c
end

-- the CRC32C of the ByteArrays given, one after the other
local function crc32c(...)
    local c = 0xffffffff
    for _, ba in ipairs({ ... }) do
        for i = 0, ba:len() - 1 do
            c = bxor(CRC_T[band(bxor(c, ba:get_index(i)), 0xff)], rshift(c, 8))
        end
    end
    return bxor(c, 0xffffffff)
end

local function bswap32(v)
    return bor(lshift(band(v, 0xff), 24), lshift(band(rshift(v, 8), 0xff), 16),
        lshift(band(rshift(v, 16), 0xff), 8), rshift(v, 24))
end

-- ---- helpers ----------------------------------------------------------------

local function last_value(f)
    local all = { f() }
    local v = all[#all]
    return v and v.value
end

-- the DSCP, ECN and class of the packet's (innermost) IP header
local function ip_class()
    local d = last_value(f_dscp4)
    local e = last_value(f_ecn4)
    local d6 = last_value(f_dscp6)
    if d == nil and d6 ~= nil then
        d, e = d6, last_value(f_ecn6)
    end
    if d == nil then
        return nil, nil, "other"
    end
    for _, c in ipairs(DSCP_CLASSES) do
        if uet.prefs["dscp_" .. c[1]] == d then
            return d, e, c[1]
        end
    end
    return d, e, "other"
end

-- the IP source and destination addresses and the UDP header of the
-- packet as on the wire (a ByteArray), or nil: the address fields of the IP
-- header nearest before the last UDP header, or, when none is before it in
-- the same data (the UDP header in a reassembled buffer), the only ones
-- there are
local function crc_prefix_fields()
    local sp, dp, ul, us = { f_udpsport() }, { f_udpdport() }, { f_udplen() }, { f_udpsum() }
    local n = #sp
    if n == 0 or #dp ~= n or #ul ~= n or #us ~= n then
        return nil
    end
    local udp_off = sp[n].offset
    local best, best_off, last
    for _, pair in ipairs({ { { f_ipsrc() }, { f_ipdst() }, 4 },
        { { f_ip6src() }, { f_ip6dst() }, 16 } }) do
        local srcs, dsts, len = pair[1], pair[2], pair[3]
        if #srcs == #dsts then
            for i = 1, #srcs do
                if srcs[i].len == len and dsts[i].len == len then
                    local o = srcs[i].offset
                    if o < udp_off and (best_off == nil or o > best_off) then
                        best, best_off = { srcs[i], dsts[i] }, o
                    end
                    last = last == nil and { srcs[i], dsts[i] } or false
                end
            end
        end
    end
    best = best or last
    if not best then
        return nil
    end
    local ba = best[1].range:bytes()
    ba:append(best[2].range:bytes())
    for _, f in ipairs({ sp[n], dp[n], ul[n], us[n] }) do
        if f.len ~= 2 then
            return nil
        end
        ba:append(f.range:bytes())
    end
    return ba
end

local function crc_prefix()
    local ok, ba = pcall(crc_prefix_fields)
    if ok then
        return ba
    end
    return nil
end

-- the UDP length against what the (innermost) IP header leaves for it
local function udp_length_check(c)
    local ul = last_value(f_udplen)
    local il
    if last_value(f_dscp4) ~= nil then
        local l, hl = last_value(f_iplen), last_value(f_iphl)
        if l and hl then
            il = l - hl
        end
    elseif last_value(f_ip6nxt) == 17 then
        il = last_value(f_ip6plen)
    end
    if ul and il and ul ~= il then
        c:mal(nil, "UDP length %d, but the IP header leaves %d bytes", ul, il)
    end
end

-- Ctx: the packet being dissected, its wire and captured lengths, and its
-- reasons.
local Ctx = {}
Ctx.__index = Ctx

local function ctx(tvb, tree, exmal, exnote)
    return setmetatable({ tvb = tvb, tree = tree, wire = tvb:reported_length_remaining(0),
        cap = tvb:len(), bad = 0, exmal = exmal, exnote = exnote }, Ctx)
end

function Ctx:mal(item, fmt, ...)
    self.bad = self.bad + 1;
    (item or self.tree):add_proto_expert_info(self.exmal, string.format(fmt, ...))
end

function Ctx:note(item, fmt, ...)
    (item or self.tree):add_proto_expert_info(self.exnote, string.format(fmt, ...))
end

function Ctx:need(off, n, what)
    if off + n > self.wire then
        self:mal(nil, "%s cut off: needs bytes %d..%d, the packet has %d", what, off, off + n - 1,
            self.wire)
        return false
    end
    if off + n > self.cap then
        self:mal(nil, "%s not captured (snap length %d)", what, self.cap)
        return false
    end
    return true
end

function Ctx:u(o, n)
    return self.tvb(o, n):uint()
end

function Ctx:s16(o)
    return self.tvb(o, 2):int()
end

local function psn(v)
    return v % 4294967296
end

-- ---- PDS ----------------------------------------------------------------------

local function dpdcid(c, t, o, syn, psn_v)
    local v = c:u(o, 2)
    if syn then
        local info = rshift(v, 12)
        t:add(F["pds.pdc_info"], c.tvb(o, 2))
        t:add(F["pds.pdc_info.use_rsv_pdc"], c.tvb(o, 2))
        t:add(F["pds.psn_offset"], c.tvb(o, 2))
        t:add(F["pds.start_psn"], c.tvb(o, 2), psn(psn_v - band(v, 0x0fff))):set_generated()
        if band(info, 0x7) ~= 0 then
            c:mal(t, "reserved pdc_info bits 0x%x set", band(info, 0x7))
        end
    else
        t:add(F["pds.dpdcid"], c.tvb(o, 2))
    end
end

local function ack_ext(c, t, ty, cack)
    local tvb = c.tvb
    local ct = rshift(c:u(12, 1), 4)
    t:add(F["pds.cc_type"], tvb(12, 1)):append_text(" (" .. name(CC_TYPES, ct) .. ")")
    t:add(F["pds.cc_flags"], tvb(12, 1))
    local mpr = c:u(13, 1)
    t:add(F["pds.mpr"], tvb(13, 1)):append_text(string.format(" (%d PSNs)", mpr * 128))
    t:add(F["pds.mpr_psn_range"], tvb(13, 1), mpr * 128):set_generated()
    local so = c:s16(14)
    t:add(F["pds.sack_psn_offset"], tvb(14, 2))
    t:add(F["pds.sack_base_psn"], tvb(14, 2), psn(cack + so)):set_generated()
    t:add(F["pds.sack_bitmap"], tvb(16, 8))
    if ty == 9 then
        t:add(F["pds.ccx_state"], tvb(24, 16))
        return
    end
    if ct == 0 then
        t:add(F["pds.cc_state.service_time"], tvb(24, 2))
        t:add(F["pds.cc_state.rc"], tvb(26, 1))
        t:add(F["pds.cc_state.rcv_cwnd_pend"], tvb(26, 1))
        t:add(F["pds.cc_state.rcvd_bytes"], tvb(27, 3))
        t:add(F["pds.cc_state.ooo_count"], tvb(30, 2))
    elseif ct == 1 then
        t:add(F["pds.cc_state.credit"], tvb(24, 3))
        t:add(F["pds.cc_state.ooo_count"], tvb(30, 2))
        if c:u(27, 3) ~= 0 then
            c:mal(t, "reserved bytes of the credit cc_state set")
        end
    else
        t:add(F["pds.cc_state"], tvb(24, 8))
        c:mal(t, "unknown cc_type %d", ct)
    end
end

-- the PDS header: its fields, and (type, next_hdr, end offset) or nil
local function pds(c, root, info)
    local tvb = c.tvb
    if not c:need(0, 2, "PDS prologue") then
        return nil
    end
    local pro = c:u(0, 2)
    local ty = rshift(pro, 11)
    local nh = band(rshift(pro, 7), 0xf)
    local fl = band(pro, 0x7f)
    local n = PDS_LEN[ty]
    if ty == 7 and band(fl, 0x40) ~= 0 then
        n = n + 4
    end
    local t = root:add(F["pds"], tvb(0, math.min(n or 2, c.cap)))
    t:set_text("PDS " .. name(PDS_TYPES, ty))
    t:add(F["pds.type"], tvb(0, 2)):append_text(" (" .. name(PDS_TYPES, ty) .. ")")
    if ty == 11 then
        t:add(F["pds.ctl_type"], tvb(0, 2)):append_text(" (" .. name(CTL_TYPES, nh) .. ")")
    else
        t:add(F["pds.next_hdr"], tvb(0, 2)):append_text(" (" .. name(NEXT_HDRS, nh) .. ")")
    end
    t:add(F["pds.flags"], tvb(0, 2))
    info[#info + 1] = name(PDS_TYPES, ty)
    if not n then
        if ty == 1 then
            c:mal(t, "unknown PDS type %d (TSS: encrypted packets are not decoded)", ty)
        else
            c:mal(t, "unknown PDS type %d", ty)
        end
        return nil
    end
    if not SMARTT_TYPES[ty] then
        c:note(t, "PDS type %s is not one the transport sends", PDS_TYPES[ty])
    end
    if not c:need(0, n, string.format("PDS %s header (%d bytes)", PDS_TYPES[ty], n)) then
        return nil
    end
    local p = tvb(0, 2)
    local rsvd
    if REQUEST[ty] then
        t:add(F["pds.flags.retx"], p)
        t:add(F["pds.flags.ar"], p)
        t:add(F["pds.flags.syn"], p)
        rsvd = 0x63
        if nh < 1 or nh > 3 then
            c:mal(t, "wrong next header %d (%s) for a %s: a request carries an SES request header",
                nh, name(NEXT_HDRS, nh), PDS_TYPES[ty])
        end
        local psn_v = c:u(4, 4)
        t:add(F["pds.psn"], tvb(4, 4))
        t:add(F["pds.clear_psn_offset"], tvb(2, 2))
        -- the highest PSN the sender has cleared (all up to it included)
        t:add(F["pds.clear_psn"], tvb(2, 2), psn(psn_v + c:s16(2))):set_generated()
        if c:s16(2) >= 0 then
            c:note(t, "clear_psn_offset %d is not negative: the transport clears only PSNs " ..
                "below the packet's (offset -1 or less)", c:s16(2))
        end
        t:add(F["pds.spdcid"], tvb(8, 2))
        dpdcid(c, t, 10, band(fl, 0x04) ~= 0, psn_v)
        if ty == 13 or ty == 14 then
            t:add(F["pds.ccc_id"], tvb(12, 1))
            t:add(F["pds.credit_target"], tvb(13, 3))
        end
        info[#info + 1] = "psn=" .. psn_v
    elseif ACKS[ty] then
        t:add(F["pds.flags.m"], p)
        t:add(F["pds.flags.retx"], p)
        t:add(F["pds.flags.p"], p)
        t:add(F["pds.flags.req"], p)
        rsvd = 0x41
        if ty == 7 then
            t:add(F["pds.flags.epsn"], p)
            rsvd = 0x01
        end
        if rshift(band(fl, 0x06), 1) == 3 then
            c:mal(t, "ACK flags req = 3 (reserved)")
        end
        if nh ~= 0 and (nh < 4 or nh > 6) then
            c:mal(t, "wrong next header %d (%s) for an %s: an ACK carries no SES header or an " ..
                "SES response", nh, name(NEXT_HDRS, nh), PDS_TYPES[ty])
        end
        local cack = c:u(4, 4)
        t:add(F["pds.cack_psn"], tvb(4, 4))
        if band(fl, 0x08) ~= 0 then
            t:add(F["pds.probe_opaque"], tvb(2, 2))
        else
            t:add(F["pds.ack_psn_offset"], tvb(2, 2))
            t:add(F["pds.ack_psn"], tvb(2, 2), psn(cack + c:s16(2))):set_generated()
        end
        t:add(F["pds.spdcid"], tvb(8, 2))
        t:add(F["pds.dpdcid"], tvb(10, 2))
        if ty == 7 and band(fl, 0x40) ~= 0 then
            t:add(F["pds.epsn"], tvb(12, 4))
        end
        if ty == 8 or ty == 9 then
            ack_ext(c, t, ty, cack)
        end
        info[#info + 1] = "cack_psn=" .. cack
    elseif NACKS[ty] then
        t:add(F["pds.flags.m"], p)
        t:add(F["pds.flags.retx"], p)
        t:add(F["pds.flags.nt"], p)
        rsvd = 0x47
        if nh ~= 0 then
            c:mal(t, "wrong next header %d (%s) for a %s: a NACK carries no SES header",
                nh, name(NEXT_HDRS, nh), PDS_TYPES[ty])
        end
        local code = c:u(2, 1)
        local vendor = c:u(3, 1)
        local cname = name(NACK_CODES, code)
        if code == 0xfd and vendor == 1 then
            cname = cname .. "/smartt:SPEC_DROPPED"
        end
        t:add(F["pds.nack_code"], tvb(2, 1)):append_text(" (" .. cname .. ")")
        t:add(F["pds.vendor_code"], tvb(3, 1))
        if not NACK_CODES[code] then
            c:mal(t, "unknown nack_code 0x%02x", code)
        end
        t:add(F["pds.nack_psn"], tvb(4, 4))
        t:add(F["pds.spdcid"], tvb(8, 2))
        t:add(F["pds.dpdcid"], tvb(10, 2))
        t:add(F["pds.payload"], tvb(12, 4))
        if ty == 12 then
            t:add(F["pds.nccx_type"], tvb(16, 1))
            t:add(F["pds.nccx_state"], tvb(16, 16))
        end
        info[#info + 1] = cname
    elseif ty == 11 then
        t:add(F["pds.flags.isrod"], p)
        t:add(F["pds.flags.retx"], p)
        t:add(F["pds.flags.ar"], p)
        t:add(F["pds.flags.syn"], p)
        rsvd = 0x43
        if not CTL_TYPES[nh] then
            c:mal(t, "unknown ctl_type %d", nh)
        end
        t:add(F["pds.probe_opaque"], tvb(2, 2))
        local psn_v = c:u(4, 4)
        t:add(F["pds.psn"], tvb(4, 4))
        t:add(F["pds.spdcid"], tvb(8, 2))
        dpdcid(c, t, 10, band(fl, 0x04) ~= 0, psn_v)
        t:add(F["pds.payload"], tvb(12, 4))
        if nh == 6 then
            t:add(F["pds.sack_base_psn"], tvb(12, 4))
        end
        info[#info + 1] = name(CTL_TYPES, nh)
    elseif ty == 4 or ty == 5 then
        rsvd = 0x7f
        t:add(F["pds.rsvd"], tvb(2, 2))
        t:add(F["pds.pkt_id"], tvb(4, 4))
    else
        rsvd = 0x7f
        t:add(F["pds.rsvd"], tvb(2, 2))
    end
    if band(fl, rsvd) ~= 0 then
        c:mal(t, "reserved PDS flag bits 0x%02x set in a %s", band(fl, rsvd), PDS_TYPES[ty])
    end
    return ty, nh, n
end

-- ---- SES ----------------------------------------------------------------------

-- the SES standard request at o: (end offset, {som, eom, payload_length,
-- message_offset, request_length}) or nil
local function ses_std(c, root, o, info)
    local tvb = c.tvb
    if not c:need(o, 44, "SES standard request header (44 bytes)") then
        return nil
    end
    local t = root:add(F["ses"], tvb(o, 44))
    t:set_text("SES standard request")
    local v = c:u(o, 1)
    local op = band(v, 0x3f)
    t:add(F["ses.opcode"], tvb(o, 1)):append_text(" (" .. name(SES_OPCODES, op) .. ")")
    info[#info + 1] = name(SES_OPCODES, op)
    if rshift(v, 6) ~= 0 then
        c:mal(t, "reserved SES bits set before the opcode (0x%x)", rshift(v, 6))
    end
    if not SES_OPCODES[op] then
        c:mal(t, "unknown SES opcode 0x%02x", op)
    end
    v = c:u(o + 1, 1)
    t:add(F["ses.version"], tvb(o + 1, 1))
    t:add(F["ses.flags"], tvb(o + 1, 1))
    for _, k in ipairs({ "dc", "ie", "rel", "hd", "eom", "som" }) do
        local it = t:add(F["ses.flags." .. k], tvb(o + 1, 1))
        if k == "rel" then
            it:append_text(band(v, 0x08) ~= 0 and
                " (relative addressing: PIDonFEP within the JobID)" or " (absolute addressing)")
        end
    end
    if rshift(v, 6) ~= 0 then
        c:mal(t, "SES version %d (the transport speaks 0)", rshift(v, 6))
    end
    local s = { som = band(v, 1) ~= 0, eom = band(v, 2) ~= 0 }
    t:add(F["ses.message_id"], tvb(o + 2, 2))
    t:add(F["ses.ri_generation"], tvb(o + 4, 1))
    t:add(F["ses.job_id"], tvb(o + 5, 3))
    t:add(F["ses.pid_on_fep"], tvb(o + 8, 2))
    if rshift(c:u(o + 8, 2), 12) ~= 0 then
        c:mal(t, "reserved bits above PIDonFEP set (0x%x)", rshift(c:u(o + 8, 2), 12))
    end
    t:add(F["ses.resource_index"], tvb(o + 10, 2))
    if rshift(c:u(o + 10, 2), 12) ~= 0 then
        c:mal(t, "reserved bits above the resource index set (0x%x)",
            rshift(c:u(o + 10, 2), 12))
    end
    t:add(F["ses.buffer_offset"], tvb(o + 12, 8))
    t:add(F["ses.initiator"], tvb(o + 20, 4))
    t:add(F["ses.memory_key"], tvb(o + 24, 8))
    if s.som then
        t:add(F["ses.header_data"], tvb(o + 32, 8))
    else
        local w = c:u(o + 32, 4)
        s.payload_length = band(w, 0x3fff)
        s.message_offset = c:u(o + 36, 4)
        t:add(F["ses.payload_length"], tvb(o + 32, 4))
        t:add(F["ses.message_offset"], tvb(o + 36, 4))
        if rshift(w, 14) ~= 0 then
            c:mal(t, "reserved bits above payload_length set (0x%x)", rshift(w, 14))
        end
    end
    s.request_length = c:u(o + 40, 4)
    t:add(F["ses.request_length"], tvb(o + 40, 4))
    info[#info + 1] = "msg=" .. c:u(o + 2, 2)
    local e = o + 44
    local ext = SES_EXT[op]
    if ext then
        if not c:need(e, ext, string.format("SES %s extension header (%d bytes)",
                name(SES_OPCODES, op), ext)) then
            return nil
        end
        t:add(F["ses.ext_header"], tvb(e, ext))
        c:note(t, "SES %s extension header not decoded", name(SES_OPCODES, op))
        e = e + ext
    end
    s.kind = "std"
    s.tree = t
    return e, s
end

local function ses_rsp(c, root, o, info)
    local tvb = c.tvb
    if not c:need(o, 12, "SES response header (12 bytes)") then
        return nil
    end
    local t = root:add(F["ses"], tvb(o, 12))
    t:set_text("SES response")
    local v = c:u(o, 1)
    local op = band(v, 0x3f)
    t:add(F["ses.list"], tvb(o, 1))
    t:add(F["ses.opcode"], tvb(o, 1)):append_text(" (" .. name(SES_RSP_OPCODES, op) .. ")")
    if op ~= 0 and op ~= 1 and op ~= 3 then
        c:mal(t, "SES response opcode %d (%s) in a response header without data", op,
            name(SES_RSP_OPCODES, op))
    end
    local rc = band(c:u(o + 1, 1), 0x3f)
    t:add(F["ses.version"], tvb(o + 1, 1))
    t:add(F["ses.return_code"], tvb(o + 1, 1)):append_text(" (" .. name(RETURN_CODES, rc) .. ")")
    if not RETURN_CODES[rc] then
        c:mal(t, "unknown SES return code 0x%02x", rc)
    end
    t:add(F["ses.message_id"], tvb(o + 2, 2))
    t:add(F["ses.ri_generation"], tvb(o + 4, 1))
    t:add(F["ses.job_id"], tvb(o + 5, 3))
    t:add(F["ses.modified_length"], tvb(o + 8, 4))
    info[#info + 1] = name(RETURN_CODES, rc)
    return o + 12, { kind = "rsp" }
end

-- ---- trailer and lengths ------------------------------------------------------------

-- what a trailer that does not match holds instead, if it is one of the
-- usual mistakes (as smarttctl decode says it)
local function crc_hint(got, want, prefix, body)
    if bswap32(got) == want then
        return "stored big endian; the trailer is little endian"
    end
    local alone = crc32c(body)
    if got == alone then
        return "over the UDP payload alone; the trailer covers the IP addresses and the " ..
            "UDP header too"
    end
    if bswap32(got) == alone then
        return "over the UDP payload alone and big endian, the trailer's earlier format"
    end
    local n = prefix:len()
    if prefix:get_index(n - 2) ~= 0 or prefix:get_index(n - 1) ~= 0 then
        if got == crc32c(prefix, body) then
            return "with the UDP checksum as on the wire; the trailer takes it as 0"
        end
    end
    return ""
end

local function trailer(c, root, ty, e, ses, trimmed, checked)
    local rest = c.wire - e
    local tvb = c.tvb
    if trimmed then
        root:add(F["payload_bytes"], math.max(0, rest)):set_generated()
        root:add(F["crc.status"], "absent"):append_text(" (trimmed)")
        return math.max(0, rest)
    end
    if rest < 4 then
        root:add(F["crc.status"], "missing")
        c:mal(root, "CRC32C trailer missing: %d bytes after the headers", rest)
        return 0
    end
    local pb = rest - 4
    root:add(F["payload_bytes"], pb):set_generated()
    if pb > 0 and e < c.cap then
        root:add(F["payload"], tvb(e, math.min(pb, c.cap - e)))
    end
    if pb > 0 and (ses == nil or ses.kind ~= "std") and checked and ty ~= 6 then
        c:mal(root, "%d bytes between the %s headers and the trailer (it carries no payload)",
            pb, PDS_TYPES[ty])
    end
    if c.cap < c.wire then
        root:add(F["crc.status"], "not captured")
        return pb
    end
    -- little endian: the least significant byte first
    local got = tvb(c.wire - 4, 4):le_uint()
    local prefix = crc_prefix()
    if prefix == nil then
        root:add(F["crc.status"], "unchecked"):append_text(
            " (CRC32C: not checked: no IP addresses and UDP header)")
        root:add_le(F["crc.value"], tvb(c.wire - 4, 4))
        return pb
    end
    local body = c.wire > 4 and tvb:bytes(0, c.wire - 4) or ByteArray.new()
    -- the UDP checksum taken as 0: a checksum, if any, is computed after
    -- the trailer and covers it
    local n = prefix:len()
    local z = prefix:subset(0, n - 2)
    z:append(ByteArray.new("00 00"))
    local want = crc32c(z, body)
    if got == want then
        root:add(F["crc.status"], "valid"):append_text(" (CRC32C: valid)")
        root:add_le(F["crc.value"], tvb(c.wire - 4, 4))
    else
        root:add(F["crc.status"], "invalid"):append_text(" (CRC32C: invalid)")
        root:add_le(F["crc.value"], tvb(c.wire - 4, 4))
        root:add(F["crc.computed"], want):set_generated()
        local hint = crc_hint(got, want, prefix, body)
        c:mal(root, "bad CRC32C: 0x%08x, computed 0x%08x%s", got, want,
            hint ~= "" and " (" .. hint .. ")" or "")
    end
    return pb
end

local function payload_checks(c, s, n, trimmed)
    local rl = s.request_length
    local t = s.tree
    if s.som then
        if s.eom and not trimmed and n ~= rl then
            c:mal(t, "SOM+EOM with request_length %d, but %d payload bytes", rl, n)
        elseif n > rl then
            c:mal(t, "SOM packet holds %d payload bytes, more than request_length %d", n, rl)
        end
        return
    end
    local pl, mo = s.payload_length, s.message_offset
    if not trimmed and pl ~= n then
        c:mal(t, "payload_length %d, but the packet holds %d payload bytes", pl, n)
    elseif trimmed and n > pl then
        c:mal(t, "trimmed, yet holds %d payload bytes, more than payload_length %d", n, pl)
    end
    if mo + pl > rl then
        c:mal(t, "message_offset %d + payload_length %d runs past request_length %d", mo, pl, rl)
    elseif s.eom and mo + pl ~= rl then
        c:mal(t, "EOM, but message_offset %d + payload_length %d != request_length %d", mo, pl,
            rl)
    end
end

-- ---- the dissectors -------------------------------------------------------------------

local function class_note(c, cls, want, what)
    for _, w in ipairs(want) do
        if w == cls then
            return
        end
    end
    c:note(nil, "DSCP class %s for %s; the transport sends it in %s", cls, what,
        table.concat(want, " or "))
end

function uet.dissector(tvb, pinfo, tree)
    pinfo.cols.protocol = "UET"
    local root = tree:add(uet, tvb())
    local c = ctx(tvb, root, ex_mal, ex_note)
    local dscp, ecn, cls = ip_class()
    root:add(F["dscp_class"], cls):append_text(dscp and string.format(" (DSCP %d, ECN %s)", dscp,
        name(ECN_NAMES, ecn or 0)) or "")
    if pinfo.dst_port == uet.prefs.port then
        root:add(F["entropy"], pinfo.src_port):set_generated()
    end
    udp_length_check(c)
    local trimmed = TRIMMED[cls] or false
    local info = {}
    local ty, nh, e = pds(c, root, info)
    if ty then
        local ses, ok = nil, true
        if REQUEST[ty] or ACKS[ty] or ty == 4 or ty == 5 or ty == 6 then
            if nh == 3 then
                e, ses = ses_std(c, root, e, info)
                ok = e ~= nil
            elseif nh == 4 then
                e, ses = ses_rsp(c, root, e, info)
                ok = e ~= nil
            elseif nh ~= 0 and nh <= 6 then
                c:note(root, "SES %s header not decoded (the transport sends none)",
                    NEXT_HDRS[nh])
                trailer(c, root, ty, e, nil, trimmed, false)
                ok = false
            end
        end
        if ok then
            if trimmed then
                if not REQUEST[ty] then
                    c:mal(root, "DSCP %d (%s) on a %s: only requests (DATA) are trimmed", dscp,
                        cls, PDS_TYPES[ty])
                elseif c.wire > uet.prefs.trim_bytes then
                    c:mal(root, "DSCP %d (%s), but it holds %d bytes after UDP, more than the " ..
                        "%d a trim leaves", dscp, cls, c.wire, uet.prefs.trim_bytes)
                end
            end
            local n = trailer(c, root, ty, e, ses, trimmed, true)
            if ses and ses.kind == "std" then
                payload_checks(c, ses, n, trimmed)
            end
        end
        if REQUEST[ty] then
            class_note(c, cls, { "trimmable", "crp_spec", "crp_granted", "trimmed",
                "trimmed_lasthop", "crp_spec_dropped" }, "DATA")
        elseif ty == 7 or ty == 8 or ty == 10 or ty == 11 then
            class_note(c, cls, { "control" }, "a " .. PDS_TYPES[ty])
        end
    end
    if ecn == 3 then
        c:note(nil, "CE: a switch marked congestion")
    end
    pinfo.cols.info = table.concat(info, " ") .. (c.bad > 0 and " [malformed]" or "")
    return tvb:len()
end

function crp.dissector(tvb, pinfo, tree)
    pinfo.cols.protocol = "smartt CRP"
    local root = tree:add(crp, tvb())
    local c = ctx(tvb, root, cx_mal, cx_note)
    local _, _, cls = ip_class()
    root:add(CF.dscp_class, cls)
    udp_length_check(c)
    if not c:need(0, 64, "struct smartt_hdr (64 bytes)") then
        return tvb:len()
    end
    local o = 0
    local h = {}
    local t = root:add(crp, tvb(0, 64))
    t:set_text("struct smartt_hdr")
    for _, fl in ipairs(CRP_HDR) do
        local it = t:add(CF["smartt." .. fl[1]], tvb(o, fl[2]))
        if fl[2] <= 4 then
            h[fl[1]] = c:u(o, fl[2])
        end
        if fl[1] == "type" then
            it:append_text(" (" .. name(CRP_TYPES, h.type) .. ")")
        end
        o = o + fl[2]
    end
    pinfo.cols.info = "smartt " .. name(CRP_TYPES, h.type)
    if h.magic ~= 0x5374 then
        c:mal(t, "magic 0x%04x, not 0x5374", h.magic)
        return tvb:len()
    end
    if h.version ~= 2 then
        c:mal(t, "version %d, want 2", h.version)
    end
    if not CRP_TYPES[h.type] then
        c:mal(t, "type %d is not a CRP control packet", h.type)
    end
    local hl = h.hdr_words * 8
    if hl < 144 then
        c:mal(t, "hdr_words %d: %d bytes, less than the 144 of the CRP headers", h.hdr_words, hl)
        hl = 144
    end
    if not c:need(64, 80, "struct smartt_crp_ext (80 bytes)") then
        return tvb:len()
    end
    local x = root:add(crp, tvb(64, 80))
    x:set_text("struct smartt_crp_ext")
    for _, fl in ipairs(CRP_EXT) do
        x:add(CF["crp." .. fl[1]], tvb(o, fl[2]))
        if fl[1] == "crp_flags" then
            for _, b_ in ipairs(CRP_FLAGS) do
                x:add(CF["crp.crp_flags." .. b_[1]], tvb(o, 2))
            end
            local cfv = c:u(o, 2)
            if band(cfv, 0xfff0) ~= 0 then
                c:mal(x, "unknown crp_flags bits 0x%04x", band(cfv, 0xfff0))
            end
        end
        o = o + fl[2]
    end
    if hl > c.wire then
        c:mal(root, "hdr_words %d: %d bytes, but the packet has %d", h.hdr_words, hl, c.wire)
    elseif c.wire - hl ~= h.payload_len then
        c:mal(root, "payload_len %d, but %d bytes follow the headers", h.payload_len, c.wire - hl)
    end
    if cls ~= "control" then
        c:note(nil, "DSCP class %s for a CRP control packet; the transport sends it in control",
            cls)
    end
    return tvb:len()
end

-- ---- registration ------------------------------------------------------------------

local udp_table = DissectorTable.get("udp.port")
local registered = {}

local function register()
    for port, _ in pairs(registered) do
        udp_table:remove(port, registered[port])
    end
    registered = {}
    registered[uet.prefs.port] = uet
    registered[uet.prefs.crp_port] = crp
    udp_table:add(uet.prefs.port, uet)
    udp_table:add(uet.prefs.crp_port, crp)
end

function uet.prefs_changed()
    register()
end

register()
-- "Decode As" on any other UDP port
udp_table:add_for_decode_as(uet)
udp_table:add_for_decode_as(crp)
