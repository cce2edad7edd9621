#!/usr/bin/env python3
"""A virtual Bluetooth LE world for testing BlueDot without radios.

One Bumble LocalLink carries (a) the controller BlueDot's scanner talks to, exposed as H4 over TCP (or a pty),
and (b) one Bumble device per configured beacon, each advertising its frame with non-connectable legacy PDUs
through an extended advertising set. The scanner's controller (scanner_controller.ScannerController) turns
each PDU into one faithful advertising report whose RSSI follows the log-distance path-loss model from the
beacon's and the receiver's positions.

Prints one JSON line when ready, then runs until SIGTERM or SIGINT:
  {"ready": true, "port": N, "beacons": [...ids...]}        (TCP)
  {"ready": true, "pty": "/dev/pts/N", "beacons": [...]}    (--pty)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import shutil
import signal
import socket
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bumble import hci  # noqa: E402
from bumble.controller import Controller  # noqa: E402
from bumble.device import (  # noqa: E402
    AdvertisingEventProperties,
    AdvertisingParameters,
    Device,
)
from bumble.host import Host  # noqa: E402
from bumble.link import LocalLink  # noqa: E402
from bumble.transport.common import AsyncPipeSink  # noqa: E402
from bumble.transport.pty import open_pty_transport  # noqa: E402
from bumble.transport.tcp_server import open_tcp_server_transport_with_socket  # noqa: E402

import config as world_config  # noqa: E402
import radio  # noqa: E402
from scanner_controller import ScannerController  # noqa: E402

TLM_REFRESH_S = 1.0


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Virtual BLE beacons around a Bumble controller (H4 over TCP).")
    parser.add_argument("--config", default=os.path.join(HERE, "beacons.json"), help="world file (JSON)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="TCP port for H4 (default 0: pick a free one)")
    parser.add_argument("--pty", nargs="?", const="", default=None, metavar="LINK",
                        help="expose H4 on a pty instead of TCP; optional symlink path to create")
    parser.add_argument("--seed", type=int, default=0, help="seed of the RSSI noise generator (default 0)")
    parser.add_argument("--noise", type=float, default=None, help="RSSI noise sigma in dB (overrides the file)")
    parser.add_argument("--features", choices=("extended", "legacy"), default="extended",
                        help="advertise LE Extended Advertising support (default) or hide it like a 4.x controller")
    parser.add_argument("--verbose", action="store_true", help="log to stderr")
    return parser.parse_args(argv)


async def start_beacon(beacon: world_config.Beacon, link: LocalLink) -> None:
    """One Bumble device on the link, advertising `beacon`'s frame with non-connectable legacy PDUs."""
    controller = Controller(f"beacon-{beacon.address}", link=link)
    address = hci.Address(beacon.address, hci.Address.RANDOM_DEVICE_ADDRESS)
    device = Device(address=address, host=Host(controller, AsyncPipeSink(controller)))
    await device.power_on()
    properties = AdvertisingEventProperties(is_connectable=False, is_scannable=False, is_legacy=True)
    parameters = AdvertisingParameters(
        advertising_event_properties=properties,
        primary_advertising_interval_min=beacon.interval_ms,
        primary_advertising_interval_max=beacon.interval_ms,
    )
    advertising_set = await device.create_advertising_set(
        advertising_parameters=parameters, random_address=address, advertising_data=beacon.payload(0.0)
    )
    if beacon.frame == "eddystone-tlm":
        asyncio.get_running_loop().create_task(refresh_tlm(beacon, advertising_set))


async def refresh_tlm(beacon: world_config.Beacon, advertising_set) -> None:
    """Keeps a TLM beacon's counters (PDU count, uptime) moving."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    while True:
        await asyncio.sleep(TLM_REFRESH_S)
        await advertising_set.set_advertising_data(beacon.payload(loop.time() - started))


async def run(arguments: argparse.Namespace) -> int:
    world = world_config.load(arguments.config)
    sigma = world.noise_sigma if arguments.noise is None else arguments.noise
    model = radio.PathLoss(sigma_db=sigma, seed=arguments.seed)
    by_address = {beacon.address: beacon for beacon in world.beacons}

    def rssi_for(address: hci.Address) -> int | None:
        beacon = by_address.get(str(address).split("/")[0].upper())
        if beacon is None:
            return None
        distance = beacon.position.distance_to(world.receiver)
        return model.rssi(beacon.measured_power, beacon.path_loss_exponent, distance)

    link = LocalLink()
    scratch = None
    ready: dict = {"ready": True}
    if arguments.pty is not None:
        # Bumble's pty transport reports its replica only through the symlink it makes; resolve that link.
        scratch = None if arguments.pty else tempfile.mkdtemp(prefix="bluedot-world-")
        link_path = arguments.pty or os.path.join(scratch, "h4")
        transport = await open_pty_transport(link_path)
        ready["pty"] = os.path.realpath(link_path)
        ready["link"] = link_path
    else:
        listener = socket.create_server((arguments.host, arguments.port), reuse_port=False)
        transport = await open_tcp_server_transport_with_socket(listener)
        ready["port"] = listener.getsockname()[1]
    ScannerController(
        "bluedot-scanner", host_source=transport.source, host_sink=transport.sink, link=link,
        public_address="F0:F1:F2:F3:F4:F5", rssi_for=rssi_for, extended=arguments.features == "extended",
    )
    for beacon in world.beacons:
        await start_beacon(beacon, link)
    ready["beacons"] = [beacon.id for beacon in world.beacons]
    ready["features"] = arguments.features
    print(json.dumps(ready), flush=True)

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    # A launcher may hand down a mask blocking these (Foundation's Process on Linux does): unblock them.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    await transport.close()
    if scratch is not None:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


def main(argv: list[str]) -> int:
    arguments = parse_arguments(argv)
    logging.basicConfig(level=logging.DEBUG if arguments.verbose else logging.WARNING, stream=sys.stderr)
    try:
        return asyncio.run(run(arguments))
    except world_config.ConfigError as error:
        print(f"world.py: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"world.py: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
