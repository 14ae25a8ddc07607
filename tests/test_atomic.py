import os

import pytest

from uqval._internal.atomic import atomic_path, write_atomic


def test_written_file_has_normal_permissions(tmp_path):
    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "a.txt", lambda fh: fh.write("x"))
    finally:
        os.umask(old)
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o644


def test_failed_writer_leaves_nothing(tmp_path):
    def boom(fh):
        fh.write("partial")
        raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        write_atomic(tmp_path / "b.txt", boom)
    assert list(tmp_path.iterdir()) == []


def test_existing_output_survives_a_failed_rewrite(tmp_path):
    dest = tmp_path / "c.txt"
    dest.write_text("complete")
    with pytest.raises(KeyboardInterrupt), atomic_path(dest) as tmp:
        tmp.write_text("half")
        raise KeyboardInterrupt
    assert dest.read_text() == "complete" and len(list(tmp_path.iterdir())) == 1
