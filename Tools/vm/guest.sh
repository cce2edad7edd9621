#!/bin/sh
# Runs inside the test guest (Tools/vm/run), as PID 1's child, with the host's share at /share:
#   /share/bin/bluedot   the binary under test          /share/world/   Tools/virtual-world
#   /share/world.json    the beacons: Tools/virtual-world's five, and one more advertising extended PDUs
#   /share/out/          what each scan printed, its exit code and its times, for Tools/vm/check.py
# The kernel's hci_vhci module gives a real adapter, hci0, whose controller is the virtual world's Bumble
# controller on /dev/vhci with beacons on its link. Each scan below is one row of docs/hardening.md's table.
set -u
export PATH=/usr/local/bin:/opt/bumble/bin:/usr/sbin:/usr/bin:/sbin:/bin
export ASAN_OPTIONS=detect_leaks=0
out=/share/out
mkdir -p "$out"

if [ -n "${SWIFT_RUNTIME:-}" ]; then
    # A binary that links the Swift runtime dynamically (a debug build) finds it at the host's path.
    mkdir -p "$SWIFT_RUNTIME"
    mount -t 9p -o trans=virtio,version=9p2000.L,ro swiftruntime "$SWIFT_RUNTIME"
fi
cp /share/bin/bluedot /usr/local/bin/bluedot
chmod 755 /usr/local/bin/bluedot
bluedot --help >/dev/null  # into the page cache: the first scan must start within the kernel's 2 s (below)
modprobe hci_vhci

uptime_s() { cut -d' ' -f1 /proc/uptime; }

world_pid=
adapter=hci0
# Each wait below is bounded: a step that hangs says which it was and what it printed, and the guest goes on to
# the next, where an unbounded wait would run into the host's 1200 s and leave only the console.
# start_world [ARGS]: the virtual world as the controller of $adapter (hci0 unless set), waited for. Python and
# Bumble start slowly under emulation: 28-76 s in the runs of 2026-12-02, beside the gateway under AddressSanitizer
# (CI's run failed on the old bound of 60 s). A step that needs only a new adapter replugs the controller instead
# (plug_world: 0.1-0.3 s). Each start and plug is timed into $out/world-starts ("start|plug ADAPTER SECONDS").
start_world() {
    python3 /share/world/world.py --vhci --config /share/world.json "$@" >/tmp/world.out 2>/tmp/world.err &
    world_pid=$!
    wait_for_adapter start 180
}
# wait_for_adapter WHAT SECONDS: until $adapter appears, from the world's start or its plug.
wait_for_adapter() {
    started=$(uptime_s)
    while [ ! -e "/sys/class/bluetooth/$adapter" ]; do
        kill -0 "$world_pid" 2>/dev/null || { echo "the virtual world died"; cat /tmp/world.err; exit 1; }
        if after "$started" "$2"; then
            echo "the virtual world's $adapter did not appear within $2 s of its $1; adapters: $(ls /sys/class/bluetooth)"
            tail -n 20 /tmp/world.err; exit 1
        fi
        sleep 0.01
    done
    echo "$1 $adapter $(awk -v start="$started" -v now="$(uptime_s)" 'BEGIN { printf "%.2f", now - start }')" \
        >>"$out/world-starts"
}
# unplug_world, plug_world: the world's controller unplugged (world.py closes /dev/vhci: the kernel deletes
# $adapter) and a new one plugged in (it opens it again: a new adapter, at the lowest free index), on SIGUSR2.
unplug_world() {
    # The adapter appears a little before world.py handles SIGUSR2 (whose default would end it): its ready line.
    wait_ready /tmp/world.out "$world_pid" 60 "the virtual world" /tmp/world.err
    kill -USR2 "$world_pid"
    gone "$adapter" "the virtual world's controller was unplugged"
}
plug_world() {
    kill -USR2 "$world_pid"
    wait_for_adapter plug 30
}
# wait_ready OUTPUT PID SECONDS NAME LOG: until world.py's ready line is in OUTPUT (it then handles SIGUSR2), at
# most SECONDS, or until PID dies; if not, NAME is said with the end of LOG.
wait_ready() {
    started=$(uptime_s)
    until grep -q '"ready"' "$1"; do
        kill -0 "$2" 2>/dev/null || { echo "$4 died before its ready line"; tail -n 20 "$5"; break; }
        if after "$started" "$3"; then echo "$4 printed no ready line within $3 s"; tail -n 20 "$5"; break; fi
        sleep 0.05
    done
}
# gone ADAPTER WHAT: until ADAPTER has left sysfs, at most 30 s.
gone() {
    started=$(uptime_s)
    while [ -e "/sys/class/bluetooth/$1" ]; do
        if after "$started" 30; then echo "$1 was still there 30 s after $2"; break; fi
        sleep 0.05
    done
}
stop_world() {
    stop_within 30 "$world_pid" "the virtual world" /tmp/world.err
    gone "$adapter" "the virtual world stopped"
}
# after START SECONDS: whether SECONDS have passed since START (an uptime_s reading).
after() { awk -v start="$1" -v limit="$2" -v now="$(uptime_s)" 'BEGIN { exit !(now - start >= limit) }'; }
# stop_within SECONDS PID NAME LOG: SIGTERM, then up to SECONDS for PID to exit; one that does not is named, with the
# end of LOG, and killed. Sets `stopped` to the exit code, or to "hung".
stop_within() {
    kill -TERM "$2" 2>/dev/null
    started=$(uptime_s)
    while kill -0 "$2" 2>/dev/null; do
        if after "$started" "$1"; then
            echo "$3 did not stop within $1 s of SIGTERM; the end of what it printed:"
            tail -n 20 "$4"
            kill -KILL "$2" 2>/dev/null; wait "$2" 2>/dev/null
            stopped=hung
            return
        fi
        sleep 0.1
    done
    wait "$2"
    stopped=$?
}

