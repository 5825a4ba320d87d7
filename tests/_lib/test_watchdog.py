"""The stop watchdog ends a process that outlives a SIGTERM's grace and removes its
temporaries; it leaves alone a process that ends in time, and ends with the pipe."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from precmp_lib._lib.watchdog import watch


def _stubborn():
    """A process that ignores SIGTERM, as one whose handler cannot run does."""
    return subprocess.Popen([sys.executable, "-c", "import signal, time; "
                             "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"])


def test_a_process_that_outlives_the_grace_is_ended_and_its_temporaries_removed(tmp_path, capfd):
    proc = _stubborn()
    private = tmp_path / f"precmp-{proc.pid}-x"
    (private / "duckdb").mkdir(parents=True)
    outputs = tmp_path / "out"
    outputs.mkdir()
    (outputs / f".r.html.{proc.pid}.abc.tmp").write_text("half")
    (outputs / ".r.html.1.abc.tmp").write_text("another process's")
    read, write = os.pipe()
    os.write(write, bytes([signal.SIGTERM]))
    watch(read, proc.pid, 0.2, str(private), [str(outputs)])
    assert proc.wait(timeout=10) == -signal.SIGKILL
    assert not private.exists()
    assert sorted(p.name for p in outputs.iterdir()) == [".r.html.1.abc.tmp"]
    assert capfd.readouterr().err == "precmp: stopped by SIGTERM; nothing written\n"
    os.close(read)
    os.close(write)


def test_sigint_is_ignored_and_a_closed_pipe_ends_the_watch(tmp_path):
    proc = _stubborn()
    try:
        read, write = os.pipe()
        os.write(write, bytes([signal.SIGINT]))  # Ctrl-C unwinds by itself: not the watchdog's
        os.close(write)
        watch(read, proc.pid, 0.1, str(tmp_path / "private"), [])
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()


def test_a_command_that_closes_the_pipe_in_the_grace_is_left_to_end_by_itself(tmp_path):
    # its own handler ran: it unwinds (exit 143) and the watchdog must not kill it meanwhile
    proc = _stubborn()
    try:
        read, write = os.pipe()
        os.write(write, bytes([signal.SIGTERM]))
        os.close(write)
        watch(read, proc.pid, 5.0, str(tmp_path / "private"), [])
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()
