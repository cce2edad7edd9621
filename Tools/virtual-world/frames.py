"""Beacon advertising payloads (AD structures), built byte by byte from their published layouts.

Every payload starts with a Flags AD (Core Spec Supplement, Part A, 1.3): LE General Discoverable, BR/EDR not
supported. AD structure layout: length (type + data), type, data (Core Spec 5.4, Vol 3, Part C, 11).
"""

from __future__ import annotations

import struct
import uuid

AD_FLAGS = 0x01
AD_COMPLETE_16_BIT_UUIDS = 0x03
AD_SERVICE_DATA_16_BIT = 0x16
AD_MANUFACTURER_SPECIFIC = 0xFF

APPLE_COMPANY_ID = 0x004C
RADIUS_NETWORKS_COMPANY_ID = 0x0118
EDDYSTONE_UUID = 0xFEAA

# Eddystone-URL scheme prefixes and expansion codes (Eddystone protocol specification, URL frame).
URL_SCHEMES = ["http://www.", "https://www.", "http://", "https://"]
URL_EXPANSIONS = [
    ".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
    ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov",
]


class FrameError(ValueError):
    """A beacon's fields cannot be encoded (the message names the field)."""


def ad(ad_type: int, data: bytes) -> bytes:
    """One AD structure."""
    if len(data) + 1 > 255:
        raise FrameError(f"AD type 0x{ad_type:02x}: {len(data)} bytes is too long")
    return bytes([len(data) + 1, ad_type]) + data


def flags() -> bytes:
    """Flags: LE General Discoverable Mode (bit 1) and BR/EDR Not Supported (bit 2)."""
    return ad(AD_FLAGS, bytes([0x06]))


def int8(value: int, field: str) -> int:
    """Checks a signed byte."""
    if not -128 <= value <= 127:
        raise FrameError(f"{field}: {value} does not fit in a signed byte")
    return value


def ibeacon(uuid_text: str, major: int, minor: int, measured_power: int) -> bytes:
    """Apple iBeacon: manufacturer data 0x004C, type 0x02, length 0x15, UUID, major, minor (big-endian),
    measured power at 1 m."""
    body = struct.pack("<H", APPLE_COMPANY_ID) + bytes([0x02, 0x15])
    body += uuid.UUID(uuid_text).bytes + struct.pack(">HHb", major, minor, int8(measured_power, "measuredPower"))
    return flags() + ad(AD_MANUFACTURER_SPECIFIC, body)


def eddystone(frame: bytes) -> bytes:
    """An Eddystone frame: the 0xFEAA service UUID list, then the frame as 0xFEAA service data."""
    return (
        flags()
        + ad(AD_COMPLETE_16_BIT_UUIDS, struct.pack("<H", EDDYSTONE_UUID))
        + ad(AD_SERVICE_DATA_16_BIT, struct.pack("<H", EDDYSTONE_UUID) + frame)
    )


def eddystone_uid(namespace_hex: str, instance_hex: str, power_at_0m: int) -> bytes:
    """Eddystone-UID: frame type 0x00, ranging data (TX power at 0 m), 10-byte namespace, 6-byte instance,
    two reserved bytes."""
    namespace = bytes.fromhex(namespace_hex)
    instance = bytes.fromhex(instance_hex)
    if len(namespace) != 10:
        raise FrameError(f"namespace: expected 10 bytes (20 hex digits), got {len(namespace)}")
    if len(instance) != 6:
        raise FrameError(f"instance: expected 6 bytes (12 hex digits), got {len(instance)}")
    frame = bytes([0x00]) + struct.pack("b", int8(power_at_0m, "txPower at 0 m")) + namespace + instance + b"\0\0"
    return eddystone(frame)


def encode_url(url: str) -> bytes:
    """Compresses a URL with the Eddystone scheme prefix and expansion codes."""
    for code, scheme in enumerate(URL_SCHEMES):
        if url.startswith(scheme):
            out = bytearray([code])
            rest = url[len(scheme):]
            break
    else:
        raise FrameError(f"url: {url!r} must start with one of {URL_SCHEMES}")
    while rest:
        for code, expansion in enumerate(URL_EXPANSIONS):
            if rest.startswith(expansion):
                out.append(code)
                rest = rest[len(expansion):]
                break
        else:
            char = rest[0]
            if not 0x21 <= ord(char) <= 0x7E:
                raise FrameError(f"url: character {char!r} cannot be encoded")
            out.append(ord(char))
            rest = rest[1:]
    if len(out) > 18:
        raise FrameError(f"url: {url!r} encodes to {len(out) - 1} bytes, at most 17 fit")
    return bytes(out)


def eddystone_url(url: str, power_at_0m: int) -> bytes:
    """Eddystone-URL: frame type 0x10, TX power at 0 m, scheme prefix, encoded URL."""
    return eddystone(bytes([0x10]) + struct.pack("b", int8(power_at_0m, "txPower at 0 m")) + encode_url(url))


def eddystone_tlm(battery_mv: int, temperature_c: float, advertising_count: int, uptime_s: float) -> bytes:
    """Eddystone-TLM (unencrypted, version 0): battery mV, temperature as signed 8.8 fixed point, PDU count,
    time since power-on in 0.1 s, all big-endian."""
    temperature = int(round(temperature_c * 256)) & 0xFFFF
    frame = bytes([0x20, 0x00]) + struct.pack(
        ">HHII", battery_mv, temperature, advertising_count & 0xFFFFFFFF, int(uptime_s * 10) & 0xFFFFFFFF
    )
    return eddystone(frame)


def altbeacon(id1_hex: str, id2: int, id3: int, reference_rssi: int, manufacturer_id: int, reserved: int) -> bytes:
    """AltBeacon: manufacturer data, beacon code 0xBEAC, 20-byte beacon id (id1 16 bytes, id2 and id3
    big-endian), reference RSSI at 1 m, one manufacturer-reserved byte."""
    id1 = bytes.fromhex(id1_hex.replace("-", ""))
    if len(id1) != 16:
        raise FrameError(f"id1: expected 16 bytes (32 hex digits), got {len(id1)}")
    body = struct.pack("<H", manufacturer_id) + bytes([0xBE, 0xAC]) + id1 + struct.pack(">HH", id2, id3)
    body += struct.pack("bB", int8(reference_rssi, "measuredPower"), reserved)
    return flags() + ad(AD_MANUFACTURER_SPECIFIC, body)


TEST_COMPANY_ID = 0xFFFF  # "reserved for testing" in the Bluetooth SIG's company identifiers


def private(counter: int = 0) -> bytes:
    """What a phone or a watch advertises between changes of its private address: flags and manufacturer data
    that carry no beacon id (so only its IRK can tell who it is)."""
    return flags() + ad(0xFF, struct.pack("<HB", TEST_COMPANY_ID, counter & 0xFF))
