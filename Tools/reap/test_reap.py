"""Tools/reap/run's own tests: a clean run passes with the command's status; a sleeper left behind (in the
background, in a session of its own, under chroot and setpriv behind a double fork) fails the run, is named by its
pid and is gone afterwards; SIGTERM reaches the command and the leftovers are still ended. Each case runs in the
cgroup v2 mode and in the subreaper mode.

    python3 -m unittest -q test_reap      (in Tools/reap; Tools/dev test runs it)
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

RUN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run")


def gone(pid: int, seconds: float = 2) -> bool:
    """Whether the process ends (or is left a zombie) within `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in "ZX":
                    return True
        except OSError:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)


class Cgroup(unittest.TestCase):
    """The cgroup v2 mode (skipped where no cgroup v2 is writable: the subreaper cases still run)."""

    options: list[str] = []

    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix="reap-test-")
        self.addCleanup(shutil.rmtree, self.scratch, ignore_errors=True)
        self.started: list[int] = []
        self.addCleanup(self.end_started)

    def end_started(self):
        """Should a case fail with its sleepers alive, they are ended here, by pid, not left to the next run."""
        for pid in self.started:
            if not gone(pid, 0):
                os.kill(pid, signal.SIGKILL)

    def reap(self, script: str, until: str | None = None) -> subprocess.CompletedProcess:
        """Tools/reap/run sh -c SCRIPT; with `until`, SIGTERM once that file is written. A run that hangs is stopped
        with SIGTERM too, which it passes on and then ends what is left: the test leaves nothing behind either."""
        reap = subprocess.Popen([sys.executable, RUN, *self.options, "sh", "-c", script], cwd=self.scratch,
                                stderr=subprocess.PIPE, text=True)
        if until:
            deadline = time.monotonic() + 10
            while not os.path.exists(os.path.join(self.scratch, until)) and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.05)  # the command's last exec
            reap.send_signal(signal.SIGTERM)
        try:
            _, errors = reap.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            reap.send_signal(signal.SIGTERM)
            _, errors = reap.communicate(timeout=30)
            self.fail(f"the run did not end within 30 s: {errors}")
        if not self.options and "in cgroup" not in errors:
            self.skipTest(f"no cgroup v2 here: {errors.strip()}")
        return subprocess.CompletedProcess(reap.args, reap.returncode, "", errors)

    def pid(self, name: str) -> int:
        with open(os.path.join(self.scratch, name)) as f:
            pid = int(f.read())
        self.started.append(pid)
        return pid

    def assert_caught(self, run: subprocess.CompletedProcess, pid: int, status: int = 1):
        self.assertEqual(run.returncode, status, run.stderr)
        self.assertIn("outlived", run.stderr)
        self.assertIn(f"pid {pid}:", run.stderr)
        self.assertTrue(gone(pid), f"pid {pid} still runs after the run")

    def test_clean_run_passes_with_the_commands_status(self):
        run = self.reap("sleep 0.1 & wait")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("no process outlived", run.stderr)
        self.assertEqual(self.reap("exit 3").returncode, 3)
        cgroup = re.search(r"in cgroup (\S+)", run.stderr)
        if cgroup:
            self.assertFalse(os.path.exists(cgroup.group(1)), "the cgroup is removed")

    def test_background_sleeper_fails_the_run(self):
        run = self.reap("sleep 300 & echo $! >stray.pid")
        self.assert_caught(run, self.pid("stray.pid"))
        self.assertIn("sleep 300", run.stderr)

    def test_failing_command_keeps_its_status(self):
        run = self.reap("sleep 300 & echo $! >stray.pid; exit 4")
        self.assert_caught(run, self.pid("stray.pid"), status=4)

    def test_sleeper_in_a_session_of_its_own_fails_the_run(self):
        run = self.reap(f"setsid -f sh -c 'echo $$ >{self.scratch}/session.pid; exec sleep 300'; "
                        "while [ ! -s session.pid ]; do sleep 0.01; done")
        self.assert_caught(run, self.pid("session.pid"))

    @unittest.skipUnless(os.geteuid() == 0 and shutil.which("chroot") and shutil.which("setpriv"),
                         "chroot and setpriv need root")
    def test_sleeper_under_chroot_and_setpriv_behind_a_double_fork_fails_the_run(self):
        # The shape of Tools/package/check's demo: chroot, env and setpriv exec each other, in a subshell that exits.
        # Its pid goes to a file the outer shell opens: user nobody may not write the scratch folder.
        run = self.reap("(chroot / /usr/bin/env -i PATH=/usr/bin:/bin setpriv --reuid=65534 --regid=65534 "
                        "--clear-groups sh -c 'echo $$; exec sleep 300' >chroot.pid &); "
                        "while [ ! -s chroot.pid ]; do sleep 0.01; done")
        self.assert_caught(run, self.pid("chroot.pid"))

    def test_sigterm_reaches_the_command_and_the_leftovers_are_still_ended(self):
        run = self.reap("sleep 300 & echo $! >stray.pid; exec sleep 600", until="stray.pid")
        self.assert_caught(run, self.pid("stray.pid"), status=128 + signal.SIGTERM)


class Subreaper(Cgroup):
    """The same cases without a cgroup: the run's processes as the subreaper's descendants."""

    options = ["--subreaper"]


if __name__ == "__main__":
    unittest.main()
