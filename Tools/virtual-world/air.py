"""The air the virtual worlds share: beacon devices advertising on one Bumble LocalLink, and receiver controllers
(scanner_controller.ScannerController) hearing them, each exposed to its host as H4 over TCP or a pty."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import logging
import signal
import socket
import sys
import time
from typing import Callable

from bumble import hci, ll
from bumble.controller import Controller
from bumble.device import AdvertisingEventProperties, AdvertisingParameters, Device
from bumble.host import Host
from bumble.link import LocalLink
from bumble.transport.common import AsyncPipeSink, StreamPacketSource, Transport
from bumble.transport.tcp_server import open_tcp_server_transport_with_socket

import config
import radio
from scanner_controller import ScannerController

TLM_REFRESH_S = 1.0


async def start_beacon(beacon: config.Beacon, link: LocalLink) -> None:
    """One Bumble device on the link, advertising `beacon`'s frame with non-connectable PDUs, legacy or extended; a
    "private" one from a resolvable private address of its IRK, a new one every `rotate_s` seconds."""
    if beacon.irk is not None:
        # Bumble takes the key least significant byte first (SMP's order).
        beacon.address = hci.Address.generate_private_address(beacon.irk[::-1]).to_string(False)
    controller = Controller(f"beacon-{beacon.address}", link=link)
    address = hci.Address(beacon.address, hci.Address.RANDOM_DEVICE_ADDRESS)
    device = Device(address=address, host=Host(controller, AsyncPipeSink(controller)))
    await device.power_on()
    properties = AdvertisingEventProperties(is_connectable=False, is_scannable=False, is_legacy=beacon.pdu == "legacy")
    parameters = AdvertisingParameters(
        advertising_event_properties=properties,
        primary_advertising_interval_min=beacon.interval_ms,
        primary_advertising_interval_max=beacon.interval_ms,
    )
    advertising_set = await device.create_advertising_set(
        advertising_parameters=parameters, random_address=address, advertising_data=beacon.payload(0.0)
    )
    if beacon.frame == "eddystone-tlm":
        asyncio.get_running_loop().create_task(_refresh_tlm(beacon, advertising_set))
    if beacon.irk is not None:
        asyncio.get_running_loop().create_task(_rotate_address(beacon, advertising_set))


async def _rotate_address(beacon: config.Beacon, advertising_set) -> None:
    """A new resolvable private address every `rotate_s` seconds (Core Spec Vol 3, Part C, 10.7.1.2)."""
    while True:
        await asyncio.sleep(beacon.rotate_s)
        address = hci.Address.generate_private_address(beacon.irk[::-1])
        await advertising_set.set_random_address(address)
        beacon.address = address.to_string(False)


async def _refresh_tlm(beacon: config.Beacon, advertising_set) -> None:
    """Keeps a TLM beacon's counters (PDU count, uptime) moving."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    while True:
        await asyncio.sleep(TLM_REFRESH_S)
        await advertising_set.set_advertising_data(beacon.payload(loop.time() - started))


class _VhciSink:
    """Writes the controller's packets to /dev/vhci. While the kernel holds the adapter down (`hciconfig hci0 down`,
    rfkill, bluetoothd powering it off) it refuses them with ENXIO; they are dropped, as a powered-off radio's would
    be, instead of ending the transport, whose close would make the kernel delete the adapter (issue 45). After the
    transport's close, what the controller and its beacons still send is dropped too: writes to the closed descriptor
    would each raise EBADF into the event loop's log, and a world flooded with them took over 30 s to exit."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.dropped = 0
        self.closed = False

    def on_packet(self, packet: bytes) -> None:
        if self.closed:
            self.dropped += 1
            return
        try:
            os.write(self.fd, packet)
        except OSError as error:
            if error.errno not in (errno.ENXIO, errno.EBADFD, errno.EAGAIN, errno.ENETDOWN):
                raise
            self.dropped += 1

    def close(self) -> None:
        pass


async def open_vhci(path: str) -> Transport:
    """Bumble's vhci transport, but one that outlives a power cycle of its adapter (`_VhciSink`): the vendor packet
    that makes the kernel register the adapter (hciN), then H4 both ways."""
    device = open(path, "r+b", buffering=0)
    read_pipe, source = await asyncio.get_running_loop().connect_read_pipe(StreamPacketSource, device)
    vendor_packet, controller_type_primary = 0xFF, 0x00

    def data_received(data: bytes) -> None:
        # The kernel's answer to the vendor packet (its index) is no H4 packet.
        if not data or data[0] != vendor_packet:
            source.parser.feed_data(data)

    source.data_received = data_received
    sink = _VhciSink(device.fileno())

    class VhciTransport(Transport):
        async def close(self) -> None:
            sink.closed = True
            read_pipe.close()
            device.close()

    sink.on_packet(bytes([vendor_packet, controller_type_primary]))
    return VhciTransport(source, sink)


async def listen_tcp(host: str, port: int) -> tuple[Transport, int]:
    """An H4 transport for the first host to connect to `host`:`port` (0: a free port), and the port it got."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.create_server((host, port), family=family, reuse_port=False)
    transport = await open_tcp_server_transport_with_socket(listener)
    return transport, listener.getsockname()[1]


