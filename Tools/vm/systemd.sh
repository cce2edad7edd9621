#!/bin/sh
# Runs inside the test guest's second boot, under systemd (started by the image's bluedot-vm-hook.service), with
# the host's share at /share. Installs the package's units from Tools/package/systemd unchanged (with the binary
# where the package puts it): starts bluedot.service in self mode on hci0 (the virtual world's controller behind
# /dev/vhci) and then bluedot-solver@home.service, and writes what each became to /share/out/systemd.* and
# /share/out/solver.*: state, user and capabilities, journal, and the API's answers.
set -u
export PATH=/opt/bumble/bin:/usr/sbin:/usr/bin:/sbin:/bin
out=/share/out
mkdir -p "$out"
uptime_s() { cut -d' ' -f1 /proc/uptime; }
echo "systemd up at $(uptime_s) s"

if [ -n "${SWIFT_RUNTIME:-}" ]; then
    mkdir -p "$SWIFT_RUNTIME"
    mount -t 9p -o trans=virtio,version=9p2000.L,ro swiftruntime "$SWIFT_RUNTIME"
fi
install -m 755 /share/bin/bluedot /usr/bin/bluedot
# What the package's postinst does.
getent passwd bluedot >/dev/null || useradd --system --user-group --no-create-home --home-dir /var/lib/bluedot \
    --shell /usr/sbin/nologin bluedot
install -d -o root -g bluedot -m 750 /etc/bluedot
install -m 640 -g bluedot /share/world/beacons.venue.json /etc/bluedot/world.venue.json
cat >/etc/bluedot/bluedot.conf <<'EOF'
hci = hci0
venue = /etc/bluedot/world.venue.json
mode = self
listen = 127.0.0.1:8080
EOF
chgrp bluedot /etc/bluedot/bluedot.conf && chmod 640 /etc/bluedot/bluedot.conf
install -m 644 /share/bluedot.service /lib/systemd/system/bluedot.service
# An AddressSanitizer build: no leak report at the service's stop.
mkdir -p /etc/systemd/system/bluedot.service.d
printf '[Service]\nEnvironment=ASAN_OPTIONS=detect_leaks=0\n' >/etc/systemd/system/bluedot.service.d/asan.conf
systemctl daemon-reload

modprobe hci_vhci
systemd-run --unit=bluedot-world --quiet /opt/bumble/bin/python3 /share/world/world.py --vhci --config /share/world.json
while [ ! -e /sys/class/bluetooth/hci0 ]; do sleep 0.05; done
systemctl start bluedot
echo "bluedot started at $(uptime_s) s"

# Prints the JSON that URL answers once it is not empty (an empty list, object or string is not enough), or the
# last answer ("none" if there was none) after 60 s.
await_answer() {
    python3 - "$1" <<'PY'
import json, sys, time, urllib.request
deadline = time.monotonic() + 60
last = "none"
while time.monotonic() < deadline:
    try:
        with urllib.request.urlopen(sys.argv[1], timeout=2) as reply:
            last = reply.read().decode()
            if json.loads(last):
                break
    except (OSError, ValueError):
        pass
    time.sleep(0.5)
print(last)
PY
}

# Wait for the dot: the API lists the receiver's location once the beacons are heard.
await_answer http://127.0.0.1:8080/api/locations >"$out/systemd.locations"
echo "locations at $(uptime_s) s"
python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' \
    http://127.0.0.1:8080/api/health >"$out/systemd.health" 2>&1 || true

# bluetoothd beside the gateway (issue 45), as on every Debian gateway by default: started (it was masked in this
# image), idle; a client's discovery on and then off (`bluetoothctl scan on`, ended when the client goes); the
# adapter powered off and on through it. Each step is marked in systemd.marks ("NAME UNIX-TIME"), and the gateway's
# report counter is sampled every 0.2 s into systemd.reports ("UNIX-TIME COUNT"), and btmon records every command
# and event of those minutes (the gateway's, bluetoothd's and the kernel's) into systemd.btmon: check.py measures
# the controller's silences from the capture, and how far the gateway's counter ran behind what it delivered.
# Both are waited for until they have begun: the guest is slow (the sampler once read its first count 15 s late).
btmon -w "$out/systemd.btmon" >/dev/null 2>&1 &
btmon_pid=$!
waited=0
while [ "$(stat -c %s "$out/systemd.btmon" 2>/dev/null || echo 0)" -lt 100 ] && [ "$waited" -lt 300 ]; do
    sleep 0.1; waited=$((waited + 1))
