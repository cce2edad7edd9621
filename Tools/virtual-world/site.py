#!/usr/bin/env python3
"""A virtual site for testing BlueDot's tag mode without radios: fixed receivers hear moving tags.

Every receiver of the site file gets a controller of its own (scanner_controller.ScannerController), exposed as
H4 over TCP; every tag is a Bumble device advertising its frame while it walks its track. A receiver reports each
tag it hears with RSSI = measuredPower - 10 n log10(d) + its hidden gain - the walls crossed (+ seeded noise), d
from the tag's position at that instant to the receiver's. A receiver whose host makes it advertise (BlueDot's
`--advertise`) is heard by the others the same way, with the site's `receiverAdvertiser` model. One process can run every receiver (one LocalLink), or any subset (`--only`), so a test can
start one process per network namespace; given the same `--start`, their tags walk in step.

Prints one JSON line when every receiver listens, then runs until SIGTERM or SIGINT:
  {"ready": true, "receivers": {"rx-1": {"host": "127.0.0.1", "port": N}, ...},
   "addresses": {"rx-1": "F0:F1:F2:F3:00:01", ...}, "tags": [...ids...], "start": <unix time of t = 0>,
   "features": "extended"}

Named site.py as the tool it is; nothing imports it (it would be shadowed by Python's own `site` module).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bumble.link import LocalLink  # noqa: E402

import air  # noqa: E402
import radio  # noqa: E402
import site_config  # noqa: E402
from config import ConfigError  # noqa: E402
from truth import TruthWriter  # noqa: E402


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="site.py", description="Fixed Bumble receivers hearing moving virtual tags (H4 over TCP each).")
    parser.add_argument("--config", default=os.path.join(HERE, "site.json"), help="site file (JSON)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address the receivers without --listen listen on, each on a free port")
    parser.add_argument("--listen", action="append", default=[], type=listen_spec, metavar="ID=[HOST:]PORT",
                        help="where receiver ID listens (repeatable); HOST defaults to --host")
    parser.add_argument("--only", action="append", default=[], metavar="ID[,ID...]",
                        help="run only these receivers (repeatable); the tags always all run")
    parser.add_argument("--start", type=float, default=None, metavar="UNIX",
                        help="unix time of the tracks' t = 0 (default: when ready); give every process the same")
    parser.add_argument("--rate", type=float, default=1.0,
                        help="run the tracks RATE times faster than the wall clock from --start (a simulated day)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the RSSI noise (overrides the file's)")
    parser.add_argument("--noise", type=float, default=None, help="RSSI noise sigma in dB (overrides the file)")
    parser.add_argument("--features", choices=("extended", "legacy"), default="extended",
                        help="advertise LE Extended Advertising support (default) or hide it like a 4.x controller")
    parser.add_argument("--truth", metavar="PATH", help="write the tags' true positions (truth JSONL) every 0.1 s")
    parser.add_argument("--venue", metavar="PATH", help="write a BlueDot venue with the receivers as anchors")
    parser.add_argument("--truth-gains", metavar="PATH",
                        help="write the receivers' hidden gain offsets, {\"rx-1\": dB, ...}, for a test to compare")
    parser.add_argument("--verbose", action="store_true", help="log to stderr")
    arguments = parser.parse_args(argv)
    if not 0 < arguments.rate <= 10000:
        parser.error(f"--rate: {arguments.rate} must be in (0, 10000]")
    if arguments.noise is not None and not arguments.noise >= 0:
        parser.error(f"--noise: {arguments.noise} must be 0 or more")
    return arguments


def listen_spec(text: str) -> tuple[str, str | None, int]:
    """`rx-1=10.0.0.1:9000`, `rx-1=[::1]:9000` or `rx-1=9000` -> (id, host or None, port)."""
    identifier, equals, address = text.partition("=")
    host, colon, port = address.rpartition(":")
    if not equals or not identifier or not port.isdigit() or int(port) > 65535 or (colon and not host):
        raise argparse.ArgumentTypeError(f"{text!r}: expected ID=HOST:PORT or ID=PORT")
    return identifier, host.strip("[]") if colon else None, int(port)


def chosen_receivers(site: site_config.Site, arguments: argparse.Namespace) -> list[site_config.Receiver]:
    """The receivers this process runs; a ConfigError for an id the site does not have."""
    known = {receiver.id for receiver in site.receivers}
    only = {identifier for group in arguments.only for identifier in group.split(",") if identifier}
    for option, identifiers in (("--only", sorted(only)), ("--listen", [spec[0] for spec in arguments.listen])):
        for identifier in identifiers:
            if identifier not in known:
                raise ConfigError(f"{option}: no receiver {identifier!r} in {arguments.config} "
                                  f"(it has {', '.join(r.id for r in site.receivers)})")
    return [receiver for receiver in site.receivers if not only or receiver.id in only]


async def run(arguments: argparse.Namespace) -> int:
    site = site_config.load(arguments.config)
    receivers = chosen_receivers(site, arguments)
    sigma = site.noise_sigma if arguments.noise is None else arguments.noise
    seed = site.seed if arguments.seed is None else arguments.seed
    places = {identifier: (host or arguments.host, port) for identifier, host, port in arguments.listen}
    start = arguments.start  # None until ready, when the walks begin
    if arguments.venue:
        with open(arguments.venue, "w", encoding="utf-8") as file:
            file.write(site_config.venue_text(site_config.venue(site, os.path.basename(arguments.config))))
    if arguments.truth_gains:
        with open(arguments.truth_gains, "w", encoding="utf-8") as file:
            json.dump({receiver.id: receiver.gain_db for receiver in site.receivers}, file)
            file.write("\n")

    def elapsed_s() -> float:
        return (time.time() - start) * arguments.rate if start is not None else 0.0

    link = LocalLink()
    transports = []
    listening: dict[str, dict] = {}
    addresses: dict[str, str] = {}
    for receiver in receivers:
        # One generator per receiver, seeded by its id: the same noise whichever process runs it.
        model = radio.PathLoss(sigma_db=sigma, seed=f"{seed}:{receiver.id}")
        # It hears the tags and, when their hosts make them advertise, the other receivers.
        others = [a for a in site.receiver_advertisers() if a.address != receiver.address]
        antenna = radio.Antenna(receiver.position, list(site.tags) + others, model, elapsed_s,
                                gain_db=receiver.gain_db, walls=site.walls)
        host, port = places.get(receiver.id, (arguments.host, 0))
        transport, port = await air.listen_tcp(host, port)
        transports.append(transport)
        air.attach_scanner(transport, link, f"receiver-{receiver.id}", receiver.address, antenna.rssi_for,
                           extended=arguments.features == "extended")
        listening[receiver.id] = {"host": host, "port": port}
        addresses[receiver.id] = receiver.address
    for tag in site.tags:
        await air.start_beacon(tag, link)

    if start is None:
        start = time.time()
    truth = TruthWriter(arguments.truth, site.tags, start, rate=arguments.rate) if arguments.truth else None
    truth_task = asyncio.get_running_loop().create_task(truth.run()) if truth else None
    stop = air.stop_signal()
    print(json.dumps({"ready": True, "receivers": listening, "addresses": addresses,
                      "tags": [tag.id for tag in site.tags], "start": start, "rate": arguments.rate,
                      "features": arguments.features}),
          flush=True)

    await stop.wait()
    if truth_task is not None:
        truth_task.cancel()
        truth.close()
    for transport in transports:
        await transport.close()
    return 0


def main(argv: list[str]) -> int:
    return air.run_main("site.py", parse_arguments(argv), run)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
