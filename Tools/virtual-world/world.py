#!/usr/bin/env python3
"""A virtual Bluetooth LE world for testing BlueDot without radios.

One Bumble LocalLink carries (a) the controller BlueDot's scanner talks to, exposed as H4 over TCP (or a pty, or
the Linux kernel's /dev/vhci, where it becomes a real adapter such as hci0),
and (b) one Bumble device per configured beacon, each advertising its frame with non-connectable legacy PDUs
through an extended advertising set. The scanner's controller (scanner_controller.ScannerController) turns
each PDU into one faithful advertising report whose RSSI follows the log-distance path-loss model from the
beacon's and the receiver's positions.

With --listen-log, one more controller on the link, 3 m from the receiver, logs what the receiver's controller
advertises when its host asks it to (a BlueDot receiver with --advertise): one JSON line a PDU,
  {"t": <unix s>, "address": "F0:F1:F2:F3:F4:F5", "addressType": "public", "pdu": "legacy"|"extended",
   "rssi": <dBm>, "data": "<advertising data, hex>"}

Prints one JSON line when ready, then runs until SIGTERM or SIGINT:
  {"ready": true, "port": N, "beacons": [...ids...]}        (TCP)
  {"ready": true, "pty": "/dev/pts/N", "beacons": [...]}    (--pty)
  {"ready": true, "vhci": "/dev/vhci", "beacons": [...]}     (--vhci)

With --vhci, SIGUSR2 unplugs the receiver's controller (closes /dev/vhci: the kernel deletes the adapter) and the
next SIGUSR2 plugs a new one in (opens it again: a new adapter, hci0 or the next free index), each announced with a
line {"plugged": false} or {"plugged": true}. --unplugged starts unplugged. So a test replugs the controller in
0.1-0.3 s, where starting a new world takes Python and Bumble 28-76 s under emulation (Tools/vm).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bumble.link import LocalLink  # noqa: E402
from bumble.transport.pty import open_pty_transport  # noqa: E402

import air  # noqa: E402

RECEIVER_ADDRESS = "F0:F1:F2:F3:F4:F5"  # the public address of the controller BlueDot talks to
import config as world_config  # noqa: E402
import radio  # noqa: E402


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Virtual BLE beacons around a Bumble controller (H4 over TCP).")
    parser.add_argument("--config", default=os.path.join(HERE, "beacons.json"), help="world file (JSON)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="TCP port for H4 (default 0: pick a free one)")
    parser.add_argument("--pty", nargs="?", const="", default=None, metavar="LINK",
                        help="expose H4 on a pty instead of TCP; optional symlink path to create")
    parser.add_argument("--vhci", nargs="?", const="/dev/vhci", default=None, metavar="DEVICE",
                        help="be the controller of a kernel adapter through the vhci driver (default /dev/vhci)")
    parser.add_argument("--address", default=RECEIVER_ADDRESS,
                        help=f"the public address of the controller BlueDot talks to (default {RECEIVER_ADDRESS})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the RSSI noise generator (default 0)")
    parser.add_argument("--noise", type=float, default=None, help="RSSI noise sigma in dB (overrides the file)")
    parser.add_argument("--features", choices=("extended", "legacy"), default="extended",
                        help="advertise LE Extended Advertising support (default) or hide it like a 4.x controller")
    parser.add_argument("--listen-log", metavar="PATH",
                        help="put a second controller on the link, 3 m from the receiver, that logs (JSON lines) "
                             "every advertisement it hears from the receiver's own controller: what its host "
                             "advertises")
    parser.add_argument("--unplugged", action="store_true",
                        help="with --vhci: start with the controller unplugged (SIGUSR2 plugs it in, and out again)")
    parser.add_argument("--verbose", action="store_true", help="log to stderr")
    arguments = parser.parse_args(argv)
    if arguments.unplugged and arguments.vhci is None:
        parser.error("--unplugged needs --vhci")
    return arguments


class VhciPlug:
    """The receiver's controller behind /dev/vhci, plugged in and out on SIGUSR2: each plug is a new controller on
    the link with a fresh state, as a replugged dongle's, and each unplug closes the device, so the kernel deletes
    the adapter."""

    def __init__(self, path: str, attach) -> None:
        self.path = path
        self.attach = attach  # transport -> the receiver's controller, on the link
        self.transport = None
        self.scanner = None
        self.lock = asyncio.Lock()

    async def plug(self) -> None:
        self.transport = await air.open_vhci(self.path)
        self.scanner = self.attach(self.transport)

    async def unplug(self) -> None:
        self.scanner.quiesce()
        self.scanner.link.remove_controller(self.scanner)
        await self.transport.close()
        self.transport = self.scanner = None

    async def toggle(self) -> None:
        async with self.lock:
            try:
                await (self.plug() if self.transport is None else self.unplug())
            except OSError as error:
                print(f"world.py: {self.path}: {error.strerror}", file=sys.stderr, flush=True)
                return
            print(json.dumps({"plugged": self.transport is not None}), flush=True)

    def stick(self) -> None:
        if self.scanner is not None:
            self.scanner.stick()


async def run(arguments: argparse.Namespace) -> int:
    world = world_config.load(arguments.config)
    sigma = world.noise_sigma if arguments.noise is None else arguments.noise
    model = radio.PathLoss(sigma_db=sigma, seed=arguments.seed)
    antenna = radio.Antenna(world.receiver, world.beacons, model, elapsed_s=lambda: 0.0)  # nothing moves here

    link = LocalLink()
    scratch = None
    ready: dict = {"ready": True}

    def attach(transport):
        return air.attach_scanner(transport, link, "bluedot-scanner", arguments.address, antenna.rssi_for,
                                  extended=arguments.features == "extended")

    plug = None
    if arguments.vhci is not None:
        # The kernel registers the adapter (hci0, ...) once the transport has sent its vendor create packet.
        plug = VhciPlug(arguments.vhci, attach)
        if not arguments.unplugged:
            await plug.plug()
        ready["vhci"] = arguments.vhci
        ready["plugged"] = not arguments.unplugged
    elif arguments.pty is not None:
        # Bumble's pty transport reports its replica only through the symlink it makes; resolve that link.
        scratch = None if arguments.pty else tempfile.mkdtemp(prefix="bluedot-world-")
        link_path = arguments.pty or os.path.join(scratch, "h4")
        transport = await open_pty_transport(link_path)
        ready["pty"] = os.path.realpath(link_path)
        ready["link"] = link_path
    else:
        transport, ready["port"] = await air.listen_tcp(arguments.host, arguments.port)
    loop = asyncio.get_running_loop()
    # SIGUSR1: the controller's firmware gets stuck (reports nothing until a Reset), for the scanner's stall rule.
    # A parent may have started it with the signal blocked (a child inherits its mask: Foundation's Process does).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1, signal.SIGUSR2})
    if plug is None:
        scanner = attach(transport)
        loop.add_signal_handler(signal.SIGUSR1, scanner.stick)
    else:
        loop.add_signal_handler(signal.SIGUSR1, plug.stick)
        toggles: set[asyncio.Task] = set()  # held until done: the loop keeps only weak references to tasks

        def toggle() -> None:
            task = loop.create_task(plug.toggle())
            toggles.add(task)
            task.add_done_callback(toggles.discard)

        loop.add_signal_handler(signal.SIGUSR2, toggle)
    listener = None
    if arguments.listen_log:
        listener = air.attach_listener(link, arguments.listen_log, world.receiver, arguments.address, model)
    for beacon in world.beacons:
        await air.start_beacon(beacon, link)
    ready["beacons"] = [beacon.id for beacon in world.beacons]
    ready["features"] = arguments.features
    stop = air.stop_signal()
    print(json.dumps(ready), flush=True)

    await stop.wait()
    if listener is not None:
        listener.close()
    if plug is None:
        await transport.close()
    elif plug.transport is not None:
        await plug.transport.close()
    if scratch is not None:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


def main(argv: list[str]) -> int:
    return air.run_main("world.py", parse_arguments(argv), run)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