done
python3 - http://127.0.0.1:8080/metrics >"$out/systemd.reports" <<'PY' &
import sys, time, urllib.request
while True:
    try:
        with urllib.request.urlopen(sys.argv[1], timeout=2) as reply:
            for line in reply.read().decode().splitlines():
                if line.startswith("bluedot_advertising_reports_total "):
                    print(f"{time.time():.3f} {line.split()[1]}", flush=True)
    except OSError:
        pass
    time.sleep(0.2)
PY
sampler=$!
waited=0
while [ ! -s "$out/systemd.reports" ] && [ "$waited" -lt 600 ]; do sleep 0.1; waited=$((waited + 1)); done
mark() { echo "$1 $(date +%s.%N)" >>"$out/systemd.marks"; }
sleep 3
mark bluetoothd-started
rm -f /etc/systemd/system/bluetooth.service
systemctl daemon-reload
systemctl start bluetooth
sleep 10
mark discovery-on
timeout 30 bluetoothctl --timeout 10 scan on >"$out/systemd.discovery" 2>&1
mark discovery-off
sleep 10
mark power-off
timeout 30 bluetoothctl power off >>"$out/systemd.discovery" 2>&1
sleep 2
timeout 30 bluetoothctl power on >>"$out/systemd.discovery" 2>&1
mark power-on  # bluetoothctl answers once the adapter is powered: the moment the 5 s count from
sleep 10
mark end
# The counter's last samples, once the gateway has taken in what came before the end.
sleep 2
kill "$sampler"
kill "$btmon_pid"; wait "$btmon_pid" 2>/dev/null
python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' \
    http://127.0.0.1:8080/metrics 2>&1 | grep -E '^bluedot_(scan_recoveries|scanner_reconnects)' >"$out/systemd.recoveries"
systemctl stop bluetooth

pid=$(systemctl show -p MainPID --value bluedot)
systemctl show -p ActiveState -p SubState -p User -p MainPID -p NRestarts bluedot >"$out/systemd.show"
grep -E '^(Uid|Gid|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' "/proc/$pid/status" >"$out/systemd.status"
id -u bluedot >"$out/systemd.uid"
systemctl stop bluedot
systemctl show -p ActiveState -p Result -p ExecMainStatus bluedot >"$out/systemd.stopped"
journalctl -u bluedot --no-pager -o cat >"$out/systemd.journal" 2>&1

# The solver's template, unchanged, for site "home": no capability, no devices, its own state directory. No broker
# runs in the guest, which a solver outlives (it reconnects), so it must be running, answer its health and keep its
# history in its state directory.
install -m 644 /share/bluedot-solver@.service /lib/systemd/system/bluedot-solver@.service
cat >/etc/bluedot/solver-home.conf <<'CONF'
mqtt = mqtt://127.0.0.1
site = home
mode = tag
venue = /etc/bluedot/world.venue.json
listen = 127.0.0.1:8081
history = default
CONF
chgrp bluedot /etc/bluedot/solver-home.conf && chmod 640 /etc/bluedot/solver-home.conf
mkdir -p /etc/systemd/system/bluedot-solver@.service.d
printf '[Service]\nEnvironment=ASAN_OPTIONS=detect_leaks=0\n' >/etc/systemd/system/bluedot-solver@.service.d/asan.conf
systemctl daemon-reload
systemctl start bluedot-solver@home
await_answer http://127.0.0.1:8081/api/health >"$out/solver.health"
pid=$(systemctl show -p MainPID --value bluedot-solver@home)
systemctl show -p ActiveState -p SubState -p User -p NRestarts bluedot-solver@home >"$out/solver.show"
grep -E '^(Uid|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' "/proc/$pid/status" >"$out/solver.status"
ls -l /var/lib/bluedot/solver-home >"$out/solver.state" 2>&1
systemctl stop bluedot-solver@home
systemctl show -p Result -p ExecMainStatus bluedot-solver@home >"$out/solver.stopped"
journalctl -u bluedot-solver@home --no-pager -o cat >"$out/solver.journal" 2>&1
# The virtual world this script started, stopped by it (not left to the power-off).
systemctl stop bluedot-world
echo "done at $(uptime_s) s"
