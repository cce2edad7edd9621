#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (Tools/fuzz/corpus/<target>/) and dictionaries (Tools/fuzz/dict/) from the project's real captures and
fixtures. Run it from anywhere with the project's venv (Bumble builds the extended advertising reports):

    .venv/bin/python Tools/fuzz/make-seeds.py

Seeds are small (libFuzzer grows inputs from them): slices of the horizon74 capture (MIT, see
Tests/HCITests/Fixtures), heads of the dataset fixtures (see Tests/PositioningTests/Fixtures/ATTRIBUTION.md),
the venue and import fixtures, and a few hand-written inputs for formats that have no real file in the project.
"""
import json
import pathlib
import struct

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "Tools/fuzz/corpus"
HCI_FIXTURES = ROOT / "Tests/HCITests/Fixtures"
FIXTURES = ROOT / "Tests/PositioningTests/Fixtures"
GPX_FIXTURES = ROOT / "Tests/PositioningTests/Fixtures/GPX"


def write(target, name, data):
    folder = OUT / target
    folder.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    (folder / name).write_bytes(data)


def btsnoop_records(data):
    """(flags, drops, timestamp, payload) of each record of a btsnoop file."""
    assert data[:8] == b"btsnoop\0"
    offset, records = 16, []
    while offset + 24 <= len(data):
        orig, incl, flags, drops, ts = struct.unpack(">IIIIq", data[offset:offset + 24])
        records.append((flags, drops, ts, data[offset + 24:offset + 24 + incl]))
        offset += 24 + incl
    return records


def btsnoop_file(datalink, records):
    out = bytearray(b"btsnoop\0" + struct.pack(">II", 1, datalink))
    for flags, drops, ts, payload in records:
        out += struct.pack(">IIIIq", len(payload), len(payload), flags, drops, ts) + payload
    return bytes(out)


def to_monitor(records):
    """H4 records as Linux monitor records: opcode from the packet type and direction, no H4 indicator."""
    out = []
    for flags, drops, ts, payload in records:
        received = flags & 1
        opcode = {1: 2, 4: 3, 2: 5 if received else 4}.get(payload[0])
        if opcode is None:
            continue
        out.append((opcode, drops, ts, payload[1:]))
    return out


def radio_seeds():
    capture = (HCI_FIXTURES / "horizon74_legacy_adv_btsnoop_hci.log").read_bytes()
    records = btsnoop_records(capture)
    # btsnoop: the file's start, a slice from the middle, the same in the monitor datalink, a cut record.
    write("btsnoop", "horizon74-head", btsnoop_file(1002, records[:12]))
    write("btsnoop", "horizon74-middle", btsnoop_file(1002, records[200:210]))
    write("btsnoop", "horizon74-head-monitor", btsnoop_file(2001, to_monitor(records[:12])))
    note = (12, 0, records[0][2], b"bluedot fuzz seed\0")  # a system note: a monitor record that is not HCI
    write("btsnoop", "monitor-with-note", btsnoop_file(2001, [note] + to_monitor(records[12:16])))
    write("btsnoop", "horizon74-cut", btsnoop_file(1002, records[:4])[:-7])
    # h4: the capture's packets as the UART stream carried them.
    write("h4", "horizon74-stream-head", b"".join(r[3] for r in records[:16]))
    write("h4", "horizon74-stream-middle", b"".join(r[3] for r in records[300:312]))
    write("h4", "out-of-sync", b"".join(r[3] for r in records[20:22]) + b"\x07\x00")
    # hci-event: legacy LE advertising reports from the capture (events only, indicator off).
    events = [r[3][1:] for r in records if r[3][:1] == b"\x04" and r[3][1:2] == b"\x3e"]
    for i, event in enumerate(events[:6]):
        write("hci-event", f"horizon74-legacy-{i}", event)
    complete = [r[3][1:] for r in records if r[3][:2] == b"\x04\x0e"]
    if complete:
        write("hci-event", "horizon74-command-complete", complete[0])
    # Extended reports, built by Bumble (an independent encoder): whole, fragmented, truncated, two at once.
    from bumble.hci import Address, HCI_LE_Extended_Advertising_Report_Event as Extended
    ibeacon = bytes.fromhex("0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5")
    eddystone = bytes.fromhex("0303aafe1516aafe10f6036578616d706c65076e65747700000000")
    def report(data, status=0, legacy=False, rssi=-61):
        event_type = (status << 5) | (0x10 | 0x03 if legacy else 0x00)
        return Extended.Report(
            event_type=event_type, address_type=1, address=Address("C4:12:34:56:78:9A"), primary_phy=1,
            secondary_phy=0 if legacy else 2, advertising_sid=0xFF if legacy else 3, tx_power=0x7F, rssi=rssi,
            periodic_advertising_interval=0, direct_address_type=0, direct_address=Address("00:00:00:00:00:00"),
            data=data)
    def event_bytes(reports):
        return bytes(Extended(reports=reports))[1:]  # Bumble writes the H4 indicator first
    write("hci-event", "extended-ibeacon", event_bytes([report(ibeacon)]))
    write("hci-event", "extended-legacy-pdu", event_bytes([report(ibeacon, legacy=True)]))
    write("hci-event", "extended-fragments", event_bytes([report(eddystone[:12], status=1), report(eddystone[12:])]))
    write("hci-event", "extended-truncated", event_bytes([report(ibeacon[:20], status=2, rssi=-90)]))
    write("h4", "extended-stream", b"\x04" + event_bytes([report(ibeacon)]) + b"\x04" +
          event_bytes([report(eddystone[:12], status=1), report(eddystone[12:])]))


def head(path, lines):
    return "".join(path.read_text().splitlines(keepends=True)[:lines])


def file_seeds():
    for name in ["boun-straight_01-head200.observations.jsonl", "wut-calibration-head200.observations.jsonl",
                 "uji-geo-tx04-head100.observations.jsonl", "boun-straight_01-head200.survey.jsonl"]:
        write("observations", name.replace(".jsonl", "").replace(".", "-") + "-head24", head(FIXTURES / name, 24))
    text = head(FIXTURES / "wut-calibration-head200.observations.jsonl", 12).splitlines(keepends=True)
    write("observations", "wut-disordered-with-bad-lines",
          "".join(text[6:] + ["\n", "{\"t\": oops}\n"] + text[:6] + ["{\"t\":1e999,\"anchor\":\"x\",\"rssi\":-60}\n"]))
    for name in ["boun-tetam.venue.json", "wut-flat.venue.json", "uji-geo.venue.json",
                 "slice-uji-geo-tx04.calibrated.venue.json"]:
        write("venue", name, (FIXTURES / name).read_bytes())
    write("venue", "demo-lab.venue.json", (ROOT / "Sources/Gateway/Demo/demo-lab.venue.json").read_bytes())
    imdf = FIXTURES / "imdf-vegalsa-excerpt"
    names = ["manifest.json", "venue.geojson", "footprint.geojson", "level.geojson", "unit.geojson", "opening.geojson"]
    parts = [(imdf / n).read_bytes() if (imdf / n).exists() else b"" for n in names]
    write("imdf", "vegalsa-excerpt", b"\0".join(parts))
    write("imdf", "vegalsa-levels-only", b"\0".join(parts[:4]))
    write("imdf-zip", "vegalsa-excerpt.zip", (FIXTURES / "imdf-vegalsa-excerpt.zip").read_bytes())
    import io
    import zipfile
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as z:  # stored, not deflated: bytes the fuzzer can reach
        for n, p in zip(names, parts):
            if p and n != "unit.geojson":
                z.writestr("IMDF/" + n, p)
    write("imdf-zip", "vegalsa-stored-no-units.zip", buffer.getvalue())
    write("geojson", "westport-house-wgs84", b"\0" + (FIXTURES / "geojson-westport-house-floor-2-excerpt.geojson").read_bytes())
    write("geojson", "openindoormaps-demo-wgs84", b"\0" + (FIXTURES / "geojson-openindoormaps-demo-excerpt.geojson").read_bytes())
    local = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "id": "kitchen", "properties": {"name": "Kitchen", "level": 0},
         "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [4, 0], [4, 3], [0, 3], [0, 0]]]}},
        {"type": "Feature", "id": "hall", "properties": {"name": "Hall", "level": "1"},
         "geometry": {"type": "MultiPolygon", "coordinates": [[[[0, 3], [9, 3], [9, 5], [0, 5], [0, 3]],
                                                               [[1, 3.5], [2, 3.5], [2, 4], [1, 3.5]]]]}}]}
    for path in sorted(GPX_FIXTURES.glob("*.gpx")):
        write("gpx", path.stem, path.read_bytes())
    write("geojson", "local-metres", b"\1" + json.dumps(local).encode())
    yaml = (FIXTURES / "espresense-companion-config.example.yaml").read_text()
    write("espresense-config", "companion-example.yaml", yaml)
    write("espresense-config", "companion-minimal.yaml",
          "floors:\n  - id: first\n    name: First\n    bounds: [[0, 0, 0], [10, 8, 3]]\n    rooms:\n"
          "      - name: Office\n        points: [[0, 0], [5, 0], [5, 4], [0, 4]]\n"
          "nodes:\n  - name: office\n    point: [1, 1, 1]\n    floors: [\"first\"]\n")
    write("espresense-config", "yaml-forms.yaml",
          "%YAML 1.2\n---\ngps: &g {latitude: 38.9, longitude: -77.0, rotation: !!float 10}\n"
          "copy: *g\nnote: |\n  kept\n   lines\nfolded: >-\n  one\n  two\n\n  three\n"
          "floors:\n- id: 'g'\n  name: \"Ground \\u00e9\"\n  bounds: [\n    [0, 0, 0],  # low\n    [10, 8, 3]\n  ]\n"
          "nodes:\n- name: plain value\n    going on\n  point: [1, 2, 1]\n  stationary: yes\n...\n")
    write("config", "solver.conf",
          "# a site's solver\nmqtt = 127.0.0.1:1883\nsite = home\nmode = tag\nvenue = /etc/bluedot/home.venue.json\n"
          "espresense = espresense\nlisten = 127.0.0.1:8080\nhistory = default\nhistory-retention = 7\n"
          "ha-allow = \"phone:*\"\nha-names = phone:anna=Anna's phone\nreorder-window = 0.3\n")
    write("config", "receiver.conf",
          "h4-tcp = 127.0.0.1:9000\npublish = broker.local:8883\nsite = office\nreceiver = gw-3\n"
          "mqtt-ca = /etc/ssl/ca.pem\nmqtt-protocol = 5\npublish-allow = \"ibeacon:*\"\npublish-buffer = 1000\n")
    write("config", "self-mode.conf",
          "hci = hci0\nuser-channel = true\nvenue = \"/srv/venues/lab #2.venue.json\"\nmode = self\nrecord = /tmp/r.btsnoop\n"
          "listen = 0.0.0.0:8080\ntoken = abcdefghijklmnopqrstuvwxyz\ninterval = 0.5\nstale-after = 10\n")


def site_seeds():
    write("sighting-batch", "two-sightings",
          '{"v":1,"receiver":"gw-1","seq":42,"clock":1700000000.25,"sightings":['
          '{"t":1700000000.125,"id":"ibeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0:1:2","rssi":-61,"txPower":-59},'
          '{"t":1700000000.2,"id":"addr:c4:12:34:56:78:9a","rssi":-77.5,"txPower":null}]}')
    write("sighting-batch", "empty-with-unknown-keys",
          '{"receiver":"n\\u00e9-2","v":1,"seq":0,"clock":1.5e9,"sightings":[],"x":{"y":[1,true,null]}}')
    write("espresense", "device-new-firmware",
          "espresense/devices/iBeacon:e5ca1ade-f007-ba11-0000-000000000000-1-2/kitchen\n"
          '{"id":"iBeacon:e5ca1ade-f007-ba11-0000-000000000000-1-2","idType":30,"rssi@1m":-59,"rssi":-71,'
          '"raw":3.4,"distance":2.85,"var":0.21,"int":305,"mac":"f1a2b3c4d5e6","speed":0.1}')
    write("espresense", "device-old-firmware",
          "espresense/devices/phone:anna/office\n"
          '{"id":"phone:anna","name":"Anna","disc":"apple","measuredPower":-60,"rssi":-80,"distance":6.2}')
    write("espresense", "node-status", "espresense/rooms/kitchen/status\nonline")
    write("http", "page-and-locations", "/index.html\ntarget=e78f135624ce&floor=1")
    write("http", "leaflet-and-history", "/vendor/leaflet/leaflet.js\ntarget=phone%3Aanna&access_token=abc")
    write("http", "traversal", "/%2e%2e/%2F/etc/passwd\nfloor=abc&x=1")


def device_seeds():
    """The device registry (the formats document's example, lists, an imported one) and BlueZ info files shaped
    as BlueZ writes them (a phone with an IRK, a keyboard without)."""
    write("devices", "formats-example.json", json.dumps({"devices": [
        {"id": "alice-phone", "name": "Alice's phone", "irk": "ec0234a357c8ad05341010a60a397d9b"},
        {"id": "keys", "name": "Keys", "ibeacon": "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7"},
        {"id": "forklift-7", "name": "Forklift 7", "address": "c0:11:22:33:44:55", "espresense": "forklift7"},
    ]}))
    write("devices", "lists.json", json.dumps({"devices": [
        {"id": "tag_2", "irk": ["0f1e2d3c4b5a69788796a5b4c3d2e1f0", "00112233445566778899aabbccddeeff"],
         "eddystone": "eddystone:edd1ebeac04e5defa017:0123456789ab",
         "altbeacon": "altbeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:3:4",
         "espresense": ["irk:ec0234a357c8ad05341010a60a397d9b", "Tag2"]}]}))
    write("devices", "empty.json", '{"devices": []}')
    write("bluez-info", "phone", "[General]\nName=Alice's iPhone\nAddressType=public\nSupportedTechnologies=LE;\n"
          "Trusted=false\nBlocked=false\n\n[IdentityResolvingKey]\nKey=9B7D390AA610103405ADC857A33402EC\n\n"
          "[PeripheralLongTermKey]\nKey=1F2E3D4C5B6A79881F2E3D4C5B6A7988\nAuthenticated=2\nEncSize=16\nEDiv=0\n"
          "Rand=0\n")
    write("bluez-info", "keyboard", "[General]\nName=MX Keys\nAddressType=static\n\n[LongTermKey]\n"
          "Key=00112233445566778899AABBCCDDEEFF\nAuthenticated=0\nEncSize=16\nEDiv=4660\nRand=22136\n")


def gnss_seeds():
    """What gpsd 3.22 sent while replaying gpsd's own regression logs (Tools/gnss/logs, BSD-2-Clause), as
    `gpsfake -1 -p` printed it: its JSON reports only, the first 40 of each log (VERSION, DEVICES, TPVs with and
    without a fix, and rst39's ATT headings)."""
    for name in ["garmin-10x", "rst39"]:
        lines = (ROOT / f"Tools/gnss/logs/{name}.gpsd.jsonl").read_text().splitlines(keepends=True)
        write("gpsd", f"{name}-head40", "".join(lines[:40]))
        write("gpsd", f"{name}-att-and-tpv", "".join(l for l in lines if '"class":"ATT"' in l or '"mode":1' in l))


def dict_file(name, tokens):
    """Tools/fuzz/dict/<name>.dict: one libFuzzer dictionary entry per token, bytes outside printable ASCII escaped."""
    def quoted(token):
        data = token if isinstance(token, bytes) else token.encode()
        return '"' + "".join(chr(b) if 0x20 <= b < 0x7F and b not in b'"\\' else f"\\x{b:02x}" for b in data) + '"'
    folder = ROOT / "Tools/fuzz/dict"
    folder.mkdir(parents=True, exist_ok=True)
    lines = [f"# libFuzzer dictionary of the {name} target, written by Tools/fuzz/make-seeds.py"]
    (folder / f"{name}.dict").write_text("\n".join(lines + [quoted(t) for t in tokens]) + "\n")


def dictionaries():
    json_tokens = ["{", "}", "[", "]", ":", ",", '"', "null", "true", "false", "-0", "1e308", "-1e-320", "1.5",
                   "\\u0000", "\\ud800", '\\"', "NaN", "Infinity"]
    hci = [b"\x3e", b"\x02", b"\x0d", b"\x0e", b"\x0f", b"\x10", b"\x01", b"\x7f", b"\xff", b"\x02\x01\x06",
           b"\x1a\xff\x4c\x00\x02\x15", b"\x03\x03\xaa\xfe", b"\x16\xaa\xfe\x00", b"\x16\xaa\xfe\x10",
           b"\x16\xaa\xfe\x20", b"\x1b\xff\x18\x01\xbe\xac", b"\x20\x00", b"\x40\x00", b"\x13\x00"]
    dict_file("hci-event", hci)
    dict_file("h4", [b"\x01", b"\x02", b"\x03", b"\x04", b"\x05", b"\x04\x3e", b"\x04\x0e\x04\x01", b"\x04\x0f\x04"] + hci)
    dict_file("btsnoop", [b"btsnoop\x00", b"\x00\x00\x00\x01", b"\x00\x00\x03\xea", b"\x00\x00\x07\xd1",
                          b"\x00\x00\x00\x02", b"\x00\x00\x00\x03", b"\x00\x00\x00\x0c", b"\x00\xdc\xdd\xb3\x0f\x2f\x80\x00",
                          b"\x00\x01\x00\x03", b"\xff\xff\xff\xff"] + hci)
    observation_keys = ['"t"', '"anchor"', '"rssi"', '"txPower"', '"target"', '"truth"', '"x"', '"y"', '"floor"',
                        '"channel"', '"receiver"']
    dict_file("observations", json_tokens + observation_keys + ["\n", "\r\n", '{"t":', ',"anchor":"', ',"rssi":'])
    venue_keys = ['"name"', '"origin"', '"latitude"', '"longitude"', '"bearing"', '"floors"', '"floor"', '"height"',
                  '"plan"', '"image"', '"bounds"', '"anchors"', '"id"', '"x"', '"y"', '"z"', '"txPower"',
                  '"pathLossExponent"', '"model"', '"rooms"', '"polygon"', '"holes"', '"openings"', '"outline"',
                  '"calibration"', '"sigma"', '"exponent"']
    dict_file("venue", json_tokens + venue_keys)
    geo = ['"type"', '"FeatureCollection"', '"Feature"', '"features"', '"geometry"', '"coordinates"', '"Polygon"',
           '"MultiPolygon"', '"LineString"', '"Point"', '"properties"', '"id"', '"name"', '"level"', '"level_id"',
           '"ordinal"', '"category"', '"display_point"', '"crs"', '"urn:ogc:def:crs:OGC:1.3:CRS84"', '"en"',
           '"language"', '"feature_type"', '"unit"', '"opening"', '"venue"', '"footprint"', '"structure"',
           '"opentobelow"', '"room"', '"short_name"', '"alt_name"', '"door"']
    dict_file("imdf", json_tokens + geo + [b"\x00"])
    dict_file("imdf-zip", [b"PK\x03\x04", b"PK\x01\x02", b"PK\x05\x06", b"\x14\x00", b"\x00\x00", b"\x08\x00", "IMDF/",
                           "manifest.json", "venue.geojson", "footprint.geojson", "level.geojson", "unit.geojson",
                           "opening.geojson", "__MACOSX/"] + geo)
    dict_file("geojson", json_tokens + geo + [b"\x00", b"\x01"])
    dict_file("gpx", ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<!--", "-->", "<![CDATA[", "]]>", "<!DOCTYPE",
                      "<!ENTITY", "<?", "?>", "</", "/>", "<", ">", "=\"", "'", "&amp;", "&lt;", "&#x", "&#", ";",
                      "xmlns=\"http://www.topografix.com/GPX/1/1\"", "xmlns:gpx=", "gpx:", "<gpx", "<trk>", "<trkseg>",
                      "<trkpt", "<rte>", "<rtept", "<ele>", "<time>", "<name>", "<extensions>", " lat=\"", " lon=\"",
                      "2024-05-01T10:00:00Z", ".250+02:00", "-90", "180.0", "\r\n", b"\xef\xbb\xbf"])
    dict_file("espresense-config", ["floors:", "rooms:", "nodes:", "name:", "id:", "points:", "point:", "bounds:",
                                    "floors: [", "  - ", "    ", "[[", "]]", "- ", ": ", '"', "'", "&a", "*a", "!!str",
                                    "!!float", "~", ".inf", ".nan", "0x10", "---", "...", "mqtt:", "host:", "gps:",
                                    "latitude:", "longitude:", "elevation:", "rotation:", "map:", "optimization:",
                                    "devices:", "exclude_devices:", "\n", "|", ">", "|-", ">+", "|2", "? ", "%YAML 1.2",
                                    "\t", "{", "}", ", ", " #", "&b", "*b", "\\u00e9", "\\x41", "\\\n", "''", "\r\n",
                                    "!<tag:yaml.org,2002:str>", "yes", "Off", "0o17", "-.inf"])
    keys = ["hci", "user-channel", "h4-tcp", "h4-tty", "baud", "replay", "observations", "simulate", "venue", "mode",
            "gateway-id", "listen", "record", "token", "insecure", "loop", "speed", "interval", "stale-after",
            "web-root", "leaflet", "mqtt", "publish", "site", "receiver", "mqtt-password-file", "mqtt-password",
            "mqtt-client-id", "mqtt-keepalive", "mqtt-ca", "mqtt-cert", "mqtt-key", "mqtt-protocol", "espresense",
            "publish-allow", "publish-buffer", "reorder-window", "history", "history-retention", "history-max-size",
            "ha-discovery", "ha-prefix", "ha-allow", "ha-names", "ha-away-timeout", "ha-remove"]
    dict_file("config", [k + " = " for k in keys] + ["\n", "#", '"', "=", "true", "false", "tag", "self",
                                                     "127.0.0.1:8080", "[::1]:8080", "0.0.0.0:", "memory", "off",
                                                     "default", "5", "3.1.1", "1e309", "-1", "*", "?", ","])
    dict_file("sighting-batch", json_tokens + ['"v"', '"receiver"', '"seq"', '"clock"', '"sightings"', '"t"', '"id"',
                                               '"rssi"', '"txPower"', '"v":1'])
    dict_file("espresense", json_tokens + ["espresense/devices/", "espresense/rooms/", "/status", "\n", '"id"',
                                           '"rssi"', '"rssi@1m"', '"rxAdj"', '"var"', '"mac"', '"measuredPower"',
                                           '"distance"', '"raw"', '"idType"', '"name"', '"disc"', "iBeacon:", "online",
                                           "offline", "*"])
    dict_file("devices", json_tokens + ['"devices"', '"id"', '"name"', '"irk"', '"ibeacon"', '"eddystone"',
                                        '"altbeacon"', '"address"', '"espresense"', "ibeacon:", "eddystone:",
                                        "altbeacon:", "irk:", '"ec0234a357c8ad05341010a60a397d9b"',
                                        '"c0:11:22:33:44:55"'])
    dict_file("bluez-info", ["[General]", "[IdentityResolvingKey]", "[LongTermKey]", "Key=", "Name=", "AddressType=",
                             "0x", "\n", "=", "#", ";", "9B7D390AA610103405ADC857A33402EC", "public", "static"])
    dict_file("gpsd", json_tokens + ['"class"', '"TPV"', '"ATT"', '"SKY"', '"VERSION"', '"DEVICES"', '"ERROR"',
                                     '"WATCH"', '"mode"', '"lat"', '"lon"', '"alt"', '"altHAE"', '"eph"', '"epx"',
                                     '"epy"', '"track"', '"speed"', '"heading"', '"time"', '"device"', '"release"',
                                     '"message"', '"2033-10-05T20:41:32.200Z"', "\n", '"mode":0', '"mode":3'])
    dict_file("http", ["/", "\n", "&", "=", "%", "%2e", "%2F", "%00", "%5c", "..", ".", "//", "/vendor/leaflet/",
                       "index.html", "target=", "floor=", "access_token=", "from=", "to=", "limit=", "cursor=",
                       "order=", "newest", "oldest", "+", "\\"])


if __name__ == "__main__":
    radio_seeds()
    file_seeds()
    site_seeds()
    device_seeds()
    gnss_seeds()
    dictionaries()
    for folder in sorted(OUT.iterdir()):
        print(f"{folder.name}: {len(list(folder.iterdir()))} seeds")