# scan NAME [setpriv options --] ARGS...: one `bluedot scan`, its output in $out/NAME.*
scan() {
    name=$1; shift
    uptime_s >"$out/$name.start"
    "$@" >"$out/$name.jsonl" 2>"$out/$name.err"
    echo $? >"$out/$name.rc"
    uptime_s >"$out/$name.end"
    date +%s.%N >"$out/$name.exited"
    echo "$name: exit $(cat "$out/$name.rc"), $(wc -l <"$out/$name.jsonl") lines, $(uptime_s) s"
}
as_nobody_with_caps="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=+net_raw,+net_admin --ambient-caps=+net_raw,+net_admin"
as_nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"

# The kernel's auto power-off: without bluetoothd, a new adapter is powered on for its set-up and off again
# 2 s later. A scan started at once, inside that window, must keep its adapter for its whole duration. btmon
# watches, so the check can tell whether each scan did start inside the window and that no Close Index came.
# Two rounds, each with a new adapter: a loaded machine may start a scan too late for the window now and then.
for round in 1 2; do
    btmon -w "$out/auto-off-$round.btmon" >/dev/null 2>&1 &
    btmon_pid=$!
    sleep 0.5
    if [ "$round" = 1 ]; then start_world; else plug_world; fi
    scan "auto-off-$round" nice -n -10 bluedot scan --hci hci0 --duration 5
    kill "$btmon_pid"; wait "$btmon_pid" 2>/dev/null
    [ "$round" = 2 ] || unplug_world
done

# Why that holds: the kernel lists an adapter in its auto power-off window as down (though it is powered), so BlueDot
# brings it up with HCIDEVUP, which cancels the power-off. A new adapter, listed by hciconfig inside the window while
# btmon watches for the power-off that follows, shows it.
unplug_world
btmon -w "$out/listing.btmon" >/dev/null 2>&1 &
btmon_pid=$!
sleep 0.5
plug_world
sleep 0.8
date +%s.%N >"$out/listing.time"
hciconfig hci0 >"$out/listing.hciconfig" 2>&1
sleep 3
kill "$btmon_pid"; wait "$btmon_pid" 2>/dev/null

# As root, extended scanning (the world's controller offers it), recorded, with btmon capturing the same session.
btmon -w "$out/raw-root.btmon" >/dev/null 2>&1 &
btmon_pid=$!
sleep 0.5
scan raw-root bluedot scan --hci hci0 --duration 3 --record "$out/raw-root.btsnoop"
sleep 0.5
kill "$btmon_pid"; wait "$btmon_pid" 2>/dev/null

