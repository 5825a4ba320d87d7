"""Outputs are written atomically and replace only a regular file, even when something else
appears at their path while they are being written."""

from __future__ import annotations

import os
import stat

import pytest

from precmp_lib._lib.atomic import OutputError, check_output, staged, write_atomic


def test_a_fifo_made_while_the_outputs_are_written_is_not_replaced(tmp_path):
    # the command checks its outputs before any work; staged() checks again just before
    # os.replace, which would swap the FIFO for a plain file
    out = tmp_path / "r.html"
    with pytest.raises(OutputError, match=r"a FIFO is at that path"):
        with staged([out]) as temp:
            temp[out].write_text("<p>page</p>")
            os.mkfifo(out)
    assert stat.S_ISFIFO(os.lstat(out).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]  # no temporary left


def test_write_atomic_refuses_a_symbolic_link_and_leaves_its_target(tmp_path):
    (tmp_path / "target.txt").write_text("not ours\n")
    (tmp_path / "r.html").symlink_to(tmp_path / "target.txt")
    with pytest.raises(OutputError, match=r"r.html: a symbolic link is at that path"):
        write_atomic(tmp_path / "r.html", "<p>page</p>")
    assert (tmp_path / "r.html").is_symlink()
    assert (tmp_path / "target.txt").read_text() == "not ours\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html", "target.txt"]


def test_a_regular_file_or_nothing_passes_and_a_long_name_is_one_line(tmp_path):
    (tmp_path / "old.html").write_text("old")
    check_output(tmp_path / "old.html", "--out")
    check_output(tmp_path / "new.html", "--out")
    check_output(tmp_path / "old.html" / "under", "--out")  # the folder's making reports it
    with pytest.raises(OutputError) as info:
        check_output(tmp_path / ("a" * 300), "--out")
    assert str(info.value) == "--out " + "a" * 77 + "...: cannot be written (File name too long)"


def test_temporaries_carry_the_process_id(tmp_path):
    # the stop watchdog removes .NAME.PID.*.tmp beside the outputs of the process it ends
    out = tmp_path / "r.html"
    with staged([out]) as temp:
        assert temp[out].name.startswith(f".r.html.{os.getpid()}.")
        assert temp[out].name.endswith(".tmp")
        temp[out].write_text("x")
    assert out.read_text() == "x"
