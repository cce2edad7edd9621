"""A minimal HCI host for the self-tests: the commands a scanner sends, and an H4-over-TCP reader of events."""

from __future__ import annotations

import socket
import struct
import time

from bumble import hci


def command(opcode: int, parameters: bytes = b"") -> bytes:
    """An H4 command packet: indicator 0x01, opcode, parameter length, parameters."""
    return bytes([0x01]) + struct.pack("<HB", opcode, len(parameters)) + parameters


RESET = command(0x0C03)
SET_EVENT_MASK = command(0x0C01, (0x3DBFF807FFFBFFFF | 1 << 61).to_bytes(8, "little"))
LE_SET_EVENT_MASK_ALL = command(0x2001, (0x7FFFF).to_bytes(8, "little"))
LE_SET_SCAN_PARAMETERS = command(0x200B, bytes([0x00]) + struct.pack("<HH", 0x0010, 0x0010) + bytes([0x01, 0x00]))
LE_SET_SCAN_ENABLE = command(0x200C, bytes([0x01, 0x00]))
LE_SET_EXT_SCAN_PARAMETERS = command(0x2041, bytes([0x01, 0x00, 0x01, 0x00]) + struct.pack("<HH", 0x10, 0x10))
LE_SET_EXT_SCAN_ENABLE = command(0x2042, bytes([0x01, 0x00]) + struct.pack("<HH", 0, 0))
LEGACY_SCAN = (RESET, SET_EVENT_MASK, LE_SET_SCAN_PARAMETERS, LE_SET_SCAN_ENABLE)


def split_events(buffer: bytes) -> tuple[list[hci.HCI_Event], bytes]:
    """The whole H4 events at the front of `buffer` (indicator 0x04, code, length, parameters), and the rest."""
    events = []
    while len(buffer) >= 3 and len(buffer) >= 3 + buffer[2]:
        size = 3 + buffer[2]
        events.append(hci.HCI_Packet.from_bytes(buffer[:size]))
        buffer = buffer[size:]
    return events, buffer


class H4Client:
    """One TCP connection to a controller; `events` frames what comes back (indicator 0x04, code, length)."""

    def __init__(self, host: str, port: int, timeout_s: float = 10.0) -> None:
        self.socket = socket.create_connection((host, port), timeout=timeout_s)
        self.buffer = b""

    def send(self, *packets: bytes) -> None:
        for packet in packets:
            self.socket.sendall(packet)

    def timed_events(self, duration_s: float) -> list[tuple[float, hci.HCI_Event]]:
        """Every event within `duration_s`, each with the wall-clock time its bytes arrived."""
        deadline = time.monotonic() + duration_s
        out = []
        while time.monotonic() < deadline:
            self.socket.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                chunk = self.socket.recv(4096)
            except TimeoutError:
                break
            if not chunk:
                break
            arrived = time.time()
            events, self.buffer = split_events(self.buffer + chunk)
            out += [(arrived, event) for event in events]
        return out

    def events(self, duration_s: float) -> list[hci.HCI_Event]:
        """Every event within `duration_s`."""
        return [event for _, event in self.timed_events(duration_s)]

    def close(self) -> None:
        self.socket.close()
