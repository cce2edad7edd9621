# A gateway that keeps hearing (issue 45), sourced by Tools/vm/guest.sh with the virtual world running as hci0:
# one long `bluedot scan`, given the adapter by its address, faced in turn with the faults below, each marked in
# $out/keep.marks ("NAME UNIX-TIME"), and then, for the seconds in /share/soak (none unless Tools/vm/run was given
# --soak), with those faults at random. Its resident memory is sampled every 5 s into $out/keep.rss. Tools/vm/check.py
# measures how soon the sightings came back after each fault.
world_address=F0:F1:F2:F3:F4:F5
keep_mark() { echo "$1 $(date +%s.%N)" >>"$out/keep.marks"; }

# The decoy, another controller (another address, no beacons) that takes hci0 while the world's is unplugged, starts
# now, unplugged, so that Python and Bumble have started by the time it plugs in (SIGUSR2).
printf '{"receiver": {"x": 0, "y": 0, "z": 1}, "beacons": []}\n' >/tmp/decoy.json
python3 /share/world/world.py --vhci --unplugged --config /tmp/decoy.json --address F0:00:00:00:00:99 \
    >/tmp/decoy.out 2>/tmp/decoy.err &
decoy_pid=$!

uptime_s >"$out/keep.start"
bluedot scan --hci "$world_address" --duration 100000 --legacy --log-level info \
    >"$out/keep.jsonl" 2>"$out/keep.err" &
keep_pid=$!
(while kill -0 "$keep_pid" 2>/dev/null; do
    echo "$(date +%s) $(awk '/^VmRSS:/ { print $2 }' "/proc/$keep_pid/status" 2>/dev/null)" >>"$out/keep.rss"
    sleep 5
done) &
sampler_pid=$!
started_keep=$(uptime_s)
while [ "$(wc -l <"$out/keep.jsonl")" -lt 10 ]; do
    kill -0 "$keep_pid" 2>/dev/null || break
    if after "$started_keep" 90; then echo "keep: fewer than 10 sightings within 90 s"; break; fi
    sleep 0.1
done
sleep 2

# Each fault, then time for the scan to come back (check.py allows 10 s).
fault_disable() {  # another program turns the scan off
    keep_mark "${1:-}disabled"
    hcitool -i "$adapter" cmd 0x08 0x000C 00 00 >/dev/null 2>&1
}
fault_power_cycle() {  # the adapter powered down and up again (rfkill, a power management, hciconfig)
    keep_mark "${1:-}down"
    hciconfig "$adapter" down
    sleep 2
    keep_mark "${1:-}up"
    hciconfig "$adapter" up
}
fault_replug() {  # the controller goes away and comes back under the same name (marked once it is there)
    keep_mark "${1:-}removed"
    unplug_world
    sleep 1
    plug_world
    keep_mark "${1:-}added"
}

fault_disable; sleep 6
fault_power_cycle; sleep 8
fault_replug; sleep 12
# The controller comes back as hci1: another adapter (the decoy) took hci0 meanwhile.
wait_ready /tmp/decoy.out "$decoy_pid" 180 "keep: the decoy" /tmp/decoy.err
keep_mark removed-again
unplug_world
kill -USR2 "$decoy_pid"
started_decoy=$(uptime_s)
while [ ! -e /sys/class/bluetooth/hci0 ]; do
    if after "$started_decoy" 30; then echo "keep: the decoy's hci0 did not appear within 30 s"; break; fi
    sleep 0.05
done
adapter=hci1
plug_world
keep_mark added-as-hci1
sleep 12
hciconfig -a >"$out/keep.hciconfig" 2>&1

soak=$(cat /share/soak 2>/dev/null || echo 0)
if [ "${soak:-0}" -gt 0 ]; then
    keep_mark soak-start
    soak_started=$(uptime_s)
    round=0
    while ! after "$soak_started" "$soak"; do
        round=$((round + 1))
        case $(( $(od -An -N1 -tu1 /dev/urandom) % 3 )) in
            0) fault_disable "soak-$round-" ;;
            1) fault_power_cycle "soak-$round-" ;;
            2) fault_replug "soak-$round-" ;;
        esac
        sleep $(( 10 + $(od -An -N1 -tu1 /dev/urandom) % 6 ))
    done
    keep_mark soak-end
fi

keep_mark end
stop_within 30 "$keep_pid" "bluedot scan (keeps hearing)" "$out/keep.err"
echo "$stopped" >"$out/keep.rc"
kill "$sampler_pid" 2>/dev/null; wait "$sampler_pid" 2>/dev/null
uptime_s >"$out/keep.end"
echo "keep: exit $(cat "$out/keep.rc"), $(wc -l <"$out/keep.jsonl") lines, $(uptime_s) s"
# Back to one world as hci0 for the steps after.
unplug_world
stop_within 30 "$decoy_pid" "the decoy world" /tmp/decoy.err
gone hci0 "the decoy stopped"
adapter=hci0
plug_world