def attach_scanner(transport: Transport, link: LocalLink, name: str, address: str,
                   rssi_for: Callable[[hci.Address], int | None], extended: bool) -> ScannerController:
    """The receiver's controller on `link`, talking H4 over `transport`; `rssi_for` is its radio model."""
    return ScannerController(
        name, host_source=transport.source, host_sink=transport.sink, link=link, public_address=address,
        rssi_for=rssi_for, extended=extended,
    )


class Listener:
    """A controller on the link that hears one receiver's own advertising and logs it (world.py --listen-log):
    the check that what a host asked its controller to advertise went out, from which address, with what data."""

    def __init__(self, link: LocalLink, path: str, position: config.Position, address: str,
                 model: radio.PathLoss) -> None:
        self.file = open(path, "w", encoding="utf-8")
        self.address = address.upper()
        self.position = config.Position(position.x + 3.0, position.y, position.z)
        self.antenna = radio.Antenna(
            self.position, [radio.FixedAdvertiser(self.address, position, -59.0, 2.0)], model, elapsed_s=lambda: 0.0)
        self.controller = ListeningController(self, "listener", link=link, public_address="F0:F1:F2:F3:F4:F6")

    def heard(self, pdu) -> None:
        address = pdu.advertiser_address
        if str(address).split("/")[0].upper() != self.address:
            return  # the world's beacons
        rssi = self.antenna.rssi_for(address)
        kind = "public" if address.address_type == hci.Address.PUBLIC_DEVICE_ADDRESS else "random"
        self.file.write(json.dumps({
            "t": time.time(), "address": str(address).split("/")[0], "addressType": kind,
            "pdu": "extended" if isinstance(pdu, ll.AdvExtInd) else "legacy", "rssi": rssi, "data": bytes(pdu.data).hex(),
        }) + "\n")
        self.file.flush()

    def close(self) -> None:
        self.file.close()


class ListeningController(Controller):
    """The listener's controller: every advertising PDU on the link goes to its `Listener`, scanning or not."""

    def __init__(self, listener: Listener, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.listener = listener

    def on_ll_advertising_pdu(self, packet: ll.AdvertisingPdu) -> None:
        self.listener.heard(packet)


def attach_listener(link: LocalLink, path: str, position: config.Position, address: str,
                    model: radio.PathLoss) -> Listener:
    """A listener 3 m from `position`, logging to `path` what the controller at `address` advertises."""
    return Listener(link, path, position, address, model)


def stop_signal() -> asyncio.Event:
    """An event set by SIGTERM or SIGINT; install it before announcing readiness, so an early stop is caught."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    # A launcher may hand down a mask blocking these (Foundation's Process on Linux does): unblock them.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    return stop


def run_main(program: str, arguments, run: Callable) -> int:
    """Runs `run(arguments)` (a coroutine function) as a script's main: logging to stderr (debug with
    `--verbose`), exit 2 on a bad config and 1 on an OS error, each with one line naming `program`."""
    logging.basicConfig(level=logging.DEBUG if arguments.verbose else logging.WARNING, stream=sys.stderr)
    try:
        return asyncio.run(run(arguments))
    except config.ConfigError as error:
        print(f"{program}: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"{program}: {error}", file=sys.stderr)
        return 1