scan raw-legacy bluedot scan --hci hci0 --duration 3 --legacy
# Another program turns the scan off (issue 45): `hcitool cmd` sends LE Set Scan Enable = 0 to hci0 while BlueDot
# scans, as `bluetoothctl scan off` or the end of bluetoothd's discovery do. BlueDot sees the reply to a command it did
# not send and sets its scan up again; check.py measures how soon sightings resume.
uptime_s >"$out/disabled-elsewhere.start"
bluedot scan --hci hci0 --duration 20 --legacy >"$out/disabled-elsewhere.jsonl" 2>"$out/disabled-elsewhere.err" &
scan_pid=$!
started_scan=$(uptime_s)
while [ "$(wc -l <"$out/disabled-elsewhere.jsonl")" -lt 10 ]; do
    kill -0 "$scan_pid" 2>/dev/null || break
    if after "$started_scan" 60; then echo "disabled-elsewhere: fewer than 10 sightings within 60 s"; break; fi
    sleep 0.1
done
sleep 1
date +%s.%N >"$out/disabled-elsewhere.time"
hcitool -i hci0 cmd 0x08 0x000C 00 00 >"$out/disabled-elsewhere.hcitool" 2>&1
# The scan ends by itself after its 20 s; one still running 90 s after its start is stopped and named.
while kill -0 "$scan_pid" 2>/dev/null && ! after "$started_scan" 90; do sleep 0.2; done
stop_within 10 "$scan_pid" "bluedot scan (disabled elsewhere)" "$out/disabled-elsewhere.err"
echo "$stopped" >"$out/disabled-elsewhere.rc"
uptime_s >"$out/disabled-elsewhere.end"
echo "disabled-elsewhere: exit $(cat "$out/disabled-elsewhere.rc"), $(wc -l <"$out/disabled-elsewhere.jsonl") lines, $(uptime_s) s"

. /share/keep.sh

scan raw-caps $as_nobody_with_caps bluedot scan --hci hci0 --duration 3
# The refusals are given 30 s: one that retried instead of stopping would use them all.
scan raw-nocaps-up $as_nobody bluedot scan --hci hci0 --duration 30
scan user-up bluedot scan --hci hci0 --user-channel --duration 30
scan no-adapter bluedot scan --hci hci7 --duration 30
hciconfig hci0 down
scan raw-nocaps-down $as_nobody bluedot scan --hci hci0 --duration 30
scan user-down bluedot scan --hci hci0 --user-channel --duration 3
scan raw-after-user bluedot scan --hci hci0 --duration 3

# Advertising through the kernel: a site receiver with --advertise on hci0, with no broker to reach (it scans and
# buffers all the same), heard by a second controller on the world's link (world.py --listen-log). Twice: with the
# extended commands, and on a controller without them (--features legacy) with the legacy ones.
for features in extended legacy; do
    stop_world
    start_world --features "$features" --listen-log "$out/advertise-$features.heard"
    bluedot run --hci hci0 --publish mqtt://127.0.0.1:9 --site vm --receiver rx-vm --advertise --log-level info \
        >/dev/null 2>"$out/advertise-$features.err" &
    receiver_pid=$!
    # Up to 90 s to start (software emulation pages a large binary in), then 5 s of advertising.
    started_receiver=$(uptime_s)
    while ! grep -q "advertising" "$out/advertise-$features.err"; do
        kill -0 "$receiver_pid" 2>/dev/null || break
        if after "$started_receiver" 90; then echo "advertise-$features: no advertising within 90 s"; break; fi
        sleep 0.1
    done
    sleep 5
    # Read once the adapter is set up: right after it appears, the kernel may not have read its address yet.
    hciconfig hci0 >"$out/advertise-$features.hciconfig" 2>&1
    stop_within 60 "$receiver_pid" "bluedot run --advertise ($features)" "$out/advertise-$features.err"
    echo "$stopped" >"$out/advertise-$features.rc"
    echo "advertise-$features: exit $(cat "$out/advertise-$features.rc"), $(wc -l <"$out/advertise-$features.heard") reports heard, $(uptime_s) s"
done
stop_world
echo "done at $(uptime_s) s"
