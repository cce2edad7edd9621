#!/usr/bin/env python3
"""BlueDot against a real Home Assistant: a solver's MQTT discovery as Home Assistant core itself reads it.

Runs with the Python of the Home Assistant venv (`Tools/dev setup` makes it: homeassistant 2024.1.6 and the
requirements its MQTT, HTTP and person integrations pin, so Home Assistant, started with --skip-pip, never downloads
anything). It starts mosquitto, Home Assistant (a minimal configuration: http, api, websocket_api, config, person
with Alice linked to the tracker of her keys, logger; the Home zone at the venue's origin) and adds the MQTT
integration through Home Assistant's REST config flow. Then a `bluedot run` solver takes the reports of ESPresense
nodes (published here, from the companion's example house: the keys walk from the family room to the dining room)
and it checks, through Home Assistant's REST and websocket APIs:

- entity ids come from the names (`--ha-names`): device_tracker.alice_s_keys, sensor.alice_s_keys_room, ...;
- the tracker reads `home` while located, and person.alice reads home; the room sensor follows the rooms; the
  accuracy sensor has its unit; the tracker carries latitude, longitude and gps_accuracy;
- across a solver restart while the keys are heard, neither the tracker nor the person ever reads `not_home`;
- a named target never heard (Bob's tag) reads `not_home` once the inside timeout has passed after the start (the
  venue has an exit, and where Bob fell silent is unknown);
- presence by where the silence began (the Foyer is marked as the exit): the keys falling silent in the dining
  room stay `home` past the away timeout; once they are last heard in the Foyer and fall silent, the tracker and the
  person read `not_home` after the away timeout, well before the inside one, and every entity stays, including the
  room sensor the user renamed (sensor.alice_room);
- `--ha-remove` removes the keys' entities, and a solver started without Bob's name removes his (configs cleared
  first, states later);
- the automations of docs/site.md's examples are valid (Home Assistant's `validate_config`);
- Home Assistant's log has no warning or error about MQTT or BlueDot (`Erroneous JSON` included).

Usage: check.py --bluedot PATH [--work DIR] [--keep]. Exit status 0 when every check passes; prints one line per
step with its time, and Home Assistant's log lines that failed the last check.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from datetime import datetime, timezone

import aiohttp
import jwt
import paho.mqtt.client as paho
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
COMPANION = os.path.join(ROOT, "Tests/PositioningTests/Fixtures/espresense-companion-config.example.yaml")
DEVICE = "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-7"
KEYS = "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7"
BOB = "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:8"
AWAY_SECONDS = 12
INSIDE_SECONDS = 45
FAMILY, DINING, FOYER = (3.0, 2.7), (14.4, 4.75), (10.9, 10.3)
EXIT = "Foyer"
STARTED = time.monotonic()


class CheckFailed(Exception):
    pass


def log(message: str) -> None:
    print(f"ha-check {time.monotonic() - STARTED:6.1f}s  {message}", flush=True)


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)
    log(f"ok: {message}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Nodes:
    """ESPresense nodes of the venue's ground floor reporting the keys at a position, five times a second, on a
    thread of their own (RSSI from the venue's path-loss model, as the integration tests compute it)."""

    def __init__(self, venue: dict, port: int):
        self.model = venue["model"]
        self.anchors = [a for a in venue["anchors"] if a.get("floor") == 0 and a.get("z", 0) >= 0]
        self.position: tuple[float, float] | None = None
        self.lock = threading.Lock()
        self.client = paho.Client(client_id="espresense-nodes")
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def place(self, position: tuple[float, float] | None) -> None:
        with self.lock:
            self.position = position

    def run(self) -> None:
        while not self.stopping.wait(0.2):
            with self.lock:
                position = self.position
            if position is None:
                continue
            x, y = position
            for node in self.anchors:
                model = {**self.model, **node.get("model", {})}
                d = max(0.5, math.sqrt((node["x"] - x) ** 2 + (node["y"] - y) ** 2 + (node.get("z", 0) - 1) ** 2))
                reference = model["measuredPower"] - 6
                rssi = reference - 10 * model["pathLossExponent"] * math.log10(d)
                payload = {"id": DEVICE, "mac": "c00000000007", "rssi@1m": round(reference), "rssi": round(rssi, 2),
                           "rxAdj": 0, "rssiVar": 0.5, "distance": round(d, 2), "var": 0.1, "int": 200}
                self.client.publish(f"espresense/devices/{DEVICE}/{node['id']}", json.dumps(payload))

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join()
        self.client.loop_stop()
        self.client.disconnect()


def write_auth(config: str) -> str:
    """An owner with a long-lived access token in Home Assistant's auth store (the layout of
    homeassistant/auth/auth_store.py, storage version 1), and the token: the JWT Home Assistant would issue for it."""
    user, refresh = uuid.uuid4().hex, uuid.uuid4().hex
    jwt_key = secrets.token_hex(64)
    auth = {"version": 1, "minor_version": 1, "key": "auth", "data": {
        "users": [{"id": user, "group_ids": ["system-admin"], "is_owner": True, "is_active": True, "name": "ci",
                   "system_generated": False, "local_only": False}],
        "groups": [{"id": "system-admin", "name": "Administrators"}, {"id": "system-users", "name": "Users"},
                   {"id": "system-read-only", "name": "Read Only"}],
        "credentials": [],
        "refresh_tokens": [{"id": refresh, "user_id": user, "client_id": None, "client_name": "ha-check",
                            "client_icon": None, "token_type": "long_lived_access_token",
                            "created_at": datetime.now(timezone.utc).isoformat(),
                            "access_token_expiration": 86400.0, "token": secrets.token_hex(64), "jwt_key": jwt_key,
                            "last_used_at": None, "last_used_ip": None, "credential_id": None,
                            "version": "2024.1.6"}],
    }}
    os.makedirs(os.path.join(config, ".storage"), exist_ok=True)
    with open(os.path.join(config, ".storage", "auth"), "w") as f:
        json.dump(auth, f)
    now = int(time.time())
    return jwt.encode({"iss": refresh, "iat": now, "exp": now + 86400}, jwt_key, algorithm="HS256")


def write_configuration(config: str, port: int, origin: dict) -> None:
    with open(os.path.join(config, "configuration.yaml"), "w") as f:
        f.write(f"""homeassistant:
  name: BlueDot check
  latitude: {origin['lat']}
  longitude: {origin['lon']}
  elevation: 0
  unit_system: metric
  time_zone: UTC
  country: US
  currency: USD
http:
  server_host: 127.0.0.1
  server_port: {port}
api:
websocket_api:
config:
logger:
  default: info
person:
  - name: Alice
    id: alice
    device_trackers:
      - device_tracker.alice_s_keys
""")


class HomeAssistant:
    """Home Assistant's REST and websocket APIs, and every state change of the entities watched."""

    def __init__(self, port: int, token: str):
        self.base = f"http://127.0.0.1:{port}"
        self.headers = {"Authorization": f"Bearer {token}"}
        self.token = token
        self.session = aiohttp.ClientSession()
        self.history: dict[str, list[str]] = {}
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.next_id = 1
        self.replies: dict[int, asyncio.Future] = {}

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        await self.session.close()

    async def get(self, path: str) -> tuple[int, object]:
        async with self.session.get(self.base + path, headers=self.headers) as r:
            return r.status, (await r.json() if r.content_type == "application/json" else await r.text())

    async def post(self, path: str, body: dict) -> tuple[int, object]:
        async with self.session.post(self.base + path, headers=self.headers, json=body) as r:
            return r.status, (await r.json() if r.content_type == "application/json" else await r.text())

    async def state(self, entity: str) -> dict | None:
        status, body = await self.get(f"/api/states/{entity}")
        return body if status == 200 else None

    async def wait_state(self, entity: str, wanted, seconds: float) -> dict:
        """The entity's state once `wanted(state dict or None)` holds; fails after `seconds`."""
        deadline = time.monotonic() + seconds
        last = None
        while time.monotonic() < deadline:
            try:
                last = await self.state(entity)
            except aiohttp.ClientError:
                last = None
            if wanted(last):
                return last
            await asyncio.sleep(0.25)
        raise CheckFailed(f"{entity}: not as expected within {seconds:.0f} s; last: {json.dumps(last)[:400]}")

    async def connect_websocket(self) -> None:
        self.ws = await self.session.ws_connect(self.base + "/api/websocket")
        hello = await self.ws.receive_json()
        if hello.get("type") != "auth_required":
            raise CheckFailed(f"websocket: {hello}")
        await self.ws.send_json({"type": "auth", "access_token": self.token})
        ok = await self.ws.receive_json()
        if ok.get("type") != "auth_ok":
            raise CheckFailed(f"websocket auth: {ok}")
        asyncio.get_running_loop().create_task(self.read_websocket())
        await self.command({"type": "subscribe_events", "event_type": "state_changed"})

    async def read_websocket(self) -> None:
        assert self.ws is not None
        async for message in self.ws:
            data = json.loads(message.data)
            if data.get("type") == "event":
                event = data["event"]["data"]
                new = event.get("new_state")
                self.history.setdefault(event["entity_id"], []).append(new["state"] if new else "<removed>")
            elif data.get("id") in self.replies:
                self.replies.pop(data["id"]).set_result(data)

    async def command(self, body: dict) -> dict:
        assert self.ws is not None
        body = {**body, "id": self.next_id}
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.replies[body["id"]] = future
        await self.ws.send_json(body)
        reply = await asyncio.wait_for(future, 10)
        if not reply.get("success"):
            raise CheckFailed(f"websocket {body['type']}: {reply}")
        return reply


NAMES = f"{KEYS}=Alice's keys, {BOB}=Bob's tag"


def start_solver(bluedot: str, broker: int, venue: str, work: str, extra: list[str],
                 names: str = NAMES) -> subprocess.Popen:
    arguments = [bluedot, "run", "--mqtt", f"mqtt://127.0.0.1:{broker}", "--site", "house", "--venue", venue,
                 "--mode", "tag", "--espresense", "--listen", "127.0.0.1:0", "--history", "off",
                 "--ha-names", names, "--away-timeout", str(AWAY_SECONDS),
                 "--away-timeout-inside", str(INSIDE_SECONDS)]
    out = open(os.path.join(work, "solver.log"), "a")
    return subprocess.Popen(arguments + extra, stdout=out, stderr=subprocess.STDOUT)


def stop(process: subprocess.Popen | None) -> None:
    if process is not None and process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def documented_automations() -> list[dict]:
    """The automations of the examples in docs/site.md ("Home Assistant", "Examples")."""
    with open(os.path.join(ROOT, "docs", "site.md")) as f:
        text = f.read()
    examples = text[text.index("### Examples"):text.index("### Tests")]
    automations = []
    for block in examples.split("```yaml\n")[1:]:
        automations += yaml.safe_load(block.split("```")[0]).get("automation", [])
    return automations


def log_problems(path: str) -> list[str]:
    """Warnings and errors in Home Assistant's log that mention MQTT or BlueDot, and every error (a setup that failed,
    a requirement missing), each record with all its lines."""
    problems = []
    with open(path, errors="replace") as f:
        record = ""
        for line in f.read().splitlines() + ["9999-"]:
            if line[:4].isdigit() and line[4:5] == "-":
                head = record.split("\n", 1)[0]
                error = " ERROR " in head or " CRITICAL " in head
                about = "mqtt" in record.lower() or "bluedot" in record.lower() or "Erroneous JSON" in record
                if error or (" WARNING " in head and about):
                    problems.append(record)
                record = line
            else:
                record += "\n" + line
    return problems


async def scenario(args: argparse.Namespace, work: str) -> None:
    # SIGTERM (Tools/dev's timeout) cancels the scenario once: its `finally` then stops, by pid, everything it started.
    task = asyncio.current_task()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, lambda: task.cancelling() or task.cancel())
    venue_path = os.path.join(work, "house.venue.json")
    subprocess.run([args.bluedot, "venue", "import", "--espresense", COMPANION, "-o", venue_path], check=True,
                   capture_output=True)
    with open(venue_path) as f:
        venue = json.load(f)
    # The user marks the front door's room as the exit (the companion's configuration has no such mark).
    exits = [room for room in venue["rooms"] if room.get("name") == EXIT]
    expect(len(exits) == 1, f"the imported venue has the {EXIT}")
    exits[0]["exit"] = True
    with open(venue_path, "w") as f:
        json.dump(venue, f)

    broker_port, ha_port = free_port(), free_port()
    with open(os.path.join(work, "mosquitto.conf"), "w") as f:
        f.write(f"listener {broker_port} 127.0.0.1\nallow_anonymous true\n")
    processes: list[subprocess.Popen] = []
    solver: subprocess.Popen | None = None
    nodes: Nodes | None = None
    ha: HomeAssistant | None = None
    config = os.path.join(work, "config")
    os.makedirs(config)
    try:
        processes.append(subprocess.Popen(["/usr/sbin/mosquitto", "-c", os.path.join(work, "mosquitto.conf")],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        token = write_auth(config)
        write_configuration(config, ha_port, venue["origin"])
        ha_out = open(os.path.join(work, "home-assistant.out"), "w")
        processes.append(subprocess.Popen(
            [sys.executable, "-m", "homeassistant", "--config", config, "--skip-pip"],
            stdout=ha_out, stderr=subprocess.STDOUT))
        ha = HomeAssistant(ha_port, token)
        deadline = time.monotonic() + 120
        while True:
            try:
                status, _ = await ha.get("/api/")
                if status == 200:
                    break
            except aiohttp.ClientError:
                pass
            if time.monotonic() > deadline or processes[-1].poll() is not None:
                raise CheckFailed("Home Assistant's API did not come up within 120 s")
            await asyncio.sleep(0.5)
        log("Home Assistant is up")

        # The MQTT integration, through Home Assistant's own config flow (what a user does in the UI).
        status, flow = await ha.post("/api/config/config_entries/flow", {"handler": "mqtt"})
        expect(status == 200 and flow.get("type") == "form", f"the MQTT config flow opens at step {flow.get('step_id')}")
        status, done = await ha.post(f"/api/config/config_entries/flow/{flow['flow_id']}",
                                     {"broker": "127.0.0.1", "port": broker_port})
        expect(status == 200 and done.get("type") == "create_entry" and done["result"]["state"] == "loaded",
               f"the MQTT integration is added and loaded: {done.get('result', done)}")
        await ha.connect_websocket()

        nodes = Nodes(venue, broker_port)
        nodes.place(FAMILY)
        solver = start_solver(args.bluedot, broker_port, venue_path, work, [])
        tracker = await ha.wait_state("device_tracker.alice_s_keys", lambda s: s and s["state"] == "home", 60)
        expect(True, "device_tracker.alice_s_keys (the entity id from the name) reads home")
        attributes = tracker["attributes"]
        expect(all(k in attributes for k in ("latitude", "longitude", "gps_accuracy", "x_m", "accuracy_m")),
               f"the tracker carries coordinates and snake_case attributes: {sorted(attributes)}")
        await ha.wait_state("person.alice", lambda s: s and s["state"] == "home", 10)
        expect(True, "person.alice reads home")
        await ha.wait_state("sensor.alice_s_keys_room", lambda s: s and s["state"] == "Family", 20)
        expect(True, "sensor.alice_s_keys_room reads Family")
        nodes.place(DINING)
        await ha.wait_state("sensor.alice_s_keys_room", lambda s: s and s["state"] == "Dining", 30)
        expect(True, "sensor.alice_s_keys_room follows to Dining")
        accuracy = await ha.wait_state("sensor.alice_s_keys_accuracy", lambda s: s and s["state"] not in
                                       ("unknown", "unavailable"), 10)
        expect(accuracy["attributes"].get("unit_of_measurement") == "m" and float(accuracy["state"]) > 0,
               f"sensor.alice_s_keys_accuracy has metres: {accuracy['state']} {accuracy['attributes']}")
        receivers = await ha.state("sensor.alice_s_keys_receivers")
        expect(receivers is not None and int(float(receivers["state"])) >= 3,
               f"sensor.alice_s_keys_receivers counts the nodes: {receivers and receivers['state']}")

        # The user renames the room sensor in Home Assistant (its entity registry, by unique id).
        await ha.command({"type": "config/entity_registry/update", "entity_id": "sensor.alice_s_keys_room",
                          "new_entity_id": "sensor.alice_room"})
        await ha.wait_state("sensor.alice_room", lambda s: s and s["state"] == "Dining", 10)
        expect(True, "renamed to sensor.alice_room, still Dining")

        # Bob's tag, named but never heard, is announced not_home once the inside timeout has passed (where he fell
        # silent is unknown, and the venue has an exit).
        await ha.wait_state("device_tracker.bob_s_tag", lambda s: s and s["state"] == "not_home", INSIDE_SECONDS + 20)
        expect(True, "device_tracker.bob_s_tag (named, never heard) reads not_home")

        # A solver restart while the keys are heard: never not_home.
        stop(solver)
        await ha.wait_state("device_tracker.alice_s_keys", lambda s: s and s["state"] == "unavailable", 10)
        solver = start_solver(args.bluedot, broker_port, venue_path, work, [])
        await ha.wait_state("device_tracker.alice_s_keys", lambda s: s and s["state"] == "home", 30)
        await asyncio.sleep(3)
        trackers = ha.history.get("device_tracker.alice_s_keys", [])
        people = ha.history.get("person.alice", [])
        expect("not_home" not in trackers and "unavailable" in trackers,
               f"across the restart the tracker went unavailable and back, never not_home: {trackers}")
        expect("not_home" not in people, f"person.alice never read not_home: {people}")

        # The keys fall silent in the dining room (a phone asleep): home, past the away timeout.
        before = len(ha.history.get("device_tracker.alice_s_keys", []))
        nodes.place(None)
        await asyncio.sleep(AWAY_SECONDS + 10)
        tracker = await ha.state("device_tracker.alice_s_keys")
        silence = ha.history.get("device_tracker.alice_s_keys", [])[before:]
        expect(tracker is not None and tracker["state"] == "home" and "not_home" not in silence,
               f"silent in the dining room for {AWAY_SECONDS + 10} s, the keys still read home: {silence}")
        nodes.place(DINING)
        await asyncio.sleep(3)

        # The keys leave through the Foyer: not_home after the away timeout, every entity kept (the renamed one too).
        nodes.place(FOYER)
        await ha.wait_state("sensor.alice_room", lambda s: s and s["state"] == EXIT, 30)
        expect(True, f"the keys reach the {EXIT}, the exit")
        nodes.place(None)
        left = time.monotonic()
        await ha.wait_state("device_tracker.alice_s_keys", lambda s: s and s["state"] == "not_home",
                            AWAY_SECONDS + 15)
        waited = time.monotonic() - left
        expect(AWAY_SECONDS - 1 <= waited < INSIDE_SECONDS,
               f"the keys, last heard at the exit, read not_home {waited:.1f} s after the last report")
        await ha.wait_state("person.alice", lambda s: s and s["state"] == "not_home", 10)
        expect(True, "person.alice reads not_home")
        room = await ha.wait_state("sensor.alice_room", lambda s: s and s["state"] == "none", 10)
        expect(room is not None, "the renamed sensor.alice_room is kept and reads none")
        reply = await ha.command({"type": "config/entity_registry/list"})
        ids = {e["entity_id"] for e in reply["result"]}
        wanted = {"device_tracker.alice_s_keys", "sensor.alice_room", "sensor.alice_s_keys_accuracy",
                  "sensor.alice_s_keys_receivers", "device_tracker.bob_s_tag", "sensor.bob_s_tag_room"}
        expect(wanted <= ids, f"the entities stay registered: missing {sorted(wanted - ids)}")

        # Explicit removals: the next solver runs with --ha-remove for the keys, and without Bob's name.
        stop(solver)
        solver = start_solver(args.bluedot, broker_port, venue_path, work, ["--ha-remove", KEYS],
                              names=f"{KEYS}=Alice's keys")
        await ha.wait_state("device_tracker.alice_s_keys", lambda s: s is None, 20)
        await ha.wait_state("sensor.alice_room", lambda s: s is None, 10)
        expect(True, "--ha-remove removed the keys' entities")
        await ha.wait_state("device_tracker.bob_s_tag", lambda s: s is None, 20)
        await ha.wait_state("sensor.bob_s_tag_room", lambda s: s is None, 10)
        expect(True, "Bob's tag, its name gone from --ha-names, is removed")
        await asyncio.sleep(5)  # the states and attributes are cleared 3 s after the configs

        automations = documented_automations()
        for automation in automations:
            reply = await ha.command({"type": "validate_config", "trigger": automation["trigger"],
                                      "action": automation["action"]})
            expect(all(part["valid"] for part in reply["result"].values()),
                   f"the documented automation '{automation['alias']}' is valid: {reply['result']}")
        expect(len(automations) == 3, f"docs/site.md has its three automations: {len(automations)}")

        problems = log_problems(os.path.join(config, "home-assistant.log"))
        if problems:
            print("\n".join(problems), file=sys.stderr)
        expect(not problems, "no warning or error about MQTT or BlueDot, and no error, in Home Assistant's log")
    finally:
        if nodes is not None:
            nodes.stop()
        stop(solver)
        if ha is not None:
            await ha.close()
        for process in reversed(processes):
            stop(process)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bluedot", required=True, help="the bluedot binary")
    parser.add_argument("--work", help="scratch folder (default: a temporary one, removed unless --keep)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder (logs, Home Assistant config)")
    args = parser.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="bluedot-ha-check-")
    os.makedirs(work, exist_ok=True)
    try:
        asyncio.run(scenario(args, work))
        log("every check passed")
        return 0
    except asyncio.CancelledError:
        log("FAILED: stopped by SIGTERM (mosquitto, Home Assistant and the solver are stopped)")
        log(f"logs in {work} (home-assistant.out, config/home-assistant.log, solver.log)")
        args.keep = True
        return 128 + signal.SIGTERM
    except (CheckFailed, subprocess.CalledProcessError) as e:
        log(f"FAILED: {e}")
        log(f"logs in {work} (home-assistant.out, config/home-assistant.log, solver.log)")
        args.keep = True
        return 1
    finally:
        if not args.keep and not args.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
